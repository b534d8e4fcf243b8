package resumeflow

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/handoff/cleanup"
	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/internal/sharedlife"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/templates"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// The resume state machine. After selection and the first evaluation
// (Select, Evaluate), a resume that is not a dry run moves through these
// states, each decided here and carried out through the Host:
//
//	decide   an autopilot halt a person could decide switches to
//	         interactive on a terminal (and may offer the pick list again)
//	confirm  halt (exit 17 or 15, or the restart/cleanup offer), ask
//	         (interactive's yes / restart / cancel, pre-flight's typed
//	         proceed, or the flag that answers without a terminal), or go on
//	trust    a repository handoff.command must be trusted (Host.RequireTrust)
//	lock     the shared lock and records with lifecycle.remote
//	         (Host.LockShared; SharedStep decides), the local lock inside
//	         handoff.Execute, a stale one taken over after a confirmation
//	handoff  handoff.Execute, again with --again-like consent when this
//	         very resume was handed off before
//	record   the outcome: an End the command layer renders
//
// Nothing here prints: what a person should see is an Event the Host shows.

// State names a state of the resume state machine (for tests, debug logs
// and docs/drafts/flow.md).
type State string

// The states of Flow.Act, in the order a resume moves through them.
const (
	StateDecide  State = "decide"
	StateConfirm State = "confirm"
	StateInstead State = "instead" // a halt a restart or a cleanup could get past
	StateTrust   State = "trust"
	StateLock    State = "lock"
	StateHandoff State = "handoff"
	StateRecord  State = "record"
)

// Facts are what the flow decides on, read from the Host after every step
// that can change them (an evaluation, a choice).
type Facts struct {
	Candidate workflow.Candidate // the selected candidate
	Mode      modes.Mode
	Situation modes.Situation
	Decision  string // the plan's decision (modes.Decision*)
	Reason    string // the plan's reason for it
	Partial   bool   // the plan resumes part of the workflow
	Code      int    // the exit code the decision implies
	RestartOK bool   // a halt a restart from the first phase would get past
	AgeClass  string // the validation's age class ("stale", ...)
	// Candidates is how many resumable candidates there are; Named says a
	// WORKFLOW was given, Chosen that it was picked at a prompt.
	Candidates    int
	Named, Chosen bool
	JSON, Approve bool
	// Forced: the user chose to resume over the conflicts. Restarted: the
	// user chose to restart from the first phase.
	Forced, Restarted bool
	Now               time.Time
}

// stale reports whether the state is stale by its age.
func (f Facts) stale() bool { return f.AgeClass == "stale" }

// End is how a resume ended, for the command layer to render: the --json
// outcome, the exit code and, when Err is set, the message. Quiet ends come
// after the blocks were printed (only the --json document follows); the
// others are rendered in full (finishResume).
type End struct {
	Outcome string
	Code    int
	Err     error
	Quiet   bool
	// Reason is the --json "reason" when one applies (Reason* constants).
	Reason string
}

// Values of --json "reason".
const (
	ReasonAlreadyHandedOff = "already_handed_off"
	ReasonStaleLock        = "stale_lock"
	ReasonCommandFailed    = "command_failed"
	ReasonHeldRemotely     = "held_remotely"
	ReasonSharedUnusable   = "shared_lifecycle_unusable"
)

// quiet is a quiet End.
func quiet(outcome string, code exitcode.Code) End {
	return End{Outcome: outcome, Code: int(code), Quiet: true}
}

// EventKind says what an Event reports.
type EventKind int

