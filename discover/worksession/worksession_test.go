package worksession

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// The artifacts of the work-session format.
const (
	wsTask001 = `{
  "id": "task-001",
  "title": "Implement feature X",
  "description": "Add new feature X to the application",
  "status": "in_progress",
  "created_at": "2025-01-26T09:00:00Z"
}`
	wsTask002 = `{
  "id": "task-002",
  "title": "Investigate component Y",
  "description": "Analyze component Y to understand its structure and API",
  "status": "in_progress",
  "parent_task": "task-001",
  "created_at": "2025-01-26T10:05:00Z"
}`
	// the parent session when it starts (step 2)
	wsParentStart = `{
  "id": "wsession-parent-abc123",
  "task_id": "task-001",
  "ai_session_id": "ai-session-r1-xyz789",
  "status": "active",
  "created_at": "2025-01-26T10:00:00Z",
  "breadcrumbs": [],
  "subtasks": []
}`
	// the subtask's session after its breadcrumb (steps 3 and 4)
	wsSubtaskActive = `{
  "id": "wsession-subtask-def456",
  "task_id": "task-002",
  "parent_wsession_id": "wsession-parent-abc123",
  "ai_session_id": "ai-session-r2-uvw456",
  "status": "active",
  "created_at": "2025-01-26T10:05:00Z",
  "breadcrumbs": [
    {
      "id": "bc-001",
      "message": "Found 3 main functions in component Y: validate, sanitize, transform",
      "timestamp": "2025-01-26T10:08:00Z",
      "ai_session_id": "ai-session-r2-uvw456"
    }
  ]
}`
	// the subtask's session once closed (step 5)
	wsSubtaskClosed = `{
  "id": "wsession-subtask-def456",
  "task_id": "task-002",
  "parent_wsession_id": "wsession-parent-abc123",
  "ai_session_id": "ai-session-r2-uvw456",
  "status": "closed",
  "created_at": "2025-01-26T10:05:00Z",
  "closed_at": "2025-01-26T10:20:00Z",
  "breadcrumbs": [
    {"id": "bc-001", "message": "Found 3 main functions in component Y: validate, sanitize, transform", "timestamp": "2025-01-26T10:08:00Z", "ai_session_id": "ai-session-r2-uvw456"}
  ]
}`
	// the parent session after the subtask closed (step 5), with a breadcrumb of its own
	wsParentAfter = `{
  "id": "wsession-parent-abc123",
  "task_id": "task-001",
  "ai_session_id": "ai-session-r1-xyz789",
  "status": "paused",
  "created_at": "2025-01-26T10:00:00Z",
  "updated_at": "2025-01-26T10:21:00Z",
  "breadcrumbs": [
    {"id": "bc-p01", "timestamp": "2025-01-26T10:02:00Z", "message": {"kind": "plan", "steps": ["investigate Y", "implement X"]}, "ai_session_id": "ai-session-r1-xyz789"}
  ],
  "subtasks": [
    {
      "task_id": "task-002",
      "wsession_id": "wsession-subtask-def456",
      "status": "completed",
      "summary": "Investigated component Y: provides validate, sanitize, transform functions"
    }
  ],
  "metadata": {"engine": "claude"},
  "unknown": "kept"
}`
	// other spellings: camelCase, a wrapper, text breadcrumbs, object messages
	wsCamel = `{"workSession": {
  "wsessionId": "ws-camel",
  "taskId": "task-9",
  "parentWsessionId": "ws-root",
  "aiSessionId": "ai-9",
  "state": "Paused",
  "createdAt": 1737885600,
  "breadCrumbs": [
    "plain text crumb",
    {"breadcrumb_id": "b2", "ts": "2025-01-26T11:00:00Z", "msg": {"summary": "structured finding", "files": ["a.go"]}, "aiSessionId": "ai-9"},
    {"id": "b3", "time": "2025-01-26T11:30:00Z", "text": 42}
  ],
  "subTasks": ["ws-child-a", {"sessionId": "ws-child-b", "taskId": "task-10", "result": {"message": "done it"}, "state": "Done", "closedAt": "2025-01-26T12:00:00Z"}]
}}`
)

func wsMustParse(t *testing.T, path, data string) WorkSession {
	t.Helper()
	ws, fs := ParseWorkSession(path, []byte(data))
	for _, f := range fs {
		if f.Severity == workflow.Blocking {
			t.Fatalf("%s: %v", path, f)
		}
	}
	return ws
}

