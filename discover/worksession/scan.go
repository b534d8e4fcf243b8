package worksession

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// scanWorkSessions reads the task files, then every work-session file. Each session file
// is a candidate; findings about task files (which belong to no candidate)
// are returned as warnings.
func scanWorkSessions(r *source.Repo) ([]workflow.Candidate, []workflow.Finding) {
	var loose []workflow.Finding
	tasks := map[string]Task{}
	for _, p := range Files(r, r.Config.Sources.Tasks) {
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
	budget := tolerant.NewBudget() // the breadcrumbs and subtasks of all the sessions
	for _, p := range Files(r, r.Config.Sources.WorkSession) {
		data, err := r.Read(p)
		if err != nil {
			entries = append(entries, wsEntry{WS: WorkSession{Path: p, ID: wsFileID(p)}, Findings: []workflow.Finding{source.ReadFinding(p, err)}})
			continue
		}
		ws, fs, ok := wsParse(p, data)
		if n := len(ws.Breadcrumbs) + len(ws.Subtasks); ok && !budget.Take(n) {
			ws = WorkSession{Path: p, ID: ws.ID}
			fs, ok = []workflow.Finding{source.DecodeFinding(p, budget.Err(n, "breadcrumbs and subtasks"))}, false
		}
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

// Files are the files the globs match (as Repo.Glob matches them), backups
// (`.bak`, kept beside a file the handoff rewrote) aside.
func Files(r *source.Repo, globs []string) []string {
	var out []string
	for _, p := range r.Glob(globs, false) {
		if !strings.HasSuffix(p, ".bak") {
			out = append(out, p)
		}
	}
	return out
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
	for _, p := range Files(r, r.Config.Sources.WorkSession) {
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
	src := workflow.SourceRef{Kind: workflow.KindWorkSession, Path: file, Priority: workflow.PriorityWorkflow}
	return source.Unreadable(src, workflow.TypeWorkSession, "work-session", wsFileID(file), "work-session", fs...)
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
	c.Position = workflow.Position{Kind: workflow.PosStep, Index: len(ws.Breadcrumbs), Done: len(ws.Breadcrumbs), Total: 0, Name: last, Last: last}

	// referenced files, when the session lists any
	f := &source.Fields{Path: ws.Path}
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
