package resumeflow

import (
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/rebuild"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func TestNoTerminalFlags(t *testing.T) {
	conflict := workflow.Finding{Check: workflow.CheckConflict, Severity: workflow.Blocking, Code: "story-completed"}
	missing := workflow.Finding{Check: workflow.CheckIntegrity, Severity: workflow.Blocking, Code: "missing"}
	for _, tt := range []struct {
		name string
		sit  modes.Situation
		want string
	}{
		{"clean", modes.Situation{}, "--approve"},
		{"conflicts", modes.Situation{Conflicts: true, Blocking: []workflow.Finding{conflict}}, "--force --approve (resume over the conflicts, confirmed)"},
		{"conflicts forced", modes.Situation{Conflicts: true, Force: true, Blocking: []workflow.Finding{conflict}}, "--approve"},
		{"conflicts and a missing file", modes.Situation{Conflicts: true, Blocking: []workflow.Finding{conflict, missing}}, "--approve"},
	} {
		if got := NoTerminalFlags(tt.sit); got != tt.want {
			t.Errorf("%s: NoTerminalFlags = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestInterruptedStatus(t *testing.T) {
	for status, want := range map[int]bool{130: true, 131: true, 1: false, 143: false, 0: false, -1: false} {
		if got := InterruptedStatus(status); got != want {
			t.Errorf("InterruptedStatus(%d) = %v", status, got)
		}
	}
}

func TestWithoutAutopilotOnly(t *testing.T) {
	fs := []workflow.Finding{
		{Check: rebuild.CheckRebuild, Code: rebuild.CodeRebuiltNeedsConfirmation},
		{Check: rebuild.CheckRebuild, Code: "rebuilt-state"},
		{Check: workflow.CheckConflict, Code: "x"},
	}
	got := WithoutAutopilotOnly(fs)
	if len(got) != 2 || got[0].Code != "rebuilt-state" || got[1].Code != "x" {
		t.Errorf("WithoutAutopilotOnly = %+v", got)
	}
	if WithoutAutopilotOnly(nil) != nil {
		t.Error("nil in, nil out")
	}
}