func wsEntries(t *testing.T, files ...string) []wsEntry {
	t.Helper()
	var out []wsEntry
	for i := 0; i+1 < len(files); i += 2 {
		ws, fs, ok := wsParse(files[i], []byte(files[i+1]))
		out = append(out, wsEntry{WS: ws, Findings: fs, OK: ok})
	}
	return out
}

func wsTasks(t *testing.T, files ...string) map[string]Task {
	t.Helper()
	out := map[string]Task{}
	for i, data := range files {
		task, fs := ParseTask("docs/maestro/tasks/t"+string(rune('0'+i))+".json", []byte(data))
		if len(fs) != 0 {
			t.Fatalf("task findings %v", fs)
		}
		out[task.ID] = task
	}
	return out
}

func wsByID(cs []workflow.Candidate) map[string]workflow.Candidate {
	m := map[string]workflow.Candidate{}
	for _, c := range cs {
		m[c.ID] = c
	}
	return m
}

func TestParseWorkSessionSeed(t *testing.T) {
	p, fs := ParseWorkSession("docs/maestro/work_sessions/wsession-parent-abc123.json", []byte(wsParentAfter))
	if len(fs) != 0 {
		t.Fatalf("findings = %v", fs)
	}
	if p.ID != "wsession-parent-abc123" || p.TaskID != "task-001" || p.ParentID != "" || p.AISessionID != "ai-session-r1-xyz789" {
		t.Errorf("ids = %+v", p)
	}
	if p.Status != "paused" || p.StatusRaw != "paused" || p.Closed() {
		t.Errorf("status %q raw %q", p.Status, p.StatusRaw)
	}
	if !p.CreatedAt.Equal(sourcetest.MustTime(t, "2025-01-26T10:00:00Z")) || !p.UpdatedAt.Equal(sourcetest.MustTime(t, "2025-01-26T10:21:00Z")) || p.UpdatedFrom != "updated_at" {
		t.Errorf("times created %v updated %v from %q", p.CreatedAt, p.UpdatedAt, p.UpdatedFrom)
	}
	if len(p.Breadcrumbs) != 1 {
		t.Fatalf("breadcrumbs = %+v", p.Breadcrumbs)
	}
	b := p.Breadcrumbs[0]
	if b.ID != "bc-p01" || b.AISessionID != "ai-session-r1-xyz789" || !b.Timestamp.Equal(sourcetest.MustTime(t, "2025-01-26T10:02:00Z")) {
		t.Errorf("breadcrumb = %+v", b)
	}
	if _, ok := b.Message.(map[string]any); !ok || b.Text != `{"kind":"plan","steps":["investigate Y","implement X"]}` {
		t.Errorf("object message = %#v text %q", b.Message, b.Text)
	}
	want := []Subtask{{WSessionID: "wsession-subtask-def456", TaskID: "task-002", Status: "completed", Summary: "Investigated component Y: provides validate, sanitize, transform functions"}}
	if !reflect.DeepEqual(p.Subtasks, want) {
		t.Errorf("subtasks = %+v", p.Subtasks)
	}
	if p.Metadata["engine"] != "claude" || p.Raw["unknown"] != "kept" {
		t.Errorf("metadata %v raw %v", p.Metadata, p.Raw)
	}

	s := wsMustParse(t, "s.json", wsSubtaskActive)
	if s.ParentID != "wsession-parent-abc123" || s.Breadcrumbs[0].Text != "Found 3 main functions in component Y: validate, sanitize, transform" || s.Breadcrumbs[0].Message != s.Breadcrumbs[0].Text {
		t.Errorf("subtask = %+v", s)
	}
	// no updated_at: the newest recorded time
	if !s.UpdatedAt.Equal(sourcetest.MustTime(t, "2025-01-26T10:08:00Z")) || s.UpdatedFrom != "breadcrumbs[].timestamp" {
		t.Errorf("updated %v from %q", s.UpdatedAt, s.UpdatedFrom)
	}
	cl := wsMustParse(t, "c.json", wsSubtaskClosed)
	if !cl.Closed() || !cl.ClosedAt.Equal(sourcetest.MustTime(t, "2025-01-26T10:20:00Z")) || cl.UpdatedFrom != "closed_at" {
		t.Errorf("closed = %+v", cl)
	}
	st := wsMustParse(t, "p.json", wsParentStart)
	if st.UpdatedFrom != "created_at" || len(st.Breadcrumbs) != 0 || len(st.Subtasks) != 0 {
		t.Errorf("start = %+v", st)
	}
}

