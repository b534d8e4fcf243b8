package worksession

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/atomicfile"
	"github.com/orchestrate-dev/orchestrate/internal/config"
)

const (
	parentPath = "docs/maestro/work_sessions/wsession-parent-abc123.json"
	childPath  = "docs/maestro/work_sessions/wsession-subtask-def456.json"
)

// parentJSON is the parent session when it starts, with a member of
// another tool that every write must keep byte for byte.
var parentJSON = strings.Replace(wsParentStart, `"subtasks": []`, `"subtasks": [],
  "x_tool": {"keep": [1, 2.50, "\u00e9"]}`, 1) + "\n"

// childJSON is the subtask's session before its first breadcrumb.
var childJSON = wsSubtaskActive[:strings.Index(wsSubtaskActive, `"breadcrumbs"`)] + "\"breadcrumbs\": []\n}\n"

var wsNow = time.Date(2025, 1, 26, 10, 8, 0, 0, time.UTC)

func wsRepo(t *testing.T, files map[string]string) *source.Repo {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &source.Repo{Root: root, Config: config.Default()}
}

func readRel(t *testing.T, r *source.Repo, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.Root, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseBreadcrumbMessage(t *testing.T) {
	ok := map[string]any{
		"Found 3 main functions":     "Found 3 main functions",
		"  padded  ":                 "padded",
		"[WIP] not JSON":             "[WIP] not JSON",
		`{"b": 1, "a": {"z": true}}`: json.RawMessage(`{"b":1,"a":{"z":true}}`),
	}
	for in, want := range ok {
		got, err := ParseBreadcrumbMessage(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: got %v, want %v", in, got, want)
		}
	}
	for in, frag := range map[string]string{
		"":              "empty",
		"   ":           "empty",
		"{not json":     "not a valid JSON object",
		`{"a": 1} x`:    "not a valid JSON object",
		"{}":            "empty JSON object",
		`[1, 2]`:        "not an object (an array)",
		`42`:            "not an object (a number)",
		`"quoted"`:      "not an object (a string)",
		`true`:          "not an object (a boolean)",
		`null`:          "not an object (null)",
		"bad \xff utf8": "UTF-8",
	} {
		_, err := ParseBreadcrumbMessage(in)
		var me *MessageError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), frag) {
			t.Errorf("%q: err = %v, want a MessageError with %q", in, err, frag)
		}
	}
}

func TestActiveWorkSession(t *testing.T) {
	r := wsRepo(t, map[string]string{parentPath: parentJSON, childPath: childJSON})
	if ws, ok := ActiveWorkSession(r); !ok || ws.ID != "wsession-subtask-def456" {
		t.Fatalf("active = %v %v, want the newer subtask", ws.ID, ok)
	}
	// a paused subtask is not active
	os.WriteFile(filepath.Join(r.Root, childPath), []byte(strings.Replace(childJSON, `"active"`, `"paused"`, 1)), 0o644)
	if ws, _ := ActiveWorkSession(r); ws.ID != "wsession-parent-abc123" {
		t.Fatalf("active = %v, want the parent", ws.ID)
	}
	_, err := CheckCookie(r, "wsession-subtask-def456")
	var ce *CookieError
	if !errors.As(err, &ce) || ce.Expected != "wsession-parent-abc123" {
		t.Fatalf("err = %v", err)
	}
	want := "cookie wsession-subtask-def456 does not name the active work session; expected wsession-parent-abc123 (wsession-subtask-def456 is paused)"
	if err.Error() != want {
		t.Errorf("message:\n%s\nwant\n%s", err, want)
	}
	// a resume makes a session the most recently worked on
	os.WriteFile(filepath.Join(r.Root, childPath), []byte(strings.Replace(childJSON, `"created_at"`, `"resumed_at": "2025-01-26T09:00:00Z", "created_at"`, 1)), 0o644)
	os.WriteFile(filepath.Join(r.Root, parentPath), []byte(strings.Replace(parentJSON, `"created_at"`, `"resumed_at": "2025-01-26T11:00:00Z", "created_at"`, 1)), 0o644)
	if ws, _ := ActiveWorkSession(r); ws.ID != "wsession-parent-abc123" {
		t.Fatalf("active = %v, want the resumed parent", ws.ID)
	}
	// nothing active
	r2 := wsRepo(t, map[string]string{childPath: strings.Replace(childJSON, `"active"`, `"closed"`, 1)})
	_, err = CheckCookie(r2, "wsession-subtask-def456")
	if err == nil || !strings.Contains(err.Error(), "no work session is active") {
		t.Errorf("err = %v", err)
	}
	_, err = CheckCookie(r, "")
	if err == nil || !strings.HasPrefix(err.Error(), "no --cookie given; expected wsession-parent-abc123") {
		t.Errorf("err = %v", err)
	}
	_, err = CheckCookie(r, "nope")
	if err == nil || !strings.Contains(err.Error(), "no work session has that id") {
		t.Errorf("err = %v", err)
	}
}

