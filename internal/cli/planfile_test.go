package cli

import (
	"errors"
	"testing"

	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/planfile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func TestCheckPlanFlags(t *testing.T) {
	tests := []struct {
		name  string
		opts  ResumeOptions
		usage bool
	}{
		{"nothing", ResumeOptions{}, false},
		{"plan-out with dry-run", ResumeOptions{PlanOut: "p", DryRun: true}, false},
		{"plan-out without dry-run", ResumeOptions{PlanOut: "p"}, true},
		{"plan alone", ResumeOptions{Plan: "p"}, false},
		{"plan with dry-run", ResumeOptions{Plan: "p", DryRun: true}, true},
		{"plan with workflow", ResumeOptions{Plan: "p", Workflow: "sdc-1"}, true},
		{"plan with plan-out", ResumeOptions{Plan: "p", PlanOut: "q", DryRun: true}, true},
		{"plan with mode", ResumeOptions{Plan: "p", Mode: "autopilot"}, true},
		{"plan with approve", ResumeOptions{Plan: "p", Approve: true}, true},
		{"plan with force", ResumeOptions{Plan: "p", Force: true}, true},
		{"plan with from-phase", ResumeOptions{Plan: "p", FromPhase: "review"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkPlanFlags(&tt.opts)
			var ue *usageError
			if got := errors.As(err, &ue); got != tt.usage || (err != nil) != tt.usage {
				t.Fatalf("checkPlanFlags = %v, want usage error %v", err, tt.usage)
			}
		})
	}
}

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
		if got := lockDigest(tt.st); got != tt.want {
			t.Errorf("lockDigest(%+v) = %q, want %q", tt.st, got, tt.want)
		}
	}
}

func TestPlannedWorkflow(t *testing.T) {
	cands := []workflow.Candidate{{ID: "workflow:sdc-1"}, {ID: "workflow:sdc-10"}}
	if c := plannedWorkflow(cands, "workflow:sdc-1"); c == nil || c.ID != "workflow:sdc-1" {
		t.Fatalf("plannedWorkflow exact = %v", c)
	}
	if c := plannedWorkflow(cands, "sdc-1"); c != nil {
		t.Fatalf("plannedWorkflow matched a prefix: %v", c.ID)
	}
}