func TestParseWorkSessionSpellings(t *testing.T) {
	ws, fs := ParseWorkSession("x.json", []byte(wsCamel))
	if !sourcetest.HasFinding(fs, "wrong-type", workflow.Warning) && len(fs) != 0 {
		t.Errorf("findings = %v", fs)
	}
	if ws.ID != "ws-camel" || ws.TaskID != "task-9" || ws.ParentID != "ws-root" || ws.AISessionID != "ai-9" || ws.Status != "paused" || ws.StatusRaw != "Paused" {
		t.Errorf("ws = %+v", ws)
	}
	if !ws.CreatedAt.Equal(time.Unix(1737885600, 0).UTC()) {
		t.Errorf("created = %v", ws.CreatedAt)
	}
	if len(ws.Breadcrumbs) != 3 {
		t.Fatalf("breadcrumbs = %+v", ws.Breadcrumbs)
	}
	if b := ws.Breadcrumbs[0]; b.Message != "plain text crumb" || b.Text != "plain text crumb" {
		t.Errorf("text crumb = %+v", b)
	}
	if b := ws.Breadcrumbs[1]; b.ID != "b2" || b.Text != "structured finding" || b.AISessionID != "ai-9" || b.Timestamp.IsZero() {
		t.Errorf("object crumb = %+v", b)
	}
	if b := ws.Breadcrumbs[2]; b.Text != "42" || b.ID != "b3" {
		t.Errorf("number crumb = %+v", b)
	}
	wantSub := []Subtask{{WSessionID: "ws-child-a"}, {WSessionID: "ws-child-b", TaskID: "task-10", Summary: "done it", Status: "done", ClosedAt: sourcetest.MustTime(t, "2025-01-26T12:00:00Z")}}
	if !reflect.DeepEqual(ws.Subtasks, wantSub) {
		t.Errorf("subtasks = %+v", ws.Subtasks)
	}
	if ws.UpdatedFrom != "breadcrumbs[].timestamp" || !ws.UpdatedAt.Equal(sourcetest.MustTime(t, "2025-01-26T11:30:00Z")) {
		t.Errorf("updated %v from %q", ws.UpdatedAt, ws.UpdatedFrom)
	}

	tests := []struct {
		name   string
		data   string
		status string
		code   string
		check  func(t *testing.T, ws WorkSession)
	}{
		{name: "snake parent spelling", data: `{"id": "a", "parent_work_session_id": "p", "status": "active"}`, status: "active",
			check: func(t *testing.T, ws WorkSession) {
				if ws.ParentID != "p" {
					t.Errorf("parent = %q", ws.ParentID)
				}
			}},
		{name: "closed_at without status", data: `{"id": "a", "closed_at": "2025-01-01T00:00:00Z"}`, status: "closed"},
		{name: "finished", data: `{"id": "a", "status": "Finished"}`, status: "closed"},
		{name: "completed", data: `{"id": "a", "status": "completed"}`, status: "completed"},
		{name: "no id", data: `{"status": "active"}`, status: "active", code: "no-id",
			check: func(t *testing.T, ws WorkSession) {
				if ws.ID != "x" {
					t.Errorf("id = %q", ws.ID)
				}
			}},
		{name: "status a list", data: `{"id": "a", "status": ["active"]}`, code: "wrong-type"},
		{name: "breadcrumbs an object", data: `{"id": "a", "status": "active", "breadcrumbs": {"m": 1}}`, status: "active", code: "wrong-type"},
		{name: "breadcrumb a number", data: `{"id": "a", "status": "active", "breadcrumbs": [1, "ok"]}`, status: "active", code: "wrong-type",
			check: func(t *testing.T, ws WorkSession) {
				if len(ws.Breadcrumbs) != 1 || ws.Breadcrumbs[0].Text != "ok" {
					t.Errorf("breadcrumbs = %+v", ws.Breadcrumbs)
				}
			}},
		{name: "message a list", data: `{"id": "a", "status": "active", "breadcrumbs": [{"message": ["x", 1]}]}`, status: "active", code: "wrong-type",
			check: func(t *testing.T, ws WorkSession) {
				if ws.Breadcrumbs[0].Text != `["x",1]` {
					t.Errorf("text = %q", ws.Breadcrumbs[0].Text)
				}
			}},
		{name: "bad timestamp", data: `{"id": "a", "status": "active", "created_at": "soon", "breadcrumbs": [{"message": "m", "timestamp": true}]}`, status: "active", code: "wrong-type",
			check: func(t *testing.T, ws WorkSession) {
				if !ws.UpdatedAt.IsZero() || ws.UpdatedFrom != "" {
					t.Errorf("updated %v from %q", ws.UpdatedAt, ws.UpdatedFrom)
				}
			}},
		{name: "subtask without anything", data: `{"id": "a", "status": "active", "subtasks": [{"status": "active"}, 3]}`, status: "active", code: "wrong-type",
			check: func(t *testing.T, ws WorkSession) {
				if len(ws.Subtasks) != 0 {
					t.Errorf("subtasks = %+v", ws.Subtasks)
				}
			}},
		{name: "metadata not a mapping", data: `{"id": "a", "status": "active", "metadata": "x"}`, status: "active", code: "wrong-type"},
		{name: "id a number", data: `{"id": 17, "status": "active"}`, status: "active",
			check: func(t *testing.T, ws WorkSession) {
				if ws.ID != "17" {
					t.Errorf("id = %q", ws.ID)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, fs := ParseWorkSession("x.json", []byte(tt.data))
			if ws.Status != tt.status {
				t.Errorf("status = %q, want %q", ws.Status, tt.status)
			}
			if tt.code != "" && !sourcetest.HasFinding(fs, tt.code, workflow.Warning) {
				t.Errorf("want a %s warning, got %v", tt.code, fs)
			}
			if tt.code == "" && len(fs) != 0 {
				t.Errorf("findings = %v", fs)
			}
			for _, f := range fs {
				if f.Severity == workflow.Blocking {
					t.Errorf("blocking finding %v", f)
				}
			}
			if tt.check != nil {
				tt.check(t, ws)
			}
		})
	}
}

func TestParseWorkSessionMalformed(t *testing.T) {
	tests := []struct{ name, data, code string }{
		{"truncated", `{"id": "a", "breadcrumbs": [`, "syntax"},
		{"empty", ``, "syntax"},
		{"array", `[{"id": "a"}]`, "not-an-object"},
		{"string", `"active"`, "not-an-object"},
		{"trailing data", `{"id": "a"} {"id": "b"}`, "syntax"},
		{"invalid utf8", "{\"id\": \"\xff\xfe\"}", "invalid-utf8"},
		{"binary", "\x00\x01\x02\x03", "syntax"},
		{"yaml", "id: a\nstatus: active\n", "syntax"},
		{"too deep", strings.Repeat("[", 200), "too-deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := "docs/maestro/work_sessions/broken one.json"
			ws, fs := ParseWorkSession(path, []byte(tt.data))
			if ws.ID != "broken-one" || ws.Path != path || ws.Raw != nil {
				t.Errorf("ws = %+v", ws)
			}
			if len(fs) != 1 || fs[0].Severity != workflow.Blocking || fs[0].Code != tt.code || fs[0].Path != path {
				t.Fatalf("findings = %+v", fs)
			}
			cs := wsCandidates(wsEntries(t, path, tt.data), nil)
			if len(cs) != 1 {
				t.Fatalf("%d candidates", len(cs))
			}
			c := cs[0]
			if c.ID != "work-session:broken-one" || c.Status != "unreadable" || !c.Resumable || c.Type != workflow.TypeWorkSession || !reflect.DeepEqual(c.Findings, fs) {
				t.Errorf("candidate = %+v", c)
			}
			task, tfs := ParseTask("docs/maestro/tasks/t.json", []byte(tt.data))
			if task.ID != "t" || len(tfs) != 1 || tfs[0].Severity != workflow.Blocking {
				t.Errorf("task %+v findings %v", task, tfs)
			}
		})
	}
}