func TestAddBreadcrumb(t *testing.T) {
	r := wsRepo(t, map[string]string{parentPath: parentJSON, childPath: childJSON})
	before := readRel(t, r, parentPath)

	// the wrong cookie: rejected, nothing written
	_, err := AddBreadcrumb(r, "wsession-parent-abc123", "Implemented X", wsNow)
	var ce *CookieError
	if !errors.As(err, &ce) || ce.Expected != "wsession-subtask-def456" {
		t.Fatalf("err = %v", err)
	}
	if readRel(t, r, parentPath) != before || readRel(t, r, childPath) != childJSON {
		t.Fatal("a rejected call wrote")
	}
	// a bad message: rejected, nothing written
	if _, err := AddBreadcrumb(r, "wsession-subtask-def456", "[1]", wsNow); err == nil {
		t.Fatal("want an error")
	}
	if readRel(t, r, childPath) != childJSON {
		t.Fatal("a rejected call wrote")
	}

	got, err := AddBreadcrumb(r, "wsession-subtask-def456", "Found 3 main functions in component Y: validate, sanitize, transform", wsNow)
	if err != nil {
		t.Fatal(err)
	}
	if got.Entry.ID != "bc-001" || got.Session != "wsession-subtask-def456" || got.Path != childPath {
		t.Errorf("%+v", got)
	}
	want := strings.Replace(childJSON, `"breadcrumbs": []`, `"breadcrumbs": [
    {
      "id": "bc-001",
      "timestamp": "2025-01-26T10:08:00Z",
      "message": "Found 3 main functions in component Y: validate, sanitize, transform",
      "ai_session_id": "ai-session-r2-uvw456"
    }
  ]`, 1)
	if s := readRel(t, r, childPath); s != want {
		t.Fatalf("got:\n%s\nwant:\n%s", s, want)
	}
	_, err = AddBreadcrumb(r, "wsession-subtask-def456", `{"finding": "Y <validates>", "functions": ["validate", "sanitize"]}`, wsNow.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	want = strings.Replace(want, `"ai_session_id": "ai-session-r2-uvw456"
    }
  ]`, `"ai_session_id": "ai-session-r2-uvw456"
    },
    {
      "id": "bc-002",
      "timestamp": "2025-01-26T10:09:00Z",
      "message": {
        "finding": "Y <validates>",
        "functions": [
          "validate",
          "sanitize"
        ]
      },
      "ai_session_id": "ai-session-r2-uvw456"
    }
  ]`, 1)
	if s := readRel(t, r, childPath); s != want {
		t.Fatalf("got:\n%s\nwant:\n%s", s, want)
	}
	ws, _ := ParseWorkSession(childPath, []byte(want))
	if len(ws.Breadcrumbs) != 2 || ws.Breadcrumbs[1].Text != "Y <validates>" {
		t.Errorf("read back: %+v", ws.Breadcrumbs)
	}
	l, err := ListBreadcrumbs(r, "wsession-subtask-def456")
	if err != nil || len(l.Raw) != 2 || !strings.Contains(string(l.Raw[0]), `"bc-001"`) {
		t.Errorf("list: %+v %v", l, err)
	}
	if _, err := ListBreadcrumbs(r, "wsession-parent-abc123"); err == nil {
		t.Error("list with the wrong cookie: want an error")
	}
}

func TestAddBreadcrumbLayouts(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{
			"compact, no breadcrumbs member",
			`{"id":"w1","status":"active","ai_session_id":"a1"}`,
			`{"id":"w1","status":"active","ai_session_id":"a1","breadcrumbs":[{"id":"bc-001","timestamp":"2025-01-26T10:08:00Z","message":"hi","ai_session_id":"a1"}]}`,
		},
		{
			"tabs, existing one-line elements, custom ids",
			"{\n\t\"id\": \"w1\",\n\t\"status\": \"active\",\n\t\"breadcrumbs\": [\n\t\t{\"id\": \"bc-007\", \"message\": \"old\"}\n\t]\n}\n",
			"{\n\t\"id\": \"w1\",\n\t\"status\": \"active\",\n\t\"breadcrumbs\": [\n\t\t{\"id\": \"bc-007\", \"message\": \"old\"},\n\t\t{\"id\": \"bc-008\", \"timestamp\": \"2025-01-26T10:08:00Z\", \"message\": \"hi\"}\n\t]\n}\n",
		},
		{
			"wrapped, null breadcrumbs, CRLF",
			"{\r\n  \"work_session\": {\r\n    \"id\": \"w1\",\r\n    \"status\": \"active\",\r\n    \"breadcrumbs\": null\r\n  }\r\n}\r\n",
			"{\r\n  \"work_session\": {\r\n    \"id\": \"w1\",\r\n    \"status\": \"active\",\r\n    \"breadcrumbs\": [\r\n      {\r\n        \"id\": \"bc-001\",\r\n        \"timestamp\": \"2025-01-26T10:08:00Z\",\r\n        \"message\": \"hi\"\r\n      }\r\n    ]\r\n  }\r\n}\r\n",
		},
		{
			"multi-line object, no breadcrumbs member",
			"{\n    \"id\": \"w1\",\n    \"status\": \"active\"\n}",
			"{\n    \"id\": \"w1\",\n    \"status\": \"active\",\n    \"breadcrumbs\": [\n        {\n            \"id\": \"bc-001\",\n            \"timestamp\": \"2025-01-26T10:08:00Z\",\n            \"message\": \"hi\"\n        }\n    ]\n}",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := "docs/maestro/work_sessions/w1.json"
			r := wsRepo(t, map[string]string{p: tc.in})
			if _, err := AddBreadcrumb(r, "w1", "hi", wsNow); err != nil {
				t.Fatal(err)
			}
			if got := readRel(t, r, p); got != tc.want {
				t.Errorf("got:\n%q\nwant:\n%q", got, tc.want)
			}
		})
	}
	// a breadcrumbs member that is not a list: refused, nothing written
	p := "docs/maestro/work_sessions/w1.json"
	in := `{"id": "w1", "status": "active", "breadcrumbs": "oops"}`
	r := wsRepo(t, map[string]string{p: in})
	_, err := AddBreadcrumb(r, "w1", "hi", wsNow)
	var we *WorkSessionError
	if !errors.As(err, &we) || readRel(t, r, p) != in {
		t.Errorf("err = %v", err)
	}
}

