package resumeflow

import (
	"testing"

	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/planfile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func TestLockDigest(t *testing.T) {
	owner := handoff.LockInfo{PID: 42, Host: "ci-7"}
	tests := []struct {
		st   handoff.LockState
		want string
	}{
		{handoff.LockState{}, planfile.LockFree},
		{handoff.LockState{Exists: true, Live: true, Owner: owner}, "held by pid 42 on ci-7"},
		{handoff.LockState{Exists: true, Stale: true, Owner: owner}, "stale (pid 42 on ci-7)"},
		{handoff.LockState{Exists: true, Live: true, Reason: "unparseable"}, "held by an untrusted lock file (unparseable)"},
	}
	for _, tt := range tests {
		if got := LockDigest(tt.st); got != tt.want {
			t.Errorf("LockDigest(%+v) = %q, want %q", tt.st, got, tt.want)
		}
	}
}

func TestPlannedWorkflow(t *testing.T) {
	cands := []workflow.Candidate{{ID: "workflow:sdc-1"}, {ID: "workflow:sdc-10"}}
	if c := PlannedWorkflow(cands, "workflow:sdc-1"); c == nil || c.ID != "workflow:sdc-1" {
		t.Fatalf("PlannedWorkflow exact = %v", c)
	}
	if c := PlannedWorkflow(cands, "sdc-1"); c != nil {
		t.Fatalf("PlannedWorkflow matched a prefix: %v", c.ID)
	}
}