func TestParseTask(t *testing.T) {
	tests := []struct {
		name string
		data string
		want Task
		code string
	}{
		{name: "seed parent", data: wsTask001, want: Task{ID: "task-001", Title: "Implement feature X", Description: "Add new feature X to the application", Status: "in_progress", CreatedAt: time.Date(2025, 1, 26, 9, 0, 0, 0, time.UTC)}},
		{name: "seed subtask", data: wsTask002, want: Task{ID: "task-002", Title: "Investigate component Y", Description: "Analyze component Y to understand its structure and API", Status: "in_progress", ParentTask: "task-001", CreatedAt: time.Date(2025, 1, 26, 10, 5, 0, 0, time.UTC)}},
		{name: "camel and wrapper", data: `{"task": {"taskId": "T-3", "name": "Fix it", "parentTaskId": "T-1", "state": "In Progress", "updatedAt": "2025-02-01T00:00:00Z"}}`,
			want: Task{ID: "T-3", Title: "Fix it", ParentTask: "T-1", Status: "in_progress", UpdatedAt: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)}},
		{name: "no id", data: `{"title": "x"}`, want: Task{ID: "t", Title: "x"}, code: "no-id"},
		{name: "wrong types", data: `{"id": "a", "title": {"en": "x"}, "created_at": [1]}`, want: Task{ID: "a"}, code: "wrong-type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, fs := ParseTask("docs/maestro/tasks/t.json", []byte(tt.data))
			tt.want.Path = "docs/maestro/tasks/t.json"
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("task = %+v\nwant   %+v", got, tt.want)
			}
			if tt.code != "" && !sourcetest.HasFinding(fs, tt.code, workflow.Warning) {
				t.Errorf("want %s, got %v", tt.code, fs)
			}
			if tt.code == "" && len(fs) != 0 {
				t.Errorf("findings = %v", fs)
			}
		})
	}
}