func TestAddBreadcrumbConcurrent(t *testing.T) {
	r := wsRepo(t, map[string]string{childPath: childJSON})
	var wg sync.WaitGroup
	const n = 12
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, err := AddBreadcrumb(r, "wsession-subtask-def456", fmt.Sprintf("note %d", i), wsNow)
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ws, _ := ParseWorkSession(childPath, []byte(readRel(t, r, childPath)))
	seen := map[string]bool{}
	for _, b := range ws.Breadcrumbs {
		seen[b.ID] = true
	}
	if len(ws.Breadcrumbs) != n || len(seen) != n {
		t.Fatalf("%d breadcrumbs, %d ids", len(ws.Breadcrumbs), len(seen))
	}
}

func TestCloseWorkSession(t *testing.T) {
	r := wsRepo(t, map[string]string{parentPath: parentJSON, childPath: childJSON})
	closedAt := wsNow.Add(5 * time.Minute)
	if _, err := CloseWorkSession(r, "wsession-parent-abc123", "done", closedAt); err == nil {
		t.Fatal("the parent is not the active session: want an error")
	}
	if _, err := CloseWorkSession(r, "wsession-subtask-def456", "  ", closedAt); err == nil {
		t.Fatal("empty summary: want an error")
	}
	if readRel(t, r, parentPath) != parentJSON || readRel(t, r, childPath) != childJSON {
		t.Fatal("a rejected call wrote")
	}
	got, err := CloseWorkSession(r, "wsession-subtask-def456", "Investigated component Y: provides validate, sanitize, transform functions", closedAt)
	if err != nil {
		t.Fatal(err)
	}
	if got.Parent != "wsession-parent-abc123" || got.ParentPath != parentPath || got.ClosedAt != "2025-01-26T10:13:00Z" {
		t.Errorf("%+v", got)
	}
	wantParent := strings.Replace(parentJSON, `"subtasks": []`, `"subtasks": [
    {
      "wsession_id": "wsession-subtask-def456",
      "task_id": "task-002",
      "summary": "Investigated component Y: provides validate, sanitize, transform functions",
      "status": "completed",
      "closed_at": "2025-01-26T10:13:00Z"
    }
  ]`, 1)
	if s := readRel(t, r, parentPath); s != wantParent {
		t.Fatalf("parent:\n%s", s)
	}
	wantChild := strings.Replace(childJSON, `"status": "active"`, `"status": "closed"`, 1)
	wantChild = strings.Replace(wantChild, `"breadcrumbs": []`, `"breadcrumbs": [],
  "closed_at": "2025-01-26T10:13:00Z"`, 1)
	if s := readRel(t, r, childPath); s != wantChild {
		t.Fatalf("child:\n%s", s)
	}
	// now the parent is active, and the subtask's cookie is refused
	_, err = AddBreadcrumb(r, "wsession-subtask-def456", "Implemented feature X", wsNow)
	if err == nil || !strings.Contains(err.Error(), "expected wsession-parent-abc123 (wsession-subtask-def456 is closed)") {
		t.Errorf("err = %v", err)
	}
	// the resume of the parent sees the summary
	cs, _ := WorkSessionSource.Scan(r)
	for _, c := range cs {
		if c.Key == "wsession-parent-abc123" {
			sums, _ := c.Context[WorkSessionCtxSummaries].([]any)
			if len(sums) != 1 || !strings.Contains(fmt.Sprint(sums[0]), "validate, sanitize") {
				t.Errorf("summaries: %v", sums)
			}
		}
	}
}