// The events of a resume, each shown by the Host where the command layer
// shows it.
const (
	// EvAutopilotSwitched: autopilot halted (Reason) and a terminal is
	// attached: interactive mode takes over.
	EvAutopilotSwitched EventKind = iota + 1
	// EvCancelled: the user cancelled; nothing was changed.
	EvCancelled
	// EvNotApproved: pre-flight's proceed was not typed.
	EvNotApproved
	// EvNoTerminal: a question and no terminal; Flags answer it
	// (Preflight: the pre-flight approval).
	EvNoTerminal
	// EvRestarting: the user chose to restart from the first phase.
	EvRestarting
	// EvCannotRestart: the restart halts on Finding; CleanupHint names the
	// cleanup command (a stale state cleanup may archive).
	EvCannotRestart
	// EvLockLeft: the user declined to take over a stale lock.
	EvLockLeft
	// EvDispatched: handoff.Execute succeeded with Result (recorded for
	// --json; notices that follow a handoff).
	EvDispatched
	// EvTookOverStale: Result took over a stale local lock.
	EvTookOverStale
	// EvHandingOffAgain: the user chose to hand the same resume off again.
	EvHandingOffAgain
	// EvAlreadyHandedOff: this very resume was handed off before (Result).
	EvAlreadyHandedOff
	// EvUnconfirmed: the previous handoff never started; it is handed off
	// again.
	EvUnconfirmed
	// EvHandedOff: the handoff is done (Result): the confirmation.
	EvHandedOff
)

// Event is one thing the flow reports on the way.
type Event struct {
	Kind        EventKind
	ID          string // the workflow
	Reason      string
	Flags       string
	Preflight   bool
	Finding     workflow.Finding
	CleanupHint bool
	Result      handoff.Result
}

// Host is what the flow needs of the command layer: the facts of the run,
// the choices it records, the steps that load, render or run, and where
// events are shown. A Host method that returns an error has ended the run
// (rendered it) unless stated otherwise; the flow returns that error as it is.
type Host interface {
	Facts() Facts
	// SetMode, SetForced and SetRestarted record a choice; the next
	// Evaluate sees it.
	SetMode(modes.Mode)
	SetForced()
	SetRestarted()
	// DropAutopilotOnly drops the selected candidate's autopilot-only
	// findings (WithoutAutopilotOnly): a person decides now.
	DropAutopilotOnly()
	// Evaluate evaluates the selected candidate again (Evaluate) with the
	// choices so far.
	Evaluate() error
	// Choose shows the candidates and asks which to resume
	// (modes.ChooseCandidate); changed is set when another one than the
	// selected one was chosen, and is selected now.
	Choose() (changed bool, err error)
	// Take runs the steps between choosing a candidate and acting on it
	// (rebuild, the lock checks, the evaluation); stop is set when the run
	// ended (its result is err).
	Take() (stop bool, err error)
	// ShowBlocks prints the summary blocks of the run.
	ShowBlocks() error
	// RequireTrust asks for the trust a repository handoff.command needs;
	// an error ends the run.
	RequireTrust() error
	// Cleanup runs `orchestrate cleanup` on the selected workflow.
	Cleanup() error
	// Request is the handoff request of the run (Request); an error (a
	// question about the agent's session that was interrupted) ends the run.
	Request() (handoff.Request, error)
	// LockShared takes the shared lock with lifecycle.remote around req
	// (SharedStep decides what a refusal does); done is set when the run
	// ended there (its result is err). release records how the handoff
	// ended and releases the lock; it is never nil.
	LockShared(req *handoff.Request) (release func(error), done bool, err error)
	// Execute is handoff.Execute.
	Execute(req handoff.Request) (handoff.Result, error)
	// Failed renders a failed handoff (Failure) and ends the run.
	Failed(f Failure, err error) error
	// Notify shows ev.
	Notify(ev Event) error
	// Finish renders the end of the run.
	Finish(e End) error
}

// Flow is the resume state machine (see State) over a Host, asking through
// Prompter when CanPrompt (stdin and stderr are terminals).
type Flow struct {
	Host      Host
	Prompter  modes.Prompter
	CanPrompt bool
	// Trace, when set, is told every state the flow enters.
	Trace func(State)
}

func (fl *Flow) enter(s State) {
	if fl.Trace != nil {
		fl.Trace(s)
	}
}

