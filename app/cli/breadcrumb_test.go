package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
)

const (
	wsParentFile = "docs/maestro/work_sessions/wsession-parent-abc123.json"
	wsChildFile  = "docs/maestro/work_sessions/wsession-subtask-def456.json"
)

const wsParent = `{
  "id": "wsession-parent-abc123",
  "task_id": "task-001",
  "ai_session_id": "ai-session-r1-xyz789",
  "status": "active",
  "created_at": "2026-11-20T10:00:00Z",
  "breadcrumbs": [],
  "subtasks": []
}
`

const wsChild = `{
  "id": "wsession-subtask-def456",
  "task_id": "task-002",
  "parent_wsession_id": "wsession-parent-abc123",
  "ai_session_id": "ai-session-r2-uvw456",
  "status": "active",
  "created_at": "2026-11-20T10:05:00Z",
  "breadcrumbs": []
}
`

func readFile(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBreadcrumbCommands(t *testing.T) {
	dir := testRepo(t, map[string]string{wsParentFile: wsParent, wsChildFile: wsChild})

	r := run(t, dir, nil, false, "breadcrumb", "add", "--cookie", "wsession-parent-abc123", "--message", "Implemented X")
	if r.code != cmdutil.ExitUsage || !strings.Contains(r.err.String(), "cookie wsession-parent-abc123 does not name the active work session; expected wsession-subtask-def456") {
		t.Fatalf("exit %d: %s", r.code, r.err.String())
	}
	if readFile(t, dir, wsParentFile) != wsParent || readFile(t, dir, wsChildFile) != wsChild {
		t.Fatal("a rejected call wrote")
	}
	for _, msg := range []string{"", "[1, 2]", "{bad", "7"} {
		r = run(t, dir, nil, false, "breadcrumb", "add", "--cookie", "wsession-subtask-def456", "--message", msg)
		if r.code != cmdutil.ExitUsage {
			t.Errorf("message %q: exit %d", msg, r.code)
		}
	}
	r = run(t, dir, nil, false, "breadcrumb", "add", "--cookie", "wsession-subtask-def456")
	if r.code != cmdutil.ExitUsage || !strings.Contains(r.err.String(), "the message is empty") {
		t.Errorf("no --message: exit %d %s", r.code, r.err.String())
	}
	r = run(t, dir, nil, false, "breadcrumb", "add", "--message", "x")
	if r.code != cmdutil.ExitUsage || !strings.Contains(r.err.String(), "no --cookie given; expected wsession-subtask-def456") {
		t.Errorf("no --cookie: exit %d %s", r.code, r.err.String())
	}
	if readFile(t, dir, wsChildFile) != wsChild {
		t.Fatal("a rejected call wrote")
	}

	r = run(t, dir, nil, false, "breadcrumb", "add", "--cookie", "wsession-subtask-def456", "--message", "Found 3 main functions")
	if r.code != 0 || r.out.String() != "Breadcrumb bc-001 added to wsession-subtask-def456.\n" {
		t.Fatalf("exit %d: %s %s", r.code, r.out.String(), r.err.String())
	}
	r = run(t, dir, nil, false, "breadcrumb", "add", "--cookie", "wsession-subtask-def456", "--message", `{"finding": "Y validates"}`, "--json")
	if r.code != 0 || !strings.Contains(r.out.String(), `"id": "bc-002"`) || !strings.Contains(r.out.String(), `"finding": "Y validates"`) {
		t.Fatalf("exit %d: %s %s", r.code, r.out.String(), r.err.String())
	}

	r = run(t, dir, nil, false, "breadcrumb", "list", "--cookie", "wsession-subtask-def456")
	want := "bc-001  2026-11-20T12:00:00Z  Found 3 main functions\nbc-002  2026-11-20T12:00:00Z  {\"finding\":\"Y validates\"}\n"
	if r.code != 0 || r.out.String() != want {
		t.Errorf("list: exit %d\n%s", r.code, r.out.String())
	}
	r = run(t, dir, nil, false, "breadcrumb", "list", "--cookie", "wsession-subtask-def456", "--json")
	var items []map[string]any
	if err := json.Unmarshal(r.out.Bytes(), &items); err != nil || len(items) != 2 || items[0]["ai_session_id"] != "ai-session-r2-uvw456" {
		t.Errorf("list --json: %v %s", err, r.out.String())
	}
	r = run(t, dir, nil, false, "breadcrumb", "list", "--cookie", "wsession-parent-abc123")
	if r.code != cmdutil.ExitUsage {
		t.Errorf("list with the wrong cookie: exit %d", r.code)
	}
	r = run(t, dir, nil, false, "breadcrumb", "list", "--cookie", "wsession-parent-abc123", "extra")
	if r.code != cmdutil.ExitUsage {
		t.Errorf("extra argument: exit %d", r.code)
	}
}

func TestBreadcrumbListEmpty(t *testing.T) {
	dir := testRepo(t, map[string]string{wsParentFile: wsParent})
	r := run(t, dir, nil, false, "breadcrumb", "list", "--cookie", "wsession-parent-abc123")
	if r.code != 0 || r.out.String() != "No breadcrumbs in wsession-parent-abc123.\n" {
		t.Errorf("exit %d: %q", r.code, r.out.String())
	}
	r = run(t, dir, nil, false, "breadcrumb", "list", "--cookie", "wsession-parent-abc123", "--json")
	if r.code != 0 || r.out.String() != "[]\n" {
		t.Errorf("exit %d: %q", r.code, r.out.String())
	}
}

func TestBreadcrumbNoSessions(t *testing.T) {
	dir := testRepo(t, map[string]string{"README.md": "x"})
	r := run(t, dir, nil, false, "breadcrumb", "add", "--cookie", "w", "--message", "x")
	if r.code != cmdutil.ExitUsage || !strings.Contains(r.err.String(), "no work session is active") {
		t.Errorf("exit %d: %s", r.code, r.err.String())
	}
}