func TestCloseWorkSessionReplacesEntry(t *testing.T) {
	parent := strings.Replace(parentJSON, `"subtasks": []`, `"subtasks": [
    {"wsession_id": "wsession-subtask-def456", "title": "Investigate Y", "status": "in_progress"},
    "wsession-other"
  ]`, 1)
	r := wsRepo(t, map[string]string{parentPath: parent, childPath: childJSON})
	if _, err := CloseWorkSession(r, "wsession-subtask-def456", "Y done", wsNow); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(parent, `{"wsession_id": "wsession-subtask-def456", "title": "Investigate Y", "status": "in_progress"}`,
		`{"wsession_id": "wsession-subtask-def456", "title": "Investigate Y", "status": "completed", "task_id": "task-002", "summary": "Y done", "closed_at": "2025-01-26T10:08:00Z"}`, 1)
	if s := readRel(t, r, parentPath); s != want {
		t.Fatalf("got:\n%s\nwant:\n%s", s, want)
	}
}

func TestCloseWorkSessionRollsBackParent(t *testing.T) {
	r := wsRepo(t, map[string]string{parentPath: parentJSON, childPath: childJSON})
	writes := 0
	atomicfile.Failpoint = func(step string) error {
		if step == "write" {
			writes++
			if writes == 2 {
				return errors.New("disk full")
			}
		}
		return nil
	}
	defer func() { atomicfile.Failpoint = nil }()
	if _, err := CloseWorkSession(r, "wsession-subtask-def456", "Y done", wsNow); err == nil {
		t.Fatal("want an error")
	}
	if readRel(t, r, parentPath) != parentJSON || readRel(t, r, childPath) != childJSON {
		t.Fatal("not rolled back")
	}
}

func TestCloseWorkSessionParentMissing(t *testing.T) {
	r := wsRepo(t, map[string]string{childPath: childJSON})
	_, err := CloseWorkSession(r, "wsession-subtask-def456", "Y done", wsNow)
	var we *WorkSessionError
	if !errors.As(err, &we) || readRel(t, r, childPath) != childJSON {
		t.Fatalf("err = %v", err)
	}
}

func TestCloseTopLevelSession(t *testing.T) {
	r := wsRepo(t, map[string]string{parentPath: parentJSON})
	if _, err := CloseWorkSession(r, "wsession-parent-abc123", "Feature X done", wsNow); err != nil {
		t.Fatal(err)
	}
	ws, _ := ParseWorkSession(parentPath, []byte(readRel(t, r, parentPath)))
	if ws.Status != "closed" || ws.Summary != "Feature X done" || ws.ClosedAt.IsZero() {
		t.Errorf("%+v", ws)
	}
}

func TestRecordAISessionID(t *testing.T) {
	r := wsRepo(t, map[string]string{parentPath: parentJSON})
	before, after, err := RecordAISessionID(r.Root, parentPath, "new-123")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(parentJSON, "ai-session-r1-xyz789", "new-123", 1)
	if string(before) != parentJSON || string(after) != want || readRel(t, r, parentPath) != want {
		t.Fatalf("got:\n%s", after)
	}
	// a file without the member gets ai_session_id
	r2 := wsRepo(t, map[string]string{childPath: `{"id": "w", "status": "active"}`})
	if _, _, err := RecordAISessionID(r2.Root, childPath, "n1"); err != nil {
		t.Fatal(err)
	}
	if got := readRel(t, r2, childPath); got != `{"id": "w", "status": "active", "ai_session_id": "n1"}` {
		t.Errorf("got %s", got)
	}
	if _, _, err := RecordAISessionID(r2.Root, "../x.json", "n1"); err == nil {
		t.Error("outside the root: want an error")
	}
}
