package worksession

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// WorkSessionSource finds work sessions (DESIGN §3, priority 3; seeds/003):
// `docs/maestro/work_sessions/*.json`, with the task files
// (`docs/maestro/tasks/*.json`) for task titles and parent links. Each
// session file is a candidate: an active or paused session is resumable, a
// closed one is terminal. A subtask's session is a candidate of its own that
// names its parent; a parent brings its breadcrumbs and the summaries of its
// completed subtasks.
type WorkSessionSource struct{}

// Kind is workflow.KindWorkSession.
func (WorkSessionSource) Kind() string { return workflow.KindWorkSession }

// Priority is workflow.PriorityWorkflow (work sessions share priority 3).
func (WorkSessionSource) Priority() int { return workflow.PriorityWorkflow }

// WorkSession is one work-session file as recorded.
type WorkSession struct {
	Path        string
	ID          string // the session id (the cookie); the file name when the file records none
	TaskID      string
	ParentID    string // parent_wsession_id: the parent session of a subtask's session
	AISessionID string // the AI session's resume token
	Status      string // normalised lower-case status ("closed" for ended/finished); "" when none
	StatusRaw   string
	Summary     string // the session's own summary, when it records one
	CreatedAt   time.Time
	UpdatedAt   time.Time // updated_at, else the newest recorded time (closed_at, breadcrumbs, created_at)
	UpdatedFrom string    // the field UpdatedAt came from, e.g. "updated_at" or "breadcrumbs[].timestamp"
	ClosedAt    time.Time
	Agent       string
	Breadcrumbs []Breadcrumb
	Subtasks    []Subtask
	Metadata    map[string]any
	// Raw is the decoded file, every field untouched (unwrapped when the
	// file nests the session under a "work_session" key).
	Raw map[string]any
}

// Breadcrumb is one breadcrumb of a work session.
type Breadcrumb struct {
	ID          string
	Timestamp   time.Time
	Message     any    // as recorded: text (string) or an object (map[string]any)
	Text        string // the message as text: the text itself, or the object's summary/message/text field, or its JSON
	AISessionID string
}

// Subtask is an entry of a parent session's subtasks list.
type Subtask struct {
	WSessionID string
	TaskID     string
	Summary    string
	Status     string // normalised
	ClosedAt   time.Time
}

