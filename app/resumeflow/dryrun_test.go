package resumeflow

import (
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func TestDryRunCode(t *testing.T) {
	conflict := modes.Situation{Conflicts: true, Blocking: []workflow.Finding{{Check: workflow.CheckConflict, Severity: workflow.Blocking}}}
	tests := []struct {
		name string
		in   DryRun
		want exitcode.Code
	}{
		{"several, no terminal, no name", DryRun{Resumable: 2, Mode: modes.ModeInteractive, Decision: modes.DecisionAsk}, exitcode.NoTTY},
		{"several, autopilot decides alone", DryRun{Resumable: 2, Mode: modes.ModeAutopilot, Decision: modes.DecisionResume}, exitcode.OK},
		{"ask on a terminal", DryRun{CanPrompt: true, Resumable: 1, Mode: modes.ModeInteractive, Decision: modes.DecisionAsk}, exitcode.OK},
		{"pre-flight without a terminal", DryRun{Resumable: 1, Mode: modes.ModePreflight, Decision: modes.DecisionAsk}, exitcode.NoTTY},
		{"interactive --approve answers yes", DryRun{Resumable: 1, Mode: modes.ModeInteractive, Decision: modes.DecisionAsk, Approve: true}, exitcode.OK},
		{"--approve does not force conflicts", DryRun{Resumable: 1, Mode: modes.ModeInteractive, Decision: modes.DecisionAsk, Approve: true, Situation: conflict}, exitcode.NoTTY},
		{"autopilot halt on conflicts, terminal: asks", DryRun{CanPrompt: true, Resumable: 1, Mode: modes.ModeAutopilot, Decision: modes.DecisionHalt, Situation: conflict, Code: exitcode.Cannot}, exitcode.OK},
		{"autopilot halt without a terminal", DryRun{Resumable: 1, Mode: modes.ModeAutopilot, Decision: modes.DecisionHalt, Situation: conflict, Code: exitcode.Cannot}, exitcode.Cannot},
		{"terminal state", DryRun{Resumable: 0, Mode: modes.ModeInteractive, Decision: modes.DecisionHalt, Code: exitcode.Terminal}, exitcode.Terminal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DryRunCode(tt.in); got != tt.want {
				t.Errorf("DryRunCode = %d, want %d", got, tt.want)
			}
		})
	}
}