// cancelled ends a run the user declined or interrupted (exit 10, nothing
// changed); another error ends it as an error.
func (fl *Flow) cancelled(err error) error {
	if Cancel(err) {
		if nerr := fl.Host.Notify(Event{Kind: EvCancelled}); nerr != nil {
			return nerr
		}
		return fl.Host.Finish(End{Outcome: "declined", Code: int(exitcode.Declined)})
	}
	return fl.Host.Finish(End{Outcome: "error", Code: int(exitcode.Error), Err: err})
}

// Cancel reports whether a prompt's error means the user cancelled
// (Ctrl-C, or the cancel option).
func Cancel(err error) bool {
	return errors.Is(err, modes.ErrInterrupted) || errors.Is(err, modes.ErrDeclined)
}

// SwitchToInteractive reports whether an autopilot run that decided f
// switches to interactive mode: it halted with exit 17 on something a
// person could decide (modes.PersonCanDecide), and a terminal is attached.
func SwitchToInteractive(f Facts, canPrompt bool) bool {
	return f.Decision == modes.DecisionHalt && f.Mode == modes.ModeAutopilot && canPrompt &&
		f.Code == int(exitcode.Cannot) && modes.PersonCanDecide(f.Situation)
}

// Forceable reports whether the situation's conflicts may be resumed over
// ("resume anyway", --force): conflicts not forced yet, and every blocking
// finding a conflict.
func Forceable(sit modes.Situation) bool { return onlyConflicts(sit) }

// RestartBlocker is the first blocking finding a restart cannot get past
// (one that is not a conflict), if any.
func RestartBlocker(sit modes.Situation) (workflow.Finding, bool) {
	for _, f := range sit.Blocking {
		if f.Check != workflow.CheckConflict {
			return f, true
		}
	}
	return workflow.Finding{}, false
}

// CanOfferInstead reports whether a halted run offers to restart from
// scratch or clean up instead: interactive on a terminal, without --json,
// halted with exit 17 on a resumable, unfinished workflow not yet
// restarted, which a restart would get past or which is stale.
func CanOfferInstead(f Facts, canPrompt bool) bool {
	return canPrompt && !f.JSON && f.Mode != modes.ModeAutopilot && f.Mode != modes.ModePreflight &&
		f.Code == int(exitcode.Cannot) && f.Situation.Resumable && !f.Situation.Terminal && !f.Restarted &&
		(f.RestartOK || f.stale())
}

// CanOfferAgain reports whether a resume already handed off at the same
// phase may ask to hand it off again: interactive on a terminal, without
// --json.
func CanOfferAgain(f Facts, canPrompt bool) bool {
	return canPrompt && !f.JSON && f.Mode != modes.ModeAutopilot && f.Mode != modes.ModePreflight
}

// Act carries out a resume that is not a dry run, from the decision of its
// first evaluation to its end: decide, confirm, trust, lock, handoff,
// record. It returns what the Host's Finish (or another ending step)
// returned.
func (fl *Flow) Act() error {
	h := fl.Host
	fl.enter(StateDecide)
	if f := h.Facts(); SwitchToInteractive(f, fl.CanPrompt) {
		if err := h.Notify(Event{Kind: EvAutopilotSwitched, ID: f.Candidate.ID, Reason: f.Reason}); err != nil {
			return err
		}
		h.SetMode(modes.ModeInteractive)
		if f.Candidates > 1 && !f.Named && !f.Chosen {
			// interactive mode offers the choice autopilot made alone
			changed, err := h.Choose()
			if err != nil {
				return fl.cancelled(err)
			}
			if changed {
				h.DropAutopilotOnly()
				if stop, err := h.Take(); stop || err != nil {
					return err
				}
				return fl.Act()
			}
		}
		h.DropAutopilotOnly()
		if err := h.Evaluate(); err != nil {
			return err
		}
	}

	fl.enter(StateConfirm)
	f := h.Facts()
	switch f.Decision {
	case modes.DecisionHalt:
		if err := h.ShowBlocks(); err != nil {
			return err
		}
		if !CanOfferInstead(f, fl.CanPrompt) {
			outcome := "halted"
			if f.Code == int(exitcode.Terminal) {
				outcome = "terminal"
			}
			return h.Finish(End{Outcome: outcome, Code: f.Code, Quiet: true})
		}
		fl.enter(StateInstead)
		goOn, err := fl.offerInstead(f)
		if err != nil || !goOn {
			return err
		}
	case modes.DecisionAsk:
		if err := h.ShowBlocks(); err != nil {
			return err
		}
		end, err := fl.ask(f)
		if err != nil {
			return err
		}
		if end != nil { // declined, or needs a terminal
			return h.Finish(*end)
		}
	case modes.DecisionResume:
		if err := h.ShowBlocks(); err != nil {
			return err
		}
	}
	fl.enter(StateTrust)
	if err := h.RequireTrust(); err != nil {
		return err
	}
	return fl.HandOff()
}

