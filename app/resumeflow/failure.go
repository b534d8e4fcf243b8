package resumeflow

import (
	"errors"

	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/handoff/agent"
	"github.com/orchestrate-dev/orchestrate/handoff/command"
	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/internal/sharedlife"
	"github.com/orchestrate-dev/orchestrate/modes"
)

// Failure is a failed handoff as the command layer shows it: the exit code
// and --json outcome and reason, what to do next, and the orchestrator
// command's own result when it was the command that failed.
type Failure struct {
	Code    int
	Outcome string
	Reason  string // --json "reason", "" when none applies
	Action  string
	// Command is set when the orchestrator command failed (exit 18), or
	// was stopped because the shared lock was lost (exit 16).
	Command *CommandResult
	// Holder is the lock that took this runner's shared lock over
	// (reason lease_lost), when it could be read.
	Holder *sharedlife.Lock
}

// CommandResult is how the orchestrator command ended (--json
// "command_result").
type CommandResult struct {
	Reason     string // command.Reason*
	ExitStatus int
	Signal     string
}

// FailureOf maps the error of handoff.Execute for workflow id to its
// Failure.
func FailureOf(err error, id string) Failure {
	var locked *handoff.LockedError
	var stale *handoff.StaleLockError
	var cmdErr *command.Error
	var valErr *command.ValueError
	var presetErr *agent.ValueError
	f := Failure{Code: int(exitcode.Error), Outcome: "error",
		Action: "Check the error above, fix it, and run orchestrate resume again."}
	switch {
	case errors.As(err, &locked):
		f.Code, f.Outcome = int(exitcode.Locked), "locked"
		f.Action = "Another orchestrate is resuming this workflow; wait for it, or if it is gone run: orchestrate unlock " + id
	case errors.As(err, &stale):
		// the outcome stays within the documented set; --json "reason" says stale
		f.Code, f.Outcome, f.Reason = int(exitcode.Locked), "locked", ReasonStaleLock
		f.Action = "The lock is stale (its process is gone): run orchestrate unlock " + id + ", or resume with --force to take it over"
	case errors.As(err, &cmdErr):
		// outcome "error" as documented; --json "reason" and "command_result"
		// say it was the orchestrator command, and how it ended
		f.Code, f.Outcome, f.Reason = int(exitcode.Command), "error", ReasonCommandFailed
		reason := cmdErr.Reason
		if reason == command.ReasonFailed && InterruptedStatus(cmdErr.Status) {
			// Ctrl-C at the terminal reaches the command's foreground group,
			// not orchestrate: the command ended by SIGINT or SIGQUIT
			reason = command.ReasonInterrupted
		}
		f.Command = &CommandResult{Reason: reason, ExitStatus: cmdErr.Status, Signal: cmdErr.Signal}
		switch reason {
		case command.ReasonTimeout:
			f.Action = "The orchestrator command ran longer than handoff.timeout and was stopped; the workflow state was rolled back and is still interrupted. Raise handoff.timeout or fix the command, and resume again."
		case command.ReasonInterrupted:
			f.Action = "Interrupted: the orchestrator command was stopped (Ctrl-C or a signal) and the workflow state was rolled back; it is still interrupted. Resume again when ready."
		default:
			f.Action = "The orchestrator command failed; the workflow state was rolled back and is still interrupted. Fix the command (handoff.command) and resume again."
		}
	case errors.As(err, &presetErr):
		f.Code, f.Outcome = int(exitcode.Cannot), "halted"
		f.Action = "A value from the workflow state is not safe for the handoff.agent preset's command line; nothing was changed. Check the state file (its AI session id), or use handoff.command."
	case errors.As(err, &valErr):
		f.Code, f.Outcome = int(exitcode.Cannot), "halted"
		f.Action = "A value from the workflow state is not safe for that spot of handoff.command; nothing was changed. Check the state file, or mark the spot {{unchecked ." + valErr.Field + "}} if the command takes any value there (see README, Handoff)."
	}
	if lf, ok := leaseLostFailure(err, id, f.Command); ok {
		return lf
	}
	return f
}

// SharedGate is what the shared lifecycle (lifecycle.remote) lets a
// handoff do once its lock was asked for (sharedlife.Store.Begin).
type SharedGate int

// The gates of SharedStep.
const (
	// SharedGo: the lock is held; record the dispatch and hand off.
	SharedGo SharedGate = iota
	// SharedSkipHeld: another runner holds a live lease and this autopilot
	// run picked its workflow itself: skip it for the next one.
	SharedSkipHeld
	// SharedHeld: another runner holds a live lease (exit 16).
	SharedHeld
	// SharedUnusable: the remote could not be used (exit 20).
	SharedUnusable
	// SharedSkipDone: another runner handed it off between the fetch and
	// the lock, and this autopilot run moves on.
	SharedSkipDone
	// SharedAlready: this resume was handed off before (exit 0, nothing to
	// do; --again hands it off again).
	SharedAlready
)

// SharedStep decides the gate of a handoff on the shared lifecycle: begin
// is what Begin returned (h is nil when it failed), again is --again (or a
// re-handoff autopilot allows), movesOn is set for an autopilot run that
// picked its workflow itself (MovesOn).
func SharedStep(begin error, h *sharedlife.Handoff, again, movesOn bool) SharedGate {
	var held *sharedlife.HeldError
	switch {
	case errors.As(begin, &held) && movesOn:
		return SharedSkipHeld
	case errors.As(begin, &held):
		return SharedHeld
	case begin != nil:
		return SharedUnusable
	}
	if h != nil && h.Already() && !again {
		if movesOn {
			return SharedSkipDone
		}
		return SharedAlready
	}
	return SharedGo
}

// MovesOn reports whether a resume picked its workflow itself — autopilot,
// no WORKFLOW, no saved plan — so that one taken on the shared lifecycle is
// skipped for the next, as a live local handoff is. passed counts the
// workflows already passed over (a bound on the retries).
func MovesOn(named, savedPlan bool, mode modes.Mode, passed int) bool {
	return !named && !savedPlan && mode == modes.ModeAutopilot && passed < 1000
}
