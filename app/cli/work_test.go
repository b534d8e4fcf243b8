package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
)

func TestWorkDone(t *testing.T) {
	dir := testRepo(t, map[string]string{wsParentFile: wsParent, wsChildFile: wsChild})

	r := run(t, dir, nil, false, "work", "done", "--cookie", "wsession-parent-abc123", "--summary", "x")
	if r.code != cmdutil.ExitUsage || !strings.Contains(r.err.String(), "expected wsession-subtask-def456") {
		t.Fatalf("exit %d: %s", r.code, r.err.String())
	}
	r = run(t, dir, nil, false, "work", "done", "--cookie", "wsession-subtask-def456")
	if r.code != cmdutil.ExitUsage || !strings.Contains(r.err.String(), "the summary is empty") {
		t.Fatalf("exit %d: %s", r.code, r.err.String())
	}
	if readFile(t, dir, wsParentFile) != wsParent || readFile(t, dir, wsChildFile) != wsChild {
		t.Fatal("a rejected call wrote")
	}

	r = run(t, dir, nil, false, "work", "done", "--cookie", "wsession-subtask-def456", "--summary", "Component Y validates input")
	if r.code != 0 || r.out.String() != "Closed work session wsession-subtask-def456 (task task-002); summary sent to the parent work session wsession-parent-abc123.\n" {
		t.Fatalf("exit %d: %s %s", r.code, r.out.String(), r.err.String())
	}
	var parent struct {
		Status   string           `json:"status"`
		Subtasks []map[string]any `json:"subtasks"`
	}
	if err := json.Unmarshal([]byte(readFile(t, dir, wsParentFile)), &parent); err != nil {
		t.Fatal(err)
	}
	if parent.Status != "active" || len(parent.Subtasks) != 1 || parent.Subtasks[0]["summary"] != "Component Y validates input" ||
		parent.Subtasks[0]["status"] != "completed" || parent.Subtasks[0]["closed_at"] != "2026-11-20T12:00:00Z" {
		t.Errorf("parent: %+v", parent)
	}
	var child map[string]any
	json.Unmarshal([]byte(readFile(t, dir, wsChildFile)), &child)
	if child["status"] != "closed" || child["closed_at"] != "2026-11-20T12:00:00Z" {
		t.Errorf("child: %v", child)
	}

	// the parent is active now; closing it (no parent of its own) keeps the summary in it
	r = run(t, dir, nil, false, "work", "done", "--cookie", "wsession-parent-abc123", "--summary", "Feature X done", "--json")
	if r.code != 0 || !strings.Contains(r.out.String(), `"parent": ""`) {
		t.Fatalf("exit %d: %s %s", r.code, r.out.String(), r.err.String())
	}
	if s := readFile(t, dir, wsParentFile); !strings.Contains(s, `"summary": "Feature X done"`) || !strings.Contains(s, `"status": "closed"`) {
		t.Errorf("parent:\n%s", s)
	}
}