// ApplySaved carries out a saved plan (--plan) that still holds: the
// blocks, the trust, then the handoff — the plan's approval was given when
// it was made, so nothing is asked.
func (fl *Flow) ApplySaved() error {
	fl.enter(StateConfirm)
	if err := fl.Host.ShowBlocks(); err != nil {
		return err
	}
	fl.enter(StateTrust)
	if err := fl.Host.RequireTrust(); err != nil {
		return err
	}
	return fl.HandOff()
}

// ask puts the mode's question: interactive "yes / restart from scratch /
// cancel" (or "resume anyway" over forceable conflicts), pre-flight a typed
// proceed. Without a terminal the flag that answers is named (exit 19). A
// non-nil End ends the run.
func (fl *Flow) ask(f Facts) (*End, error) {
	h := fl.Host
	forceable := Forceable(f.Situation)
	if f.Mode == modes.ModePreflight {
		if !fl.CanPrompt {
			return fl.noTerminal(f, true)
		}
		ok, err := modes.ConfirmProceed(fl.Prompter)
		if err != nil {
			return fl.askFailed(err)
		}
		if !ok {
			if err := h.Notify(Event{Kind: EvNotApproved}); err != nil {
				return nil, err
			}
			e := End{Outcome: "declined", Code: int(exitcode.Declined), Quiet: true}
			return &e, nil
		}
		return nil, nil
	}
	// interactive
	if !fl.CanPrompt {
		if f.Approve && !forceable {
			return nil, nil // --approve answers "yes"
		}
		return fl.noTerminal(f, false)
	}
	ans, err := modes.ConfirmResume(fl.Prompter, forceable, f.Partial)
	if err != nil {
		return fl.askFailed(err)
	}
	switch ans {
	case modes.AnswerCancel:
		if err := h.Notify(Event{Kind: EvCancelled}); err != nil {
			return nil, err
		}
		e := quiet("declined", exitcode.Declined)
		return &e, nil
	case modes.AnswerForce:
		h.SetForced()
		return nil, h.Evaluate()
	case modes.AnswerRestart:
		ok, err := fl.restart(false)
		if err != nil || ok {
			return nil, err
		}
		e := quiet("halted", exitcode.Cannot)
		return &e, nil
	}
	return nil, nil
}

// restart moves to a restart from the first phase the user chose and
// evaluates again; ok is false when the restart halts on a finding a
// restart cannot get past (shown). Conflicts the restart meets are resumed
// over: the user chose to start over despite them. instead is set when the
// restart was offered in place of a halt (offerInstead): then a workflow
// the restart finds finished or not resumable halts too, and the cleanup
// command is named when it applies; asked at the confirmation, a restart
// the user already forced goes on.
func (fl *Flow) restart(instead bool) (ok bool, err error) {
	h := fl.Host
	h.SetRestarted()
	if err := h.Notify(Event{Kind: EvRestarting}); err != nil {
		return false, err
	}
	if err := h.Evaluate(); err != nil {
		return false, err
	}
	f := h.Facts()
	if instead && (f.Situation.Terminal || !f.Situation.Resumable) {
		return false, nil
	}
	if len(f.Situation.Blocking) == 0 || (f.Forced && !instead) {
		return true, nil
	}
	if b, blocked := RestartBlocker(f.Situation); blocked {
		ev := Event{Kind: EvCannotRestart, ID: f.Candidate.ID, Finding: b,
			CleanupHint: instead && f.stale() && cleanup.CleanupOffered(f.Candidate)}
		return false, h.Notify(ev)
	}
	h.SetForced() // the user chose to start over despite the conflicts
	return true, nil
}

