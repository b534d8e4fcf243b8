// Package worksession is the work-session format (work sessions, their
// breadcrumbs and subtasks, and the task files that link them), both ways:
// ParseWorkSession and ParseTask read them, WorkSessionSource makes
// candidates, the patches in patch.go append breadcrumbs, close sessions and
// record AI session ids keeping every other byte, and the writers in
// write.go apply them to the files (`breadcrumb add`, `work done`, the new
// AI session id a resume records): locked, checked, atomic. Parse and patch
// read the same key lists. Adding a framework means adding one format
// package like this one and one line to discover.DefaultSources (see
// docs/ARCHITECTURE.md).
package worksession

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// WorkSessionSource finds work sessions (priority 3):
// `docs/maestro/work_sessions/*.json`, with the task files
// (`docs/maestro/tasks/*.json`) for task titles and parent links. Each
// session file is a candidate: an active or paused session is resumable, a
// closed one is terminal. A subtask's session is a candidate of its own that
// names its parent; a parent brings its breadcrumbs and the summaries of its
// completed subtasks.
var WorkSessionSource source.Source = source.Format{FormatKind: workflow.KindWorkSession, FormatPriority: workflow.PriorityWorkflow, ScanFunc: scanWorkSessions}

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
	wsClosedKeys    = []string{"closed_at", "closedAt", "completed_at", "completedAt", "finished_at", "finishedAt", "ended_at", "endedAt"}
	wsBreadKeys     = []string{"breadcrumbs", "breadCrumbs", "bread_crumbs", "crumbs"}
	wsSubtaskKeys   = []string{"subtasks", "sub_tasks", "subTasks", "children"}
	wsSummaryKeys   = []string{"summary", "result", "outcome"}
	wsWrapperKeys   = []string{"work_session", "workSession", "wsession", "session"}
	wsTaskWrappers  = []string{"task"}
	wsTaskIDKeys    = []string{"id", "task_id", "taskId"}
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
	m, bad := wsDecode(path, data, wsWrapperKeys, wsIDKeys)
	if bad != nil {
		ws.ID = wsFileID(path)
		return ws, bad, false
	}
	if n := tolerant.ListLen(m, wsBreadKeys...) + tolerant.ListLen(m, wsSubtaskKeys...); n > tolerant.MaxElements {
		ws.ID = wsFileID(path)
		return ws, []workflow.Finding{source.DecodeFinding(path, tolerant.TooManyElements(n, tolerant.MaxElements, "breadcrumbs and subtasks"))}, false
	}
	ws.Raw = m
	f := &source.Fields{Path: path}
	var findings []workflow.Finding
	ws.ID, findings = wsID(f, m, "work session", wsIDKeys)
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

// wsParseTask is ParseTask that also says whether the file decoded.
func wsParseTask(path string, data []byte) (Task, []workflow.Finding, bool) {
	m, bad := wsDecode(path, data, wsTaskWrappers, wsTaskIDKeys)
	if bad != nil {
		return Task{Path: path, ID: wsFileID(path)}, bad, false
	}
	t := Task{Path: path}
	f := &source.Fields{Path: path}
	var findings []workflow.Finding
	t.ID, findings = wsID(f, m, "task", wsTaskIDKeys)
	t.Title = f.Str(m, "title", "name", "summary")
	t.Description = f.Str(m, "description", "desc", "details")
	t.Status = wsStatus(f.Str(m, wsStatusKeys...))
	t.ParentTask = f.Str(m, "parent_task", "parentTask", "parent_task_id", "parentTaskId", "parent_id", "parentId", "parent")
	t.CreatedAt, _ = f.Time(m, "created_at", "createdAt", "created")
	t.UpdatedAt, _ = f.Time(m, "updated_at", "updatedAt", "last_updated", "lastUpdated")
	return t, append(findings, f.Findings...), true
}

// wsID reads the id of a record (a work session, a task: what) from keys;
// without one, its file name stands for it, with a warning that says so.
func wsID(f *source.Fields, m map[string]any, what string, keys []string) (string, []workflow.Finding) {
	if id := f.Str(m, keys...); id != "" {
		return id, nil
	}
	id := wsFileID(f.Path)
	return id, []workflow.Finding{{
		Check: workflow.CheckParse, Severity: workflow.Warning, Code: "no-id", Path: f.Path,
		Message: fmt.Sprintf("the %s records no id; its file name %q stands for it", what, id),
	}}
}

// wsFileID is the id a file's name gives a record that has none.
func wsFileID(path string) string { return storyid.Sanitize(source.Stem(path)) }

// wsDecode decodes a work-session or task file (JSON) and unwraps it
// (wsUnwrap); a file that does not decode gives the blocking finding.
func wsDecode(path string, data []byte, wrappers, idKeys []string) (map[string]any, []workflow.Finding) {
	m, err := tolerant.DecodeJSONMap(data)
	if err != nil {
		return nil, []workflow.Finding{source.DecodeFinding(path, err)}
	}
	return wsUnwrap(m, wrappers, idKeys), nil
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
func wsText(f *source.Fields, m map[string]any, keys ...string) string {
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
func wsBreadcrumb(f *source.Fields, i int, it any) (Breadcrumb, bool) {
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
func wsSubtask(f *source.Fields, i int, it any) (Subtask, bool) {
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