func TestWorkSessionCandidates(t *testing.T) {
	const dir = "docs/maestro/work_sessions/"
	tasks := wsTasks(t, wsTask001, wsTask002)

	t.Run("subtask running: both open, linked", func(t *testing.T) {
		cs := wsCandidates(wsEntries(t, dir+"a.json", wsParentStart, dir+"b.json", wsSubtaskActive), tasks)
		by := wsByID(cs)
		p, s := by["work-session:wsession-parent-abc123"], by["work-session:wsession-subtask-def456"]
		if p.Key != "wsession-parent-abc123" || p.AISessionID != "ai-session-r1-xyz789" || p.Status != "active" || !p.Resumable || p.Type != workflow.TypeWorkSession {
			t.Errorf("parent = %+v", p)
		}
		if p.Context[WorkSessionCtxTask] != "Implement feature X" || p.Context[WorkSessionCtxTaskID] != "task-001" || p.Context[WorkSessionCtxParent] != nil {
			t.Errorf("parent context = %#v", p.Context)
		}
		if !reflect.DeepEqual(p.Context[WorkSessionCtxOpen], []any{"wsession-subtask-def456"}) || p.Context[WorkSessionCtxSummaries] != nil {
			t.Errorf("parent open %v summaries %v", p.Context[WorkSessionCtxOpen], p.Context[WorkSessionCtxSummaries])
		}
		if len(p.Findings) != 1 || p.Findings[0].Code != "open-subtasks" || p.Findings[0].Severity != workflow.Info ||
			!strings.Contains(p.Findings[0].Message, "wsession-subtask-def456 (task-002: Investigate component Y)") {
			t.Errorf("parent findings = %v", p.Findings)
		}
		if p.Position != (workflow.Position{Kind: workflow.PosStep}) || !reflect.DeepEqual(p.Context[WorkSessionCtxBreadcrumbs], []any{}) {
			t.Errorf("parent position %+v breadcrumbs %#v", p.Position, p.Context[WorkSessionCtxBreadcrumbs])
		}
		if s.Context[WorkSessionCtxParent] != "wsession-parent-abc123" || s.Context[WorkSessionCtxTask] != "Investigate component Y" || !s.Resumable || len(s.Findings) != 0 {
			t.Errorf("subtask = %+v", s)
		}
		last := "Found 3 main functions in component Y: validate, sanitize,…"
		wantPos := workflow.Position{Kind: workflow.PosStep, Index: 1, Done: 1, Total: 0, Name: last, Last: last}
		if s.Position != wantPos || len([]rune(s.Position.Name)) > 60 {
			t.Errorf("subtask position = %+v", s.Position)
		}
		crumbs := s.Context[WorkSessionCtxBreadcrumbs].([]any)
		want := map[string]any{"id": "bc-001", "timestamp": "2025-01-26T10:08:00Z", "ai_session_id": "ai-session-r2-uvw456", "message": "Found 3 main functions in component Y: validate, sanitize, transform"}
		if len(crumbs) != 1 || !reflect.DeepEqual(crumbs[0], want) {
			t.Errorf("breadcrumbs = %#v", crumbs)
		}
		if !s.UpdatedAt.Equal(sourcetest.MustTime(t, "2025-01-26T10:08:00Z")) || s.UpdatedFrom != "field:breadcrumbs[].timestamp" || !s.StartedAt.Equal(sourcetest.MustTime(t, "2025-01-26T10:05:00Z")) {
			t.Errorf("subtask times %v %q %v", s.UpdatedAt, s.UpdatedFrom, s.StartedAt)
		}
	})

	t.Run("subtask closed: terminal, summary in the parent", func(t *testing.T) {
		cs := wsCandidates(wsEntries(t, dir+"a.json", wsParentAfter, dir+"b.json", wsSubtaskClosed), tasks)
		by := wsByID(cs)
		p, s := by["work-session:wsession-parent-abc123"], by["work-session:wsession-subtask-def456"]
		if s.Status != "closed" || s.StatusRaw != "closed" || s.Resumable {
			t.Errorf("closed subtask status %q resumable %v", s.Status, s.Resumable)
		}
		if p.Status != "paused" || !p.Resumable || len(p.Findings) != 0 {
			t.Errorf("parent status %q findings %v", p.Status, p.Findings)
		}
		want := []any{map[string]any{
			"wsession_id": "wsession-subtask-def456", "task_id": "task-002", "task": "Investigate component Y",
			"summary": "Investigated component Y: provides validate, sanitize, transform functions", "status": "completed",
			"closed_at": "2025-01-26T10:20:00Z",
		}}
		if !reflect.DeepEqual(p.Context[WorkSessionCtxSummaries], want) {
			t.Errorf("summaries = %#v", p.Context[WorkSessionCtxSummaries])
		}
		crumbs := p.Context[WorkSessionCtxBreadcrumbs].([]any)
		if msg, ok := crumbs[0].(map[string]any)["message"].(map[string]any); !ok || msg["kind"] != "plan" {
			t.Errorf("object breadcrumb kept as %#v", crumbs[0])
		}
		if p.Position.Index != 1 || p.Position.Name != `{"kind":"plan","steps":["investigate Y","implement X"]}` {
			t.Errorf("position = %+v", p.Position)
		}
		if p.Context[WorkSessionCtxMetadata].(map[string]any)["engine"] != "claude" || p.UpdatedFrom != "field:updated_at" {
			t.Errorf("metadata %v updated from %q", p.Context[WorkSessionCtxMetadata], p.UpdatedFrom)
		}
	})

	t.Run("closed child not in the parent's list: summary from its file", func(t *testing.T) {
		cs := wsCandidates(wsEntries(t, dir+"a.json", wsParentStart, dir+"b.json", wsSubtaskClosed), tasks)
		p := wsByID(cs)["work-session:wsession-parent-abc123"]
		want := []any{map[string]any{
			"wsession_id": "wsession-subtask-def456", "task_id": "task-002", "task": "Investigate component Y",
			"summary": "Found 3 main functions in component Y: validate, sanitize, transform", "status": "closed",
			"closed_at": "2025-01-26T10:20:00Z",
		}}
		if !reflect.DeepEqual(p.Context[WorkSessionCtxSummaries], want) || len(p.Findings) != 0 {
			t.Errorf("summaries = %#v findings %v", p.Context[WorkSessionCtxSummaries], p.Findings)
		}
	})

	t.Run("listed as completed but the child is still active", func(t *testing.T) {
		cs := wsCandidates(wsEntries(t, dir+"a.json", wsParentAfter, dir+"b.json", wsSubtaskActive), tasks)
		p := wsByID(cs)["work-session:wsession-parent-abc123"]
		// the parent's word (completed) stands: its summary is brought along
		if len(p.Context[WorkSessionCtxSummaries].([]any)) != 1 || p.Context[WorkSessionCtxOpen] != nil {
			t.Errorf("summaries %v open %v", p.Context[WorkSessionCtxSummaries], p.Context[WorkSessionCtxOpen])
		}
	})

	t.Run("parent linked through the task", func(t *testing.T) {
		child := `{"id": "ws-child", "task_id": "task-002", "status": "active"}`
		closedOther := `{"id": "ws-old", "task_id": "task-001", "status": "closed"}`
		cs := wsCandidates(wsEntries(t, dir+"0.json", closedOther, dir+"a.json", wsParentStart, dir+"b.json", child), tasks)
		by := wsByID(cs)
		c := by["work-session:ws-child"]
		if c.Context[WorkSessionCtxParent] != "wsession-parent-abc123" || !sourcetest.HasFinding(c.Findings, "parent-from-task", workflow.Info) {
			t.Errorf("child context %v findings %v", c.Context, c.Findings)
		}
		if !sourcetest.HasFinding(by["work-session:wsession-parent-abc123"].Findings, "open-subtasks", workflow.Info) {
			t.Errorf("parent findings %v", by["work-session:wsession-parent-abc123"].Findings)
		}
	})

	t.Run("parent missing", func(t *testing.T) {
		cs := wsCandidates(wsEntries(t, dir+"b.json", wsSubtaskActive), tasks)
		if len(cs) != 1 || !sourcetest.HasFinding(cs[0].Findings, "parent-not-found", workflow.Warning) || cs[0].Context[WorkSessionCtxParent] != "wsession-parent-abc123" {
			t.Errorf("candidate = %+v", cs)
		}
	})

	t.Run("open entries of the parent's list without files", func(t *testing.T) {
		cs := wsCandidates(wsEntries(t, dir+"x.json", wsCamel), nil)
		c := cs[0]
		if !reflect.DeepEqual(c.Context[WorkSessionCtxOpen], []any{"ws-child-a"}) || len(c.Context[WorkSessionCtxSummaries].([]any)) != 1 {
			t.Errorf("open %v summaries %v", c.Context[WorkSessionCtxOpen], c.Context[WorkSessionCtxSummaries])
		}
		if c.ID != "work-session:ws-camel" || c.Context[WorkSessionCtxParent] != "ws-root" || c.Position.Name != "42" || c.Position.Index != 3 {
			t.Errorf("candidate = %+v", c)
		}
	})

	t.Run("statuses", func(t *testing.T) {
		for _, tt := range []struct {
			data, status, code string
			resumable          bool
		}{
			{`{"id": "a", "status": "active"}`, "active", "", true},
			{`{"id": "a", "status": "PAUSED"}`, "paused", "", true},
			{`{"id": "a", "status": "closed"}`, "closed", "", false},
			{`{"id": "a", "status": "done"}`, "closed", "", false},
			{`{"id": "a", "status": "aborted"}`, "aborted", "", false},
			{`{"id": "a", "closed_at": "2025-01-01"}`, "closed", "", false},
			{`{"id": "a"}`, "unknown", "no-status", true},
			{`{"id": "a", "status": "interrupted"}`, "interrupted", "unknown-status", true},
		} {
			cs := wsCandidates(wsEntries(t, "w.json", tt.data), nil)
			c := cs[0]
			if c.Status != tt.status || c.Resumable != tt.resumable || (tt.code != "" && !sourcetest.HasFinding(c.Findings, tt.code, workflow.Info)) {
				t.Errorf("%s: status %q resumable %v findings %v", tt.data, c.Status, c.Resumable, c.Findings)
			}
			wsCheckCandidate(t, c, len(tt.data))
		}
	})
}