// Task is one task file.
type Task struct {
	Path        string
	ID          string
	Title       string
	Description string
	Status      string // normalised
	ParentTask  string // the parent task of a spawned subtask
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Closed reports whether the session is over (closed, completed, aborted…).
func (ws WorkSession) Closed() bool { return workflow.IsTerminalStatus(ws.Status) }

// Context keys a work-session candidate fills (each only when known).
const (
	WorkSessionCtxID          = "work_session_id"   // text: the session id, the cookie breadcrumb calls must name
	WorkSessionCtxTaskID      = "task_id"           // text
	WorkSessionCtxTask        = "task"              // text: the task's title
	WorkSessionCtxParent      = "parent"            // text: the parent session id (a subtask's session)
	WorkSessionCtxBreadcrumbs = "breadcrumbs"       // list of {id, timestamp, message, ai_session_id}
	WorkSessionCtxSummaries   = "subtask_summaries" // list of {wsession_id, task_id, task, summary, status, closed_at}
	WorkSessionCtxOpen        = "open_subtasks"     // list of session ids of subtasks still open
	WorkSessionCtxMetadata    = "metadata"          // mapping, as recorded
)

// wsMaxPositionName bounds the breadcrumb text a position shows, in runes.
const wsMaxPositionName = 60

var (
	wsIDKeys        = []string{"id", "wsession_id", "wsessionId", "work_session_id", "workSessionId", "session_id", "sessionId"}
	wsTaskKeys      = []string{"task_id", "taskId", "task"}
	wsParentKeys    = []string{"parent_wsession_id", "parentWsessionId", "parent_work_session_id", "parentWorkSessionId", "parent_session_id", "parentSessionId", "parent_id", "parentId", "parent"}
	wsAIKeys        = []string{"ai_session_id", "aiSessionId", "ai_session", "aiSession", "resume_token", "resumeToken"}
	wsCreatedKeys   = []string{"created_at", "createdAt", "started_at", "startedAt", "created"}
	wsUpdatedKeys   = []string{"updated_at", "updatedAt", "last_updated", "lastUpdated", "modified_at", "modifiedAt"}
	wsClosedKeys    = []string{"closed_at", "closedAt", "completed_at", "completedAt", "ended_at", "endedAt"}
	wsBreadKeys     = []string{"breadcrumbs", "breadCrumbs", "bread_crumbs", "crumbs"}
	wsSubtaskKeys   = []string{"subtasks", "sub_tasks", "subTasks", "children"}
	wsSummaryKeys   = []string{"summary", "result", "outcome"}
	wsWrapperKeys   = []string{"work_session", "workSession", "wsession", "session"}
	wsTaskWrappers  = []string{"task"}
	wsMessageKeys   = []string{"message", "msg", "text", "content", "body", "data"}
	wsTimestampKeys = []string{"timestamp", "ts", "time", "created_at", "createdAt", "at"}
	wsStatusKeys    = []string{"status", "state"}
	wsResumedKeys   = []string{"resumed_at", "resumedAt"}
	// wsSubtaskIDKeys name the session in a subtask entry; the first is the
	// spelling a new entry gets.
	wsSubtaskIDKeys    = []string{"wsession_id", "wsessionId", "work_session_id", "workSessionId", "session_id", "sessionId", "id"}
	wsBreadcrumbIDKeys = []string{"id", "breadcrumb_id", "breadcrumbId", "bc_id"}
)

// ParseWorkSession parses one work-session file (JSON). It never fails: a
// file that does not decode gives a WorkSession with only Path and ID (the
// file name) and a blocking parse finding; wrong field types give warnings.
func ParseWorkSession(path string, data []byte) (WorkSession, []workflow.Finding) {
	ws, fs, _ := wsParse(path, data)
	return ws, fs
}

// wsParse is ParseWorkSession that also says whether the file decoded.
func wsParse(path string, data []byte) (WorkSession, []workflow.Finding, bool) {
	ws := WorkSession{Path: path}
	m, err := tolerant.DecodeJSONMap(data)
	if err != nil {
		ws.ID = storyid.Sanitize(source.Stem(path))
		return ws, []workflow.Finding{source.DecodeFinding(path, err)}, false
	}
	m = wsUnwrap(m, wsWrapperKeys, wsIDKeys)
	ws.Raw = m
	f := &tolerant.Fields{Path: path}
	var findings []workflow.Finding

	ws.ID = f.Str(m, wsIDKeys...)
	if ws.ID == "" {
		ws.ID = storyid.Sanitize(source.Stem(path))
		findings = append(findings, workflow.Finding{
			Check: workflow.CheckParse, Severity: workflow.Warning, Code: "no-id", Path: path,
			Message: fmt.Sprintf("the work session records no id; its file name %q stands for it", ws.ID),
		})
	}
	ws.TaskID = f.Str(m, wsTaskKeys...)
	ws.ParentID = f.Str(m, wsParentKeys...)
	ws.AISessionID = f.Str(m, wsAIKeys...)
	ws.Agent = strings.TrimPrefix(f.Str(m, "agent", "current_agent", "currentAgent"), "@")
	ws.StatusRaw = f.Str(m, wsStatusKeys...)
	ws.Status = wsStatus(ws.StatusRaw)
	ws.Summary = wsText(f, m, wsSummaryKeys...)
	ws.CreatedAt, _ = f.Time(m, wsCreatedKeys...)
	ws.ClosedAt, _ = f.Time(m, wsClosedKeys...)
	if ws.Status == "" && !ws.ClosedAt.IsZero() {
		ws.Status = "closed"
	}
	ws.Metadata = f.Map(m, "metadata", "meta")

	for i, it := range f.List(m, wsBreadKeys...) {
		if b, ok := wsBreadcrumb(f, i, it); ok {
			ws.Breadcrumbs = append(ws.Breadcrumbs, b)
		}
	}
	for i, it := range f.List(m, wsSubtaskKeys...) {
		if st, ok := wsSubtask(f, i, it); ok {
			ws.Subtasks = append(ws.Subtasks, st)
		}
	}

	// the last update: updated_at, else the newest time the session records
	if t, k := f.Time(m, wsUpdatedKeys...); k != "" {
		ws.UpdatedAt, ws.UpdatedFrom = t, k
	} else {
		pick := func(t time.Time, from string) {
			if !t.IsZero() && t.After(ws.UpdatedAt) {
				ws.UpdatedAt, ws.UpdatedFrom = t, from
			}
		}
		pick(ws.CreatedAt, wsFirstKey(m, wsCreatedKeys))
		for _, b := range ws.Breadcrumbs {
			pick(b.Timestamp, "breadcrumbs[].timestamp")
		}
		pick(ws.ClosedAt, wsFirstKey(m, wsClosedKeys))
	}
	return ws, append(findings, f.Findings...), true
}

// ParseTask parses one task file (JSON). It never fails: a file that does
// not decode gives a Task with only Path and ID (the file name) and a
// blocking parse finding.
func ParseTask(path string, data []byte) (Task, []workflow.Finding) {
	t, fs, _ := wsParseTask(path, data)
	return t, fs
}

func wsParseTask(path string, data []byte) (Task, []workflow.Finding, bool) {
	t := Task{Path: path}
	m, err := tolerant.DecodeJSONMap(data)
	if err != nil {
		t.ID = storyid.Sanitize(source.Stem(path))
		return t, []workflow.Finding{source.DecodeFinding(path, err)}, false
	}
	m = wsUnwrap(m, wsTaskWrappers, []string{"id", "task_id", "taskId"})
	f := &tolerant.Fields{Path: path}
	var findings []workflow.Finding
	t.ID = f.Str(m, "id", "task_id", "taskId")
	if t.ID == "" {
		t.ID = storyid.Sanitize(source.Stem(path))
		findings = append(findings, workflow.Finding{
			Check: workflow.CheckParse, Severity: workflow.Warning, Code: "no-id", Path: path,
			Message: fmt.Sprintf("the task records no id; its file name %q stands for it", t.ID),
		})
	}
	t.Title = f.Str(m, "title", "name", "summary")
	t.Description = f.Str(m, "description", "desc", "details")
	t.Status = wsStatus(f.Str(m, wsStatusKeys...))
	t.ParentTask = f.Str(m, "parent_task", "parentTask", "parent_task_id", "parentTaskId", "parent_id", "parentId", "parent")
	t.CreatedAt, _ = f.Time(m, "created_at", "createdAt", "created")
	t.UpdatedAt, _ = f.Time(m, "updated_at", "updatedAt", "last_updated", "lastUpdated")
	return t, append(findings, f.Findings...), true
}

// wsUnwrap returns the mapping nested under a wrapper key when the top level
// is only that wrapper (it has none of the id keys itself).
func wsUnwrap(m map[string]any, wrappers, idKeys []string) map[string]any {
	if _, _, ok := tolerant.Lookup(m, idKeys); ok {
		return m
	}
	for _, k := range wrappers {
		if inner, ok := m[k].(map[string]any); ok {
			return inner
		}
	}
	return m
}

func wsFirstKey(m map[string]any, keys []string) string {
	_, k, _ := tolerant.Lookup(m, keys)
	return k
}

// wsStatus normalises a session or task status; ended, finished and
// archived sessions are "closed".
func wsStatus(raw string) string {
	s := workflow.NormalizeStateStatus(raw)
	switch s {
	case "ended", "finished", "archived":
		return "closed"
	}
	return s
}

// wsText reads a text field that may also hold an object (rendered as text).
func wsText(f *tolerant.Fields, m map[string]any, keys ...string) string {
	v, k, ok := tolerant.Lookup(m, keys)
	if !ok {
		return ""
	}
	if mm, ok := v.(map[string]any); ok {
		return wsObjectText(mm)
	}
	s, ok := tolerant.ScalarString(v)
	if !ok {
		f.Wrong(k, "text or an object", v)
		return ""
	}
	return s
}

// wsObjectText renders a message object: its summary, message, text or
// title when it has one as text, else its JSON (keys sorted).
func wsObjectText(m map[string]any) string {
	for _, k := range []string{"summary", "message", "text", "title", "note", "finding", "description"} {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Sprint(m)
	}
	return string(b)
}

// wsBreadcrumb reads one breadcrumb: a mapping, or bare text.
func wsBreadcrumb(f *tolerant.Fields, i int, it any) (Breadcrumb, bool) {
	key := fmt.Sprintf("breadcrumbs[%d]", i)
	switch t := it.(type) {
	case map[string]any:
		b := Breadcrumb{
			ID:          f.Str(t, wsBreadcrumbIDKeys...),
			AISessionID: f.Str(t, wsAIKeys...),
		}
		b.Timestamp, _ = f.Time(t, wsTimestampKeys...)
		if v, k, ok := tolerant.Lookup(t, wsMessageKeys); ok {
			switch mv := v.(type) {
			case string:
				b.Message, b.Text = mv, strings.TrimSpace(mv)
			case map[string]any:
				b.Message, b.Text = mv, wsObjectText(mv)
			default:
				if s, ok := tolerant.ScalarString(mv); ok {
					b.Message, b.Text = s, s
				} else {
					f.Wrong(key+"."+k, "text or an object", v)
					b.Message = v
					if j, err := json.Marshal(v); err == nil {
						b.Text = string(j)
					}
				}
			}
		}
		return b, true
	case string:
		return Breadcrumb{Message: t, Text: strings.TrimSpace(t)}, true
	}
	f.Wrong(key, "a breadcrumb (an object or text)", it)
	return Breadcrumb{}, false
}

// wsSubtask reads one entry of a parent's subtasks: a mapping, or a bare
// session id.
func wsSubtask(f *tolerant.Fields, i int, it any) (Subtask, bool) {
	key := fmt.Sprintf("subtasks[%d]", i)
	switch t := it.(type) {
	case map[string]any:
		st := Subtask{
			WSessionID: f.Str(t, wsSubtaskIDKeys...),
			TaskID:     f.Str(t, wsTaskKeys...),
			Summary:    wsText(f, t, "summary", "result", "outcome", "message"),
			Status:     wsStatus(f.Str(t, wsStatusKeys...)),
		}
		st.ClosedAt, _ = f.Time(t, wsClosedKeys...)
		if st.WSessionID == "" && st.TaskID == "" && st.Summary == "" {
			f.Wrong(key, "a subtask with a wsession_id, task_id or summary", it)
			return Subtask{}, false
		}
		return st, true
	case string:
		if s := strings.TrimSpace(t); s != "" {
			return Subtask{WSessionID: s}, true
		}
		return Subtask{}, false
	}
	f.Wrong(key, "a subtask (an object)", it)
	return Subtask{}, false
}

// Scan reads the task files, then every work-session file. Each session file
// is a candidate; findings about task files (which belong to no candidate)
// are returned as warnings.
func (WorkSessionSource) Scan(r *source.Repo) ([]workflow.Candidate, []workflow.Finding) {
	var loose []workflow.Finding
	tasks := map[string]Task{}
	for _, p := range r.Glob(r.Config.Sources.Tasks, false) {
		if strings.HasSuffix(p, ".bak") {
			continue
		}
		data, err := r.Read(p)
		if err != nil {
			loose = append(loose, wsWarn(source.ReadFinding(p, err)))
			continue
		}
		t, fs, ok := wsParseTask(p, data)
		for _, f := range fs {
			loose = append(loose, wsWarn(f))
		}
		if _, dup := tasks[t.ID]; ok && !dup {
			tasks[t.ID] = t
		}
	}
	var entries []wsEntry
	for _, p := range r.Glob(r.Config.Sources.WorkSession, false) {
		if strings.HasSuffix(p, ".bak") {
			continue
		}
		data, err := r.Read(p)
		if err != nil {
			entries = append(entries, wsEntry{WS: WorkSession{Path: p, ID: storyid.Sanitize(source.Stem(p))}, Findings: []workflow.Finding{source.ReadFinding(p, err)}})
			continue
		}
		ws, fs, ok := wsParse(p, data)
		entries = append(entries, wsEntry{WS: ws, Findings: fs, OK: ok})
	}
	cs := wsCandidates(entries, tasks)
	for i := range cs {
		c := &cs[i]
		if c.UpdatedAt.IsZero() {
			if mt := r.ModTime(c.Source.Path); !mt.IsZero() {
				c.UpdatedAt, c.UpdatedFrom = mt, "mtime"
			}
		}
		if r.Exists(c.Source.Path + ".bak") {
			c.BackupPath = c.Source.Path + ".bak"
		}
	}
	return cs, loose
}

// wsWarn turns a finding about a task file into a warning: a task file only
// adds titles and links, it blocks nothing.
func wsWarn(f workflow.Finding) workflow.Finding {
	if f.Severity == workflow.Blocking {
		f.Severity = workflow.Warning
	}
	return f
}

// wsEntry is one work-session file as read.
type wsEntry struct {
	WS       WorkSession
	Findings []workflow.Finding
	OK       bool // the file decoded
}

// FindWorkSession finds the work session named id (its recorded id, else
// its file name) among the configured work-session files. Files that cannot
// be read or decoded are skipped.
func FindWorkSession(r *source.Repo, id string) (path string, ws WorkSession, ok bool) {
	id = strings.TrimSpace(id)
	if id == "" {
		return "", WorkSession{}, false
	}
	var byName []WorkSession
	for _, p := range r.Glob(r.Config.Sources.WorkSession, false) {
		if strings.HasSuffix(p, ".bak") {
			continue
		}
		data, err := r.Read(p)
		if err != nil {
			continue
		}
		s, _, decoded := wsParse(p, data)
		if !decoded {
			continue
		}
		if s.ID == id {
			return p, s, true
		}
		if source.Stem(p) == id || storyid.Sanitize(s.ID) == id {
			byName = append(byName, s)
		}
	}
	if len(byName) > 0 {
		return byName[0].Path, byName[0], true
	}
	return "", WorkSession{}, false
}

// wsCandidates builds the candidates of a set of work-session files (in
// path order), linking subtasks to parents through parent_wsession_id, or,
// when a session records no parent, through its task's parent_task.
func wsCandidates(entries []wsEntry, tasks map[string]Task) []workflow.Candidate {
	byID := map[string]int{}
	for i, e := range entries {
		if !e.OK {
			continue
		}
		if _, dup := byID[e.WS.ID]; !dup {
			byID[e.WS.ID] = i
		}
	}
	// the parent of every session, and how it is known
	parents := make([]string, len(entries))
	viaTask := make([]bool, len(entries))
	for i, e := range entries {
		if !e.OK {
			continue
		}
		if e.WS.ParentID != "" {
			parents[i] = e.WS.ParentID
			continue
		}
		t, ok := tasks[e.WS.TaskID]
		if !ok || t.ParentTask == "" {
			continue
		}
		best := -1
		for j, o := range entries {
			if j == i || !o.OK || o.WS.TaskID != t.ParentTask {
				continue
			}
			if best < 0 || (entries[best].WS.Closed() && !o.WS.Closed()) {
				best = j
			}
		}
		if best >= 0 {
			parents[i], viaTask[i] = entries[best].WS.ID, true
		}
	}
	children := map[string][]int{}
	for i, p := range parents {
		if p != "" && p != entries[i].WS.ID {
			children[p] = append(children[p], i)
		}
	}

	out := make([]workflow.Candidate, 0, len(entries))
	for i, e := range entries {
		if !e.OK {
			out = append(out, wsUnreadable(e.WS.Path, e.Findings))
			continue
		}
		c := wsBuild(e.WS, e.Findings, tasks)
		if p := parents[i]; p != "" && p != e.WS.ID {
			c.Context[WorkSessionCtxParent] = p
			if _, ok := byID[p]; !ok {
				c.Findings = append(c.Findings, workflow.Finding{
					Check: workflow.CheckDiscover, Severity: workflow.Warning, Code: "parent-not-found", Path: e.WS.Path,
					Message: fmt.Sprintf("the parent work session %q has no file among the work sessions", p),
				})
			} else if viaTask[i] {
				c.Findings = append(c.Findings, workflow.Finding{
					Check: workflow.CheckDiscover, Severity: workflow.Info, Code: "parent-from-task", Path: e.WS.Path,
					Message: fmt.Sprintf("the session records no parent_wsession_id; its task's parent task links it to %q", p),
				})
			}
		}
		wsLinkSubtasks(&c, e.WS, entries, children[e.WS.ID], tasks)
		out = append(out, c)
	}
	return out
}

// wsUnreadable is the candidate of a work-session file that cannot be read
// or decoded.
func wsUnreadable(file string, fs []workflow.Finding) workflow.Candidate {
	key := storyid.Sanitize(source.Stem(file))
	return workflow.Candidate{
		ID:        "work-session:" + key,
		Type:      workflow.TypeWorkSession,
		Key:       key,
		Source:    workflow.SourceRef{Kind: workflow.KindWorkSession, Path: file, Priority: workflow.PriorityWorkflow},
		Workflow:  "work-session",
		Stories:   []string{},
		Status:    "unreadable",
		Resumable: true,
		Findings:  append([]workflow.Finding(nil), fs...),
	}
}

// wsBuild is the candidate of one session, without the links to others.
func wsBuild(ws WorkSession, findings []workflow.Finding, tasks map[string]Task) workflow.Candidate {
	key := storyid.Sanitize(ws.ID)
	c := workflow.Candidate{
		ID:          "work-session:" + key,
		Type:        workflow.TypeWorkSession,
		Key:         key,
		Source:      workflow.SourceRef{Kind: workflow.KindWorkSession, Path: ws.Path, Priority: workflow.PriorityWorkflow},
		Workflow:    "work-session",
		Stories:     []string{},
		StatusRaw:   ws.StatusRaw,
		StartedAt:   ws.CreatedAt,
		UpdatedAt:   ws.UpdatedAt,
		AISessionID: ws.AISessionID,
		Agent:       ws.Agent,
		Context:     map[string]any{WorkSessionCtxID: ws.ID},
		Findings:    append([]workflow.Finding(nil), findings...),
	}
	if ws.UpdatedFrom != "" {
		c.UpdatedFrom = "field:" + ws.UpdatedFrom
	}
	status := ws.Status
	switch {
	case status == "":
		status = "unknown"
		c.Findings = append(c.Findings, workflow.Finding{
			Check: workflow.CheckParse, Severity: workflow.Info, Code: "no-status", Path: ws.Path,
			Message: "the work session records no status (nor closed_at); treated as active",
		})
	case ws.Closed():
		if status != "aborted" && status != "cancelled" {
			status = "closed"
		}
	case status != "active" && status != "paused":
		c.Findings = append(c.Findings, workflow.Finding{
			Check: workflow.CheckParse, Severity: workflow.Info, Code: "unknown-status", Path: ws.Path,
			Message: fmt.Sprintf("status %q is not a work-session status (active, paused, closed); treated as open", workflow.Truncate(ws.StatusRaw, 80)),
		})
	}
	c.Status = status
	c.Resumable = !workflow.IsTerminalStatus(status)

	if ws.TaskID != "" {
		c.Context[WorkSessionCtxTaskID] = ws.TaskID
		if t, ok := tasks[ws.TaskID]; ok && t.Title != "" {
			c.Context[WorkSessionCtxTask] = t.Title
		}
	}
	crumbs := make([]any, 0, len(ws.Breadcrumbs))
	for _, b := range ws.Breadcrumbs {
		m := map[string]any{"message": b.Message}
		if b.ID != "" {
			m["id"] = b.ID
		}
		if !b.Timestamp.IsZero() {
			m["timestamp"] = b.Timestamp.Format(time.RFC3339)
		}
		if b.AISessionID != "" {
			m["ai_session_id"] = b.AISessionID
		}
		crumbs = append(crumbs, m)
	}
	c.Context[WorkSessionCtxBreadcrumbs] = crumbs
	if len(ws.Metadata) > 0 {
		c.Context[WorkSessionCtxMetadata] = ws.Metadata
	}
	last := ""
	if n := len(ws.Breadcrumbs); n > 0 {
		last = wsShorten(ws.Breadcrumbs[n-1].Text, wsMaxPositionName)
	}
	c.Position = workflow.Position{Kind: workflow.PosStep, Index: len(ws.Breadcrumbs), Total: 0, Name: last}

	// referenced files, when the session lists any
	f := &tolerant.Fields{Path: ws.Path}
	set := source.NewFileSet(nil)
	for _, k := range []string{"files", "files_changed", "filesChanged", "changed_files", "artifacts"} {
		if v, ok := ws.Raw[k]; ok {
			source.FileList(f, set, k, v, "")
		}
	}
	if files := set.Sorted(); len(files) > 0 {
		c.Files = files
	}
	c.Findings = append(c.Findings, f.Findings...)
	return c
}

// wsLinkSubtasks adds to a session's candidate the summaries of its
// completed subtasks (from its subtasks list and the closed child sessions)
// and an info finding listing the subtasks still open.
func wsLinkSubtasks(c *workflow.Candidate, ws WorkSession, entries []wsEntry, kids []int, tasks map[string]Task) {
	child := map[string]WorkSession{}
	for _, k := range kids {
		if _, dup := child[entries[k].WS.ID]; !dup {
			child[entries[k].WS.ID] = entries[k].WS
		}
	}
	title := func(taskID string) string {
		if t, ok := tasks[taskID]; ok {
			return t.Title
		}
		return ""
	}
	childSummary := func(s WorkSession) string {
		if s.Summary != "" {
			return s.Summary
		}
		if n := len(s.Breadcrumbs); n > 0 {
			return s.Breadcrumbs[n-1].Text
		}
		return ""
	}
	var summaries []any
	var open, openIDs []string
	listed := map[string]bool{}
	addSummary := func(wsID, taskID, summary, status string, closed time.Time) {
		m := map[string]any{}
		for k, v := range map[string]string{"wsession_id": wsID, "task_id": taskID, "task": title(taskID), "summary": summary, "status": status} {
			if v != "" {
				m[k] = v
			}
		}
		if !closed.IsZero() {
			m["closed_at"] = closed.Format(time.RFC3339)
		}
		summaries = append(summaries, m)
	}
	for _, st := range ws.Subtasks {
		if st.WSessionID != "" {
			listed[st.WSessionID] = true
		}
		cs, haveChild := child[st.WSessionID]
		status := st.Status
		if haveChild && (status == "" || !workflow.IsTerminalStatus(status)) && cs.Status != "" {
			status = cs.Status // the child's own file is the newer word
		}
		switch {
		case workflow.IsTerminalStatus(status) || (status == "" && st.Summary != ""):
			summary, closed, taskID := st.Summary, st.ClosedAt, st.TaskID
			if haveChild {
				if summary == "" {
					summary = childSummary(cs)
				}
				if closed.IsZero() {
					closed = cs.ClosedAt
				}
				if taskID == "" {
					taskID = cs.TaskID
				}
			}
			addSummary(st.WSessionID, taskID, summary, status, closed)
		default:
			id := st.WSessionID
			if id == "" {
				id = st.TaskID
			}
			openIDs = append(openIDs, id)
			open = append(open, wsDescribe(id, st.TaskID, title(st.TaskID)))
		}
	}
	for _, k := range kids {
		s := entries[k].WS
		if listed[s.ID] {
			continue
		}
		listed[s.ID] = true
		if s.Closed() {
			addSummary(s.ID, s.TaskID, childSummary(s), s.Status, s.ClosedAt)
			continue
		}
		openIDs = append(openIDs, s.ID)
		open = append(open, wsDescribe(s.ID, s.TaskID, title(s.TaskID)))
	}
	if len(summaries) > 0 {
		c.Context[WorkSessionCtxSummaries] = summaries
	}
	if len(open) > 0 {
		ids := make([]any, 0, len(openIDs))
		for _, id := range openIDs {
			ids = append(ids, id)
		}
		c.Context[WorkSessionCtxOpen] = ids
		c.Findings = append(c.Findings, workflow.Finding{
			Check: workflow.CheckDiscover, Severity: workflow.Info, Code: "open-subtasks", Path: ws.Path,
			Message: fmt.Sprintf("%d open subtask(s): %s", len(open), strings.Join(open, ", ")),
		})
	}
}

// wsDescribe renders a subtask as "id (task-002: Investigate component Y)".
func wsDescribe(id, taskID, title string) string {
	switch {
	case taskID != "" && title != "" && id != taskID:
		return fmt.Sprintf("%s (%s: %s)", id, taskID, title)
	case title != "":
		return fmt.Sprintf("%s (%s)", id, title)
	case taskID != "" && id != taskID:
		return fmt.Sprintf("%s (%s)", id, taskID)
	}
	return id
}

// wsShorten collapses whitespace and cuts s to at most max runes, marking a
// cut with "…".
func wsShorten(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	rs := []rune(s)
	return strings.TrimSpace(string(rs[:max-1])) + "…"
}

// Activity is the last time a session was worked on: the newest of its
// update time, creation, breadcrumbs and last resume.
func Activity(ws WorkSession) time.Time {
	t := ws.UpdatedAt
	later := func(u time.Time) {
		if u.After(t) {
			t = u
		}
	}
	later(ws.CreatedAt)
	for _, b := range ws.Breadcrumbs {
		later(b.Timestamp)
	}
	for _, k := range wsResumedKeys {
		if v, ok := ws.Raw[k]; ok {
			if u, ok := tolerant.ToTime(v); ok {
				later(u)
			}
		}
	}
	return t
}
