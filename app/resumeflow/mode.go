package resumeflow

import (
	"fmt"

	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// The mode a resume runs in is decided in this order: --mode, then
// ORCHESTRATE_MODE and resume.mode (the command layer reads those), then —
// when none is given — the rules below, from the state files
// (DESIGN §5): RunMode before a workflow is selected, SelectedMode once it
// is. They are the one place the state files' modes are read.

// StateMode is the mode a workflow was started in, as its state file
// records it: a name orchestrate does not know is no mode to run in, so
// the default (interactive) asks; why is returned for --log-level debug.
func StateMode(recorded, statePath string) (m modes.Mode, why string) {
	m, err := modes.ParseMode(recorded)
	if err != nil {
		return modes.ModeInteractive, fmt.Sprintf("mode: in %s: %q is not a mode (%s): interactive instead", statePath, recorded, config.ModeNames)
	}
	return m, ""
}

// RunMode is the mode of a run that names no workflow and was given none:
// autopilot when every interrupted workflow was started in autopilot (the
// most recent is taken, no list, no question — a state recorded as
// autopilot is never resumed after a pick list), else "" (decided once a
// workflow is selected, SelectedMode).
func RunMode(cands []workflow.Candidate) modes.Mode {
	if len(cands) == 0 {
		return ""
	}
	for _, c := range cands {
		if m, _ := StateMode(c.Mode, c.Source.Path); m != modes.ModeAutopilot {
			return ""
		}
	}
	return modes.ModeAutopilot
}

// SelectedMode is the mode of a run given none, once c is selected: the
// mode c was started in (a bad one: interactive, why says so). A
// workflow a person chose at a pick list (chosen) is never resumed in
// autopilot, which asks nothing and would hand off unconfirmed: it is
// interactive instead, and downgraded says so.
func SelectedMode(c workflow.Candidate, chosen bool) (m modes.Mode, why string, downgraded bool) {
	m, why = StateMode(c.Mode, c.Source.Path)
	if chosen && m == modes.ModeAutopilot {
		return modes.ModeInteractive, why, true
	}
	return m, why, false
}
