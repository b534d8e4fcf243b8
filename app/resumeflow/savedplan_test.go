package resumeflow

import (
	"strings"
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

func TestNextPlanCommands(t *testing.T) {
	tests := []struct {
		name  string
		saved planfile.File
		want  string
	}{
		{"interactive", planfile.File{WorkflowID: "workflow:sdc-4.2", Mode: "interactive"},
			"orchestrate resume workflow:sdc-4.2 --dry-run --mode interactive --approve --plan-out plans/p.json"},
		{"forced restart in autopilot", planfile.File{WorkflowID: "sdc:4.2", Mode: "autopilot", Forced: true, Restart: true},
			"orchestrate resume sdc:4.2 --dry-run --mode autopilot --force --restart --approve --plan-out plans/p.json"},
		{"from a phase", planfile.File{WorkflowID: "sdc:4.2", Mode: "preflight", FromPhase: "validate"},
			"orchestrate resume sdc:4.2 --dry-run --mode preflight --from-phase validate --approve --plan-out plans/p.json"},
		{"hostile id is one quoted word", planfile.File{WorkflowID: "x; rm -rf ~ 'q'", Mode: "interactive"},
			`orchestrate resume 'x; rm -rf ~ '\''q'\''' --dry-run --mode interactive --approve --plan-out plans/p.json`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NextPlanCommands("plans/p.json", tt.saved)
			if len(got) != 2 || got[0] != tt.want || got[1] != "orchestrate resume --plan plans/p.json" {
				t.Fatalf("NextPlanCommands = %q\nwant [%q, apply]", got, tt.want)
			}
		})
	}
}

func TestRefusedPlanLines(t *testing.T) {
	e := &RefusedPlan{Path: "p.json", Changes: []planfile.Change{{Kind: planfile.KindHead, Message: "HEAD moved from a to b"}},
		Next: NextPlanCommands("p.json", planfile.File{WorkflowID: "sdc:1", Mode: "interactive"})}
	lines := e.MessageLines()
	want := []string{
		"cannot apply the plan p.json: the repository moved since it was made:",
		"  - HEAD moved from a to b",
		"Review the dry run, write a new approved plan, then apply it:",
		"  orchestrate resume sdc:1 --dry-run --mode interactive --approve --plan-out p.json",
		"  orchestrate resume --plan p.json",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") || e.Error() != strings.Join(want, "\n") {
		t.Fatalf("lines:\n%s", strings.Join(lines, "\n"))
	}
}