// noTerminal ends a run that must ask and has no terminal: exit 19,
// naming the flags that answer.
func (fl *Flow) noTerminal(f Facts, preflight bool) (*End, error) {
	if err := fl.Host.Notify(Event{Kind: EvNoTerminal, Preflight: preflight, Flags: NoTerminalFlags(f.Situation)}); err != nil {
		return nil, err
	}
	e := quiet("error", exitcode.NoTTY)
	return &e, nil
}

// askFailed ends a run whose question was cancelled (exit 10); another
// error stands.
func (fl *Flow) askFailed(err error) (*End, error) {
	if Cancel(err) {
		if nerr := fl.Host.Notify(Event{Kind: EvCancelled}); nerr != nil {
			return nil, nerr
		}
		e := quiet("declined", exitcode.Declined)
		return &e, nil
	}
	return nil, err
}

// offerInstead asks what to do with a workflow that cannot resume as it is:
// restart from scratch, clean up the stale state (only when stale), or
// cancel. It reports whether to go on and hand off (a restart that is
// possible); otherwise the run is finished.
func (fl *Flow) offerInstead(f Facts) (bool, error) {
	h := fl.Host
	ans, err := modes.ChooseInstead(fl.Prompter, f.RestartOK, f.stale() && cleanup.CleanupOffered(f.Candidate))
	if err != nil {
		if Cancel(err) {
			if nerr := h.Notify(Event{Kind: EvCancelled}); nerr != nil {
				return false, nerr
			}
			return false, h.Finish(quiet("declined", exitcode.Declined))
		}
		return false, err
	}
	switch ans {
	case modes.AnswerCleanup:
		return false, h.Cleanup()
	case modes.AnswerRestart:
		ok, err := fl.restart(true)
		if err != nil {
			return false, err
		}
		if !ok {
			return false, h.Finish(quiet("halted", exitcode.Cannot))
		}
		return true, nil
	}
	if err := h.Notify(Event{Kind: EvCancelled}); err != nil {
		return false, err
	}
	return false, h.Finish(quiet("declined", exitcode.Declined))
}

// HandOff is the lock, handoff and record states of a run decided to go
// ahead: the shared lock (with lifecycle.remote), handoff.Execute (the
// local lock inside), a stale lock taken over after a confirmation, the
// same resume handed off again when the user asks, and the end. It is the
// entry point of anything that claims a workflow without the questions of
// a mode (a saved plan, a claim as another holder): the Host's Request
// says who holds the lock and what runs (no handoff.command: the envelope
// only, Result.EnvelopePath).
func (fl *Flow) HandOff() error {
	h := fl.Host
	f := h.Facts()
	id := f.Candidate.ID
	req, err := h.Request()
	if err != nil {
		return fl.cancelled(err)
	}
	fl.enter(StateLock)
	release, done, err := h.LockShared(&req)
	if done {
		return err
	}
	var outcome error
	defer func() { release(outcome) }()
	fl.enter(StateHandoff)
	res, err := h.Execute(req)
	outcome = err
	if q, ask := StaleTakeover(err, id, fl.CanPrompt, f.Mode); ask {
		ok, perr := modes.ConfirmTakeover(fl.Prompter, q)
		if perr != nil {
			return fl.cancelled(perr)
		}
		if !ok {
			outcome = errors.New("declined: nothing was run")
			if err := h.Notify(Event{Kind: EvLockLeft, ID: id}); err != nil {
				return err
			}
			return h.Finish(quiet("declined", exitcode.Declined))
		}
		req.TakeOverStale = true
		res, err = h.Execute(req)
		outcome = err
	}
	if err != nil {
		return h.Failed(FailureOf(err, id), err)
	}
	fl.enter(StateRecord)
	if err := h.Notify(Event{Kind: EvDispatched, ID: id, Result: res}); err != nil {
		return err
	}
	if res.TookOverStale != nil {
		if err := h.Notify(Event{Kind: EvTookOverStale, ID: id, Result: res}); err != nil {
			return err
		}
	}
	if res.AlreadyHandedOff && fl.offerAgain(f, res) {
		if err := h.Notify(Event{Kind: EvHandingOffAgain, ID: id}); err != nil {
			return err
		}
		req.Again = true
		res, err = h.Execute(req)
		outcome = err
		if err != nil {
			return h.Failed(FailureOf(err, id), err)
		}
	}
	if res.AlreadyHandedOff {
		if err := h.Notify(Event{Kind: EvAlreadyHandedOff, ID: id, Result: res}); err != nil {
			return err
		}
		e := quiet("none", exitcode.OK)
		e.Reason = ReasonAlreadyHandedOff
		return h.Finish(e)
	}
	if res.Unconfirmed {
		if err := h.Notify(Event{Kind: EvUnconfirmed, ID: id, Result: res}); err != nil {
			return err
		}
	}
	if err := h.Notify(Event{Kind: EvHandedOff, ID: id, Result: res}); err != nil {
		return err
	}
	return h.Finish(quiet("resumed", exitcode.OK))
}

