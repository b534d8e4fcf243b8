package resumeflow

import (
	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// DryRun is what decides a dry run's exit code: the evaluated run and the
// terminal situation it would meet.
type DryRun struct {
	CanPrompt     bool       // stdin and stderr are terminals
	NamedWorkflow bool       // a WORKFLOW argument was given
	Resumable     int        // how many workflows could be resumed
	Mode          modes.Mode // the mode in force
	Decision      string     // the plan's decision
	Approve       bool       // --approve
	Situation     modes.Situation
	Code          exitcode.Code // the code the evaluation gave
}

// DryRunCode is the exit code of a dry run: the code the real run would exit
// with in the same mode and terminal situation. Where the real run would ask
// on a terminal, the answer decides, and the dry run exits 0; without a
// terminal the real run exits 19 unless a flag answers.
func DryRunCode(d DryRun) exitcode.Code {
	if !d.CanPrompt && !d.NamedWorkflow && d.Resumable > 1 && d.Mode != modes.ModeAutopilot {
		return exitcode.NoTTY // the real run would ask which workflow
	}
	switch d.Decision {
	case modes.DecisionAsk:
		switch {
		case d.CanPrompt:
			return exitcode.OK
		case d.Mode == modes.ModePreflight:
			return exitcode.NoTTY // pre-flight without --approve needs a terminal
		case d.Approve && !onlyConflicts(d.Situation):
			return exitcode.OK // --approve answers interactive's "yes"
		}
		return exitcode.NoTTY
	case modes.DecisionHalt:
		if d.Mode == modes.ModeAutopilot && d.CanPrompt && d.Code == exitcode.Cannot && d.Situation.Conflicts {
			return exitcode.OK // the real run switches to interactive and asks
		}
	}
	return d.Code
}

// onlyConflicts reports whether the situation's only blocking findings are
// conflicts that --force (or "resume anyway") would override.
func onlyConflicts(s modes.Situation) bool {
	if !s.Conflicts || s.Force {
		return false
	}
	for _, f := range s.Blocking {
		if f.Check != workflow.CheckConflict {
			return false
		}
	}
	return true
}