func TestWorkSessionSourceScan(t *testing.T) {
	root := t.TempDir()
	sourcetest.Write(t, root, map[string]string{
		"docs/maestro/tasks/task-001.json":                           wsTask001,
		"docs/maestro/tasks/task-002.json":                           wsTask002,
		"docs/maestro/tasks/broken.json":                             `{"id": `,
		"docs/maestro/work_sessions/wsession-parent-abc123.json":     wsParentAfter,
		"docs/maestro/work_sessions/wsession-parent-abc123.json.bak": wsParentStart,
		"docs/maestro/work_sessions/wsession-subtask-def456.json":    wsSubtaskClosed,
		"docs/maestro/work_sessions/notime.json":                     `{"id": "ws-notime", "status": "active", "files": ["src/a.go", {"path": "src/b.go"}]}`,
		"docs/maestro/work_sessions/bad.json":                        "\x00\x01binary",
		"docs/maestro/work_sessions/nested/ignored.json":             wsParentStart,
		"docs/maestro/work_sessions/notes.txt":                       "x",
	})
	mtime := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(root, "docs/maestro/work_sessions/notime.json"), mtime, mtime); err != nil {
		t.Fatal(err)
	}
	r, _ := source.NewRepo(root, config.Default())
	src := WorkSessionSource
	if src.Kind() != workflow.KindWorkSession || src.Priority() != 3 {
		t.Errorf("kind %q priority %d", src.Kind(), src.Priority())
	}
	cs, loose := src.Scan(r)
	if len(loose) != 1 || loose[0].Path != "docs/maestro/tasks/broken.json" || loose[0].Severity != workflow.Warning {
		t.Errorf("loose findings = %v", loose)
	}
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	want := []string{"work-session:bad", "work-session:ws-notime", "work-session:wsession-parent-abc123", "work-session:wsession-subtask-def456"}
	if !reflect.DeepEqual(ids, want) {
		t.Fatalf("ids = %v, want %v", ids, want)
	}
	by := wsByID(cs)
	if c := by["work-session:bad"]; c.Status != "unreadable" || c.Findings[0].Code != "binary" || c.UpdatedFrom != "mtime" {
		t.Errorf("bad = %+v", c)
	}
	if c := by["work-session:ws-notime"]; !c.UpdatedAt.Equal(mtime) || c.UpdatedFrom != "mtime" || len(c.Files) != 2 || c.Files[1].Path != "src/b.go" {
		t.Errorf("notime = %+v", c)
	}
	p := by["work-session:wsession-parent-abc123"]
	if p.BackupPath != "docs/maestro/work_sessions/wsession-parent-abc123.json.bak" || p.Context[WorkSessionCtxTask] != "Implement feature X" {
		t.Errorf("parent = %+v", p)
	}
	if sums := p.Context[WorkSessionCtxSummaries].([]any); len(sums) != 1 || sums[0].(map[string]any)["task"] != "Investigate component Y" {
		t.Errorf("summaries = %v", sums)
	}
	again, _ := src.Scan(r)
	if !reflect.DeepEqual(cs, again) {
		t.Error("scan is not deterministic")
	}

	for _, tt := range []struct {
		id, path string
		ok       bool
	}{
		{"wsession-subtask-def456", "docs/maestro/work_sessions/wsession-subtask-def456.json", true},
		{"ws-notime", "docs/maestro/work_sessions/notime.json", true},
		{"notime", "docs/maestro/work_sessions/notime.json", true},
		{"bad", "", false},
		{"nope", "", false},
		{"", "", false},
	} {
		path, ws, ok := FindWorkSession(r, tt.id)
		if path != tt.path || ok != tt.ok || (ok && ws.Path != path) {
			t.Errorf("FindWorkSession(%q) = %q %v %+v", tt.id, path, ok, ws)
		}
	}
	if _, ws, _ := FindWorkSession(r, "wsession-parent-abc123"); ws.AISessionID != "ai-session-r1-xyz789" || len(ws.Subtasks) != 1 {
		t.Errorf("found %+v", ws)
	}
}