// offerAgain asks, in interactive mode on a terminal, whether to hand off
// again a workflow already handed off at the same phase (default no).
func (fl *Flow) offerAgain(f Facts, res handoff.Result) bool {
	if !CanOfferAgain(f, fl.CanPrompt) {
		return false
	}
	when := ""
	if !res.PreviousAt.IsZero() {
		when = " " + templates.Ago(f.Now.Sub(res.PreviousAt))
	}
	ok, err := modes.ConfirmAgain(fl.Prompter, fmt.Sprintf("%s was already handed off%s.", templates.Safe(f.Candidate.ID), when))
	return err == nil && ok
}

// TakeGate is the gate between choosing a candidate and evaluating it: a
// workflow a live process resumes here (its lock live, or not trusted) is
// not resumed twice (exit 16), nor one another runner holds on the shared
// lifecycle sh (exit 16; a dry run plans it and says so itself). ok is
// false when the run ends with End; held is the other runner's lease then.
func TakeGate(root, id string, sh *Shared, now time.Time, dryRun bool) (end End, held *sharedlife.Lock, ok bool) {
	if st := handoff.Inspect(root, id); st.Exists && st.Live {
		end = End{Outcome: "locked", Code: int(exitcode.Locked)}
		if st.Reason != "" {
			end.Err = fmt.Errorf("%s: its lock %s is not trusted (%s); it was left in place: check it, then run orchestrate unlock --force %s", id, Rel(root, handoff.LockPath(root, id)), st.Reason, id)
			return end, nil, false
		}
		end.Err = fmt.Errorf("%s is being resumed by a live process (pid %d on %s, since %s%s): not resuming it twice", id, st.Owner.PID, st.Owner.Host, st.Owner.StartedAt.Format(time.RFC3339), claimedBy(st.Owner.Command))
		return end, nil, false
	}
	if l, isHeld := sh.HeldBy(id, now); isHeld && !dryRun {
		end = End{Outcome: "locked", Code: int(exitcode.Locked), Reason: ReasonHeldRemotely,
			Err: fmt.Errorf("%w: not resuming it twice", &sharedlife.HeldError{Workflow: id, Holder: l})}
		return end, &l, false
	}
	return End{}, nil, true
}

// ClaimCommand starts the lock command of a claim over orchestrate mcp:
// the holder follows it.
const ClaimCommand = "orchestrate mcp: claimed by "

// claimedBy names the holder of a lock an MCP claim took (its command is
// ClaimCommand + holder), for the locked message; "" for any other lock.
func claimedBy(command string) string {
	if who, ok := strings.CutPrefix(command, ClaimCommand); ok && who != "" {
		return ", claimed by " + who
	}
	return ""
}

// Rel shows path relative to root (with forward slashes) when it is
// inside it, else as it is.
func Rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return path
}
