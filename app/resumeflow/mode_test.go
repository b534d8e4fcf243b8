package resumeflow

import (
	"testing"

	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// A bad mode in a state file is no error: interactive, with the reason
// naming the file for --log-level debug.
func TestStateMode(t *testing.T) {
	for _, tc := range []struct {
		recorded string
		want     modes.Mode
		why      string
	}{
		{"autopilot", modes.ModeAutopilot, ""},
		{"preflight", modes.ModePreflight, ""},
		{"", modes.ModeInteractive, ""},
		{"bogus", modes.ModeInteractive, `mode: in .orchestrate/workflows/x.yaml: "bogus" is not a mode (autopilot, interactive, preflight): interactive instead`},
	} {
		m, why := StateMode(tc.recorded, ".orchestrate/workflows/x.yaml")
		if m != tc.want || why != tc.why {
			t.Errorf("StateMode(%q) = %q, %q; want %q, %q", tc.recorded, m, why, tc.want, tc.why)
		}
	}
}

// A run given no mode and naming no workflow is autopilot's only when every
// interrupted workflow was started in autopilot; a workflow chosen from the
// pick list is never resumed in autopilot.
func TestRunAndSelectedMode(t *testing.T) {
	c := func(mode string) workflow.Candidate {
		return workflow.Candidate{ID: "workflow:" + mode, Mode: mode, Source: workflow.SourceRef{Path: ".orchestrate/workflows/" + mode + ".yaml"}}
	}
	for _, tc := range []struct {
		name  string
		cands []workflow.Candidate
		want  modes.Mode
	}{
		{"none", nil, ""},
		{"one autopilot", []workflow.Candidate{c("autopilot")}, modes.ModeAutopilot},
		{"all autopilot", []workflow.Candidate{c("autopilot"), c("autopilot")}, modes.ModeAutopilot},
		{"one interactive among them", []workflow.Candidate{c("autopilot"), c("interactive")}, ""},
		{"one unrecorded", []workflow.Candidate{c("autopilot"), c("")}, ""},
		{"one bad", []workflow.Candidate{c("bogus"), c("autopilot")}, ""},
	} {
		if got := RunMode(tc.cands); got != tc.want {
			t.Errorf("%s: RunMode = %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		mode       string
		chosen     bool
		want       modes.Mode
		downgraded bool
		why        bool
	}{
		{"autopilot", false, modes.ModeAutopilot, false, false},
		{"autopilot", true, modes.ModeInteractive, true, false},
		{"preflight", true, modes.ModePreflight, false, false},
		{"interactive", true, modes.ModeInteractive, false, false},
		{"bogus", false, modes.ModeInteractive, false, true},
		{"bogus", true, modes.ModeInteractive, false, true},
	} {
		m, why, down := SelectedMode(c(tc.mode), tc.chosen)
		if m != tc.want || down != tc.downgraded || (why != "") != tc.why {
			t.Errorf("SelectedMode(%q, chosen=%v) = %q, %q, %v; want %q, why %v, downgraded %v",
				tc.mode, tc.chosen, m, why, down, tc.want, tc.why, tc.downgraded)
		}
	}
}
