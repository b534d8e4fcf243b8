package cli

import (
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// dryRunCode is the exit code of a dry run: the code the real run would
// exit with in the same mode and terminal situation (act and ask). Where
// the real run would ask on a terminal, the answer decides, and the dry run
// exits 0; without a terminal the real run exits 19 unless a flag answers.
func (a *app) dryRunCode(r *resumeRun) int {
	canPrompt := a.sys.IO.CanPrompt()
	if !canPrompt && r.opts.Workflow == "" && len(r.all) > 1 && r.mode != modes.ModeAutopilot {
		return ExitNoTTY // the real run would ask which workflow
	}
	switch r.plan.Decision {
	case modes.DecisionAsk:
		switch {
		case canPrompt:
			return ExitOK
		case r.mode == modes.ModePreflight:
			return ExitNoTTY // pre-flight without --approve needs a terminal
		case r.opts.Approve && !forceable(r):
			return ExitOK // --approve answers interactive's "yes"
		}
		return ExitNoTTY
	case modes.DecisionHalt:
		if r.mode == modes.ModeAutopilot && canPrompt && r.code == ExitCannot && r.situation.Conflicts {
			return ExitOK // the real run switches to interactive and asks
		}
	}
	return r.code
}

// forceable reports whether the run's only blocking findings are
// conflicts that --force (or "resume anyway") would override.
func forceable(r *resumeRun) bool {
	if !r.situation.Conflicts || r.situation.Force {
		return false
	}
	for _, f := range r.situation.Blocking {
		if f.Check != workflow.CheckConflict {
			return false
		}
	}
	return true
}