// wsCheckCandidate checks what every work-session candidate keeps.
func wsCheckCandidate(t *testing.T, c workflow.Candidate, n int) {
	t.Helper()
	sourcetest.CheckCandidate(t, c, c.Findings, "work-session:", n+8)
	if c.Type != workflow.TypeWorkSession || c.Source.Kind != workflow.KindWorkSession || c.Source.Priority != 3 {
		t.Fatalf("type %q source %+v", c.Type, c.Source)
	}
	if c.Status == "unreadable" {
		return
	}
	if c.Position.Kind != workflow.PosStep || c.Position.Total != 0 || len([]rune(c.Position.Name)) > wsMaxPositionName {
		t.Fatalf("position %+v", c.Position)
	}
	crumbs, ok := c.Context[WorkSessionCtxBreadcrumbs].([]any)
	if !ok || len(crumbs) != c.Position.Index {
		t.Fatalf("breadcrumbs %#v for position %+v", c.Context[WorkSessionCtxBreadcrumbs], c.Position)
	}
	if c.Resumable && c.Status == "closed" {
		t.Fatal("a closed session is resumable")
	}
}

func FuzzParseWorkSession(f *testing.F) {
	for _, s := range []string{wsParentStart, wsSubtaskActive, wsSubtaskClosed, wsParentAfter, wsCamel, `{"id": "a", "breadcrumbs": [`, "{\"id\": \"\xff\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ws, fs, ok := wsParse("w/x.json", data)
		if !ok && (len(fs) != 1 || fs[0].Severity != workflow.Blocking) {
			t.Fatalf("undecodable file without one blocking finding: %v", fs)
		}
		if ws.ID == "" || ws.Path != "w/x.json" {
			t.Fatalf("ws = %+v", ws)
		}
		cs := wsCandidates([]wsEntry{{WS: ws, Findings: fs, OK: ok}}, nil)
		if len(cs) != 1 {
			t.Fatalf("%d candidates", len(cs))
		}
		wsCheckCandidate(t, cs[0], len(data))
		ws2, fs2, _ := wsParse("w/x.json", data)
		if !reflect.DeepEqual(ws, ws2) || !reflect.DeepEqual(fs, fs2) {
			t.Fatal("not deterministic")
		}
	})
}

func FuzzParseTask(f *testing.F) {
	for _, s := range []string{wsTask001, wsTask002, `{"task": {"taskId": "T", "parentTask": 3}}`, `{"id": `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		task, fs := ParseTask("t/x.json", data)
		if task.ID == "" || task.Path != "t/x.json" {
			t.Fatalf("task = %+v", task)
		}
		if len(fs) > len(data)+4 {
			t.Fatalf("%d findings from %d bytes", len(fs), len(data))
		}
		again, fs2 := ParseTask("t/x.json", data)
		if !reflect.DeepEqual(task, again) || !reflect.DeepEqual(fs, fs2) {
			t.Fatal("not deterministic")
		}
	})
}
