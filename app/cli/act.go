package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/orchestrate-dev/orchestrate/app/resumeflow"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/handoff/cleanup"
	"github.com/orchestrate-dev/orchestrate/handoff/command"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/templates"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// humanOut is where the human blocks of a resume go: stdout, unless stdout
// carries the --json document.
func (a *app) humanOut(opts *ResumeOptions) io.Writer {
	if opts.JSON {
		return a.sys.IO.ErrOut
	}
	return a.sys.IO.Out
}

// renderTo renders template name to w.
func (a *app) renderTo(w io.Writer, s *loadedRepo, name string, data any) error {
	out, err := a.renderer(s, w).Render(name, data)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(w, out)
	return err
}

// prompter returns the injected prompter or the terminal one (internal/prompt) on the streams.
func (a *app) prompter() modes.Prompter {
	if a.sys.Prompter != nil {
		return a.sys.Prompter
	}
	return newTerminalPrompter(a.sys.IO, a.color())
}

// cancelled ends a resume the user declined or interrupted: exit 10,
// nothing changed.
func (a *app) cancelled(r *resumeRun, err error) error {
	if errors.Is(err, modes.ErrInterrupted) || errors.Is(err, modes.ErrDeclined) {
		fmt.Fprintln(a.sys.IO.ErrOut, "Cancelled: nothing was changed.")
		return a.finishResume(r, "declined", ExitDeclined, nil)
	}
	return a.finishResume(r, "error", ExitError, err)
}

// act carries out a resume that is not a dry run: it asks what the mode
// needs asked, then hands off.
func (a *app) act(r *resumeRun) error {
	out := a.humanOut(r.opts)
	canPrompt := a.sys.IO.CanPrompt()

	// Autopilot halts on conflicts, blocking findings or staleness; with a
	// terminal attached it switches to interactive for every halt a person
	// could decide (modes.PersonCanDecide).
	if r.plan.Decision == modes.DecisionHalt && r.mode == modes.ModeAutopilot && canPrompt && r.code == ExitCannot && modes.PersonCanDecide(r.situation) {
		fmt.Fprintf(a.sys.IO.ErrOut, "Autopilot stopped (%s).\nA terminal is attached: switching to interactive mode.\n\n", templates.Safe(r.plan.Reason))
		r.mode = modes.ModeInteractive
		if len(r.all) > 1 && r.opts.Workflow == "" && !r.chosen {
			// interactive mode offers the choice autopilot made alone
			i, err := a.chooseCandidate(r)
			if err != nil {
				return a.cancelled(r, err)
			}
			if c := r.all[i]; c.ID != r.selected.ID {
				r.selected = &c
				r.selected.Findings = resumeflow.WithoutAutopilotOnly(r.selected.Findings)
				if stop, err := a.takeSelected(r, a.planOptions(r)); stop || err != nil {
					return err
				}
				return a.act(r)
			}
		}
		r.selected.Findings = resumeflow.WithoutAutopilotOnly(r.selected.Findings)
		if err := a.evaluate(r, a.planOptions(r)); err != nil {
			return err
		}
	}

	switch r.plan.Decision {
	case modes.DecisionHalt:
		if err := a.printBlocks(out, r); err != nil {
			return err
		}
		if a.canOfferInstead(r, canPrompt) {
			goOn, err := a.offerInstead(r, out)
			if err != nil || !goOn {
				return err
			}
			break
		}
		outcome := "halted"
		if r.code == ExitTerminal {
			outcome = "terminal"
		}
		return a.finishQuiet(r, outcome, r.code)
	case modes.DecisionAsk:
		if err := a.ask(r, out, canPrompt); err != nil {
			return err
		}
		if r.outcome != "" { // declined, or needs a terminal
			return a.finishQuiet(r, r.outcome, r.exit)
		}
	case modes.DecisionResume:
		if err := a.printBlocks(out, r); err != nil {
			return err
		}
	}
	if err := a.requireRepoTrust(r); err != nil {
		return err
	}
	return a.handOff(r, out)
}

// planOptions are the plan options of the run, including a restart the user chose.
func (a *app) planOptions(r *resumeRun) plan.Options {
	return plan.Options{Restart: r.opts.Restart || r.restarted, FromPhase: r.opts.FromPhase}
}

// ask puts the mode's question: interactive "yes / restart from scratch /
// cancel" (or "resume anyway" over forceable conflicts), pre-flight a typed
// proceed. Without a terminal the flag that answers is named (exit 19).
func (a *app) ask(r *resumeRun, out io.Writer, canPrompt bool) error {
	if err := a.printBlocks(out, r); err != nil {
		return err
	}
	forceable := r.situation.Conflicts && !r.situation.Force
	for _, f := range r.situation.Blocking {
		if f.Check != workflow.CheckConflict {
			forceable = false
		}
	}
	if r.mode == modes.ModePreflight {
		if !canPrompt {
			r.outcome, r.exit = "error", ExitNoTTY
			fmt.Fprintf(a.sys.IO.ErrOut, "orchestrate: pre-flight needs an explicit approval and there is no terminal: pass %s\n", resumeflow.NoTerminalFlags(r.situation))
			return nil
		}
		ok, err := modes.ConfirmProceed(a.prompter())
		if err != nil {
			return a.askFailed(r, err)
		}
		if !ok {
			fmt.Fprintln(a.sys.IO.ErrOut, "Not approved: nothing was changed.")
			r.outcome, r.exit = "declined", ExitDeclined
		}
		return nil
	}
	// interactive
	if !canPrompt {
		if r.opts.Approve && !forceable {
			return nil // --approve answers "yes"
		}
		r.outcome, r.exit = "error", ExitNoTTY
		flag := resumeflow.NoTerminalFlags(r.situation)
		fmt.Fprintf(a.sys.IO.ErrOut, "orchestrate: confirmation needed and there is no terminal: pass %s\n", flag)
		return nil
	}
	ans, err := modes.ConfirmResume(a.prompter(), forceable, r.plan.Partial)
	if err != nil {
		return a.askFailed(r, err)
	}
	switch ans {
	case modes.AnswerCancel:
		fmt.Fprintln(a.sys.IO.ErrOut, "Cancelled: nothing was changed.")
		r.outcome, r.exit = "declined", ExitDeclined
	case modes.AnswerForce:
		r.forced = true
		if err := a.evaluate(r, a.planOptions(r)); err != nil {
			return err
		}
	case modes.AnswerRestart:
		r.restarted = true
		fmt.Fprintln(out, "Restarting from the first phase (existing artifacts are kept).")
		if err := a.evaluate(r, a.planOptions(r)); err != nil {
			return err
		}
		if len(r.situation.Blocking) > 0 && !r.forced {
			for _, f := range r.situation.Blocking {
				if f.Check != workflow.CheckConflict {
					fmt.Fprintf(out, "Cannot restart: %s\n", templates.Safe(f.Message))
					r.outcome, r.exit = "halted", ExitCannot
					return nil
				}
			}
			r.forced = true // the user chose to start over despite the conflicts
		}
	}
	return nil
}

// canOfferInstead: an interactive resume on a terminal halted on a workflow
// that cannot resume as it is, but could start over or be cleaned up.
func (a *app) canOfferInstead(r *resumeRun, canPrompt bool) bool {
	return canPrompt && !r.opts.JSON && r.mode != modes.ModeAutopilot && r.mode != modes.ModePreflight &&
		r.code == ExitCannot && r.situation.Resumable && !r.situation.Terminal && !r.restarted &&
		(r.restartOK || r.report.AgeClass == "stale")
}

// offerInstead asks what to do with a workflow that cannot resume as it is:
// restart from scratch, clean up the stale state (only when stale), or
// cancel. It reports whether to go on and hand off (a restart that is
// possible); otherwise the run is finished.
func (a *app) offerInstead(r *resumeRun, out io.Writer) (bool, error) {
	ans, err := modes.ChooseInstead(a.prompter(), r.restartOK, r.report.AgeClass == "stale" && cleanup.CleanupOffered(*r.selected))
	if err != nil {
		if errors.Is(err, modes.ErrInterrupted) || errors.Is(err, modes.ErrDeclined) {
			fmt.Fprintln(a.sys.IO.ErrOut, "Cancelled: nothing was changed.")
			return false, a.finishQuiet(r, "declined", ExitDeclined)
		}
		return false, err
	}
	switch ans {
	case modes.AnswerCleanup:
		return false, a.runCleanup(&CleanupOptions{Workflow: r.selected.ID})
	case modes.AnswerRestart:
		r.restarted = true
		fmt.Fprintln(out, "Restarting from the first phase (existing artifacts are kept).")
		if err := a.evaluate(r, a.planOptions(r)); err != nil {
			return false, err
		}
		if r.situation.Terminal || !r.situation.Resumable {
			return false, a.finishQuiet(r, "halted", ExitCannot)
		}
		for _, f := range r.situation.Blocking {
			if f.Check != workflow.CheckConflict {
				fmt.Fprintf(out, "Cannot restart: %s\n", templates.Safe(f.Message))
				if r.report.AgeClass == "stale" && cleanup.CleanupOffered(*r.selected) {
					fmt.Fprintf(out, "To archive the stale state instead, run: orchestrate cleanup %s\n", templates.Safe(r.selected.ID))
				}
				return false, a.finishQuiet(r, "halted", ExitCannot)
			}
		}
		if len(r.situation.Blocking) > 0 {
			r.forced = true // the user chose to start over despite the conflicts
		}
		return true, nil
	}
	fmt.Fprintln(a.sys.IO.ErrOut, "Cancelled: nothing was changed.")
	return false, a.finishQuiet(r, "declined", ExitDeclined)
}

func (a *app) askFailed(r *resumeRun, err error) error {
	if errors.Is(err, modes.ErrInterrupted) || errors.Is(err, modes.ErrDeclined) {
		fmt.Fprintln(a.sys.IO.ErrOut, "Cancelled: nothing was changed.")
		r.outcome, r.exit = "declined", ExitDeclined
		return nil
	}
	return err
}

// finishQuiet ends the run after the blocks were printed: JSON when asked,
// and the exit code.
func (a *app) finishQuiet(r *resumeRun, outcome string, code int) error {
	r.outcome, r.exit = outcome, code
	a.githubSummary(r)
	if r.opts.JSON {
		if err := writeJSON(a.sys.IO.Out, a.resumeDoc(r)); err != nil {
			return err
		}
	}
	return silent(code)
}

// handOff hands the selected workflow off (handoff.Execute), asking to
// take over a stale lock when it may, and shows the result.
func (a *app) handOff(r *resumeRun, out io.Writer) error {
	s := r.s
	c := *r.selected
	forced := r.forced || (r.opts.Force && r.situation.Conflicts)
	stdout := a.sys.IO.Out
	if r.opts.JSON {
		stdout = a.sys.IO.ErrOut // stdout carries the JSON document
	}
	req := resumeflow.Request(resumeflow.Handoff{
		Session: s.Session, Candidate: c, Plan: r.plan, Validation: r.report.Status, Mode: r.mode,
		Forced: forced, Restart: r.opts.Restart || r.restarted, Approve: r.opts.Approve, TakeOverStale: r.opts.Force,
		Again: r.opts.Again || r.rehandoff[c.ID],
		Env:   a.environ(), Stdin: a.stdinFile(), Stdout: stdout, Stderr: a.sys.IO.ErrOut,
		Lock: a.lockInfo(), Failpoint: testFailpoint(),
	})
	if err := a.applyFoundSession(r, &req); err != nil {
		return a.cancelled(r, err)
	}
	// the Resuming block prints before the command runs: an interactive
	// agent session may hold the terminal until it ends
	shown := false
	req.BeforeCommand = func(res handoff.Result) {
		if err := a.renderTo(out, s, "confirmation", a.confirmationView(r, res, true)); err == nil {
			shown = true
		}
	}
	// with lifecycle.remote: the shared lock and records around the handoff
	sh, done, err := a.beginShared(r, &req)
	if done {
		return err
	}
	var sharedErr error
	defer func() { sh.finish(sharedErr) }()
	res, err := handoff.Execute(req)
	sharedErr = err
	if q, ask := resumeflow.StaleTakeover(err, c.ID, a.sys.IO.CanPrompt(), r.mode); ask {
		ok, perr := modes.ConfirmTakeover(a.prompter(), q)
		if perr != nil {
			return a.cancelled(r, perr)
		}
		if !ok {
			fmt.Fprintln(a.sys.IO.ErrOut, "Lock left in place: nothing was changed.")
			sharedErr = errors.New("declined: nothing was run")
			return a.finishQuiet(r, "declined", ExitDeclined)
		}
		req.TakeOverStale = true
		res, err = handoff.Execute(req)
		sharedErr = err
	}
	if err != nil {
		return a.handoffFailed(r, out, err)
	}
	a.gitignoreNotice(out, r)
	r.handoff = &handoffJSON{Envelope: rel(s.Root, res.EnvelopePath), IdempotencyKey: res.IdempotencyKey, Command: res.Command, Agent: res.Agent}
	if res.TookOverStale != nil {
		fmt.Fprintf(a.sys.IO.ErrOut, "Took over the stale lock of pid %d on %s.\n", res.TookOverStale.PID, templates.Safe(res.TookOverStale.Host))
	}
	if res.AlreadyHandedOff && a.offerAgain(r, res) {
		fmt.Fprintf(out, "Handing %s off again at the same phase (logged as again).\n", templates.Safe(c.ID))
		req.Again = true
		res, err = handoff.Execute(req)
		sharedErr = err
		if err != nil {
			return a.handoffFailed(r, out, err)
		}
	}
	if res.AlreadyHandedOff {
		fmt.Fprint(out, alreadyHandedOff(s, c.ID, res))
		r.reason = reasonAlreadyHandedOff
		return a.finishQuiet(r, "none", ExitOK)
	}
	if res.Unconfirmed {
		fmt.Fprintf(out, "The previous handoff of %s was dispatched but its command never started (unconfirmed): handing it off again.\n", templates.Safe(c.ID))
	}
	if shown {
		fmt.Fprintf(out, "Handed off to @%s (%s).\n", templates.Safe(strings.TrimPrefix(res.Agent, "@")), templates.Safe(res.Command))
	} else if err := a.renderTo(out, s, "confirmation", a.confirmationView(r, res, false)); err != nil {
		return err
	}
	return a.finishQuiet(r, "resumed", ExitOK)
}

// Values of --json "reason" (see resumeDoc.Reason).
const (
	reasonAlreadyHandedOff = "already_handed_off"
	reasonStaleLock        = "stale_lock"
	reasonCommandFailed    = "command_failed"
)

// offerAgain asks, in interactive mode on a terminal, whether to hand off
// again a workflow already handed off at the same phase (default no).
func (a *app) offerAgain(r *resumeRun, res handoff.Result) bool {
	if !a.sys.IO.CanPrompt() || r.opts.JSON || r.mode == modes.ModeAutopilot || r.mode == modes.ModePreflight {
		return false
	}
	when := ""
	if !res.PreviousAt.IsZero() {
		when = " " + templates.Ago(r.s.Now.Sub(res.PreviousAt))
	}
	ok, err := modes.ConfirmAgain(a.prompter(), fmt.Sprintf("%s was already handed off%s.", templates.Safe(r.selected.ID), when))
	return err == nil && ok
}

// handoffFailed maps a handoff error to its block and exit code.
func (a *app) handoffFailed(r *resumeRun, out io.Writer, err error) error {
	var locked *handoff.LockedError
	var stale *handoff.StaleLockError
	var cmdErr *command.Error
	var valErr *command.ValueError
	code, outcome := ExitError, "error"
	action := "Check the error above, fix it, and run orchestrate resume again."
	switch {
	case errors.As(err, &locked):
		code, outcome = ExitLocked, "locked"
		action = "Another orchestrate is resuming this workflow; wait for it, or if it is gone run: orchestrate unlock " + r.selected.ID
	case errors.As(err, &stale):
		// the outcome stays within the documented set; --json "reason" says stale
		code, outcome = ExitLocked, "locked"
		r.reason = reasonStaleLock
		action = "The lock is stale (its process is gone): run orchestrate unlock " + r.selected.ID + ", or resume with --force to take it over"
	case errors.As(err, &cmdErr):
		// outcome "error" as documented; --json "reason" and "command_result"
		// say it was the orchestrator command, and how it ended
		code, outcome = ExitCommand, "error"
		r.reason = reasonCommandFailed
		reason := cmdErr.Reason
		if reason == command.ReasonFailed && resumeflow.InterruptedStatus(cmdErr.Status) {
			// Ctrl-C at the terminal reaches the command's foreground group,
			// not orchestrate: the command ended by SIGINT or SIGQUIT
			reason = command.ReasonInterrupted
		}
		r.command = &commandJSON{Reason: reason, ExitStatus: cmdErr.Status, Signal: cmdErr.Signal}
		switch reason {
		case command.ReasonTimeout:
			action = "The orchestrator command ran longer than handoff.timeout and was stopped; the workflow state was rolled back and is still interrupted. Raise handoff.timeout or fix the command, and resume again."
		case command.ReasonInterrupted:
			action = "Interrupted: the orchestrator command was stopped (Ctrl-C or a signal) and the workflow state was rolled back; it is still interrupted. Resume again when ready."
		default:
			action = "The orchestrator command failed; the workflow state was rolled back and is still interrupted. Fix the command (handoff.command) and resume again."
		}
	case presetRefused(err):
		code, outcome = ExitCannot, "halted"
		action = "A value from the workflow state is not safe for the handoff.agent preset's command line; nothing was changed. Check the state file (its AI session id), or use handoff.command."
	case errors.As(err, &valErr):
		code, outcome = ExitCannot, "halted"
		action = "A value from the workflow state is not safe for that spot of handoff.command; nothing was changed. Check the state file, or mark the spot {{unchecked ." + valErr.Field + "}} if the command takes any value there (see README, Handoff)."
	}
	view := struct{ Type, Reason, StateFile, Action string }{
		Type: r.selected.Type.Label() + " (" + r.selected.ID + ")", Reason: err.Error(), StateFile: r.selected.Source.Path, Action: action,
	}
	if rerr := a.renderTo(a.sys.IO.ErrOut, r.s, "failure", view); rerr != nil {
		return rerr
	}
	_ = out
	return a.finishQuiet(r, outcome, code)
}

type confirmationView struct {
	Title, Story, Phase, Agent, Age, Validation, Envelope, Command string
	Forced, Restart                                                bool
	// Running: shown before the command runs (it is about to start).
	Running bool
}

// confirmationView feeds the confirmation template; running is set when it
// is shown before the orchestrator command runs.
func (a *app) confirmationView(r *resumeRun, res handoff.Result, running bool) confirmationView {
	c := r.selected
	phase := r.plan.ResumeName
	if phase == "" {
		phase = r.plan.ResumeFrom.Phase
	}
	if r.plan.Position.Kind != "" {
		phase = resumePointText(r.plan)
	}
	v := confirmationView{
		Title: a.summaryView(r).Title, Story: strings.Join(c.Stories, ", "),
		Phase: phase,
		Agent: res.Agent, Validation: r.report.Status, Envelope: rel(r.s.Root, res.EnvelopePath), Command: res.Command,
		Forced: r.forced || r.opts.Force, Restart: r.opts.Restart || r.restarted,
		Running: running,
	}
	if v.Agent == "" {
		v.Agent = r.plan.ResumeFrom.Agent
	}
	if n := len(r.situation.Warnings); n > 0 {
		v.Validation = fmt.Sprintf("%d %s", n, map[bool]string{true: "warning", false: "warnings"}[n == 1])
	}
	if c.UpdatedAt.IsZero() {
		v.Age = "unknown"
	} else {
		v.Age = templates.Duration(r.s.Now.Sub(c.UpdatedAt))
	}
	return v
}

// lockInfo describes this process for the lock file.
func (a *app) lockInfo() handoff.LockInfo {
	host, _ := os.Hostname()
	name := ""
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	return handoff.LockInfo{PID: a.sys.Pid, Host: host, User: name, StartedAt: a.sys.Now().UTC(), Command: strings.Join(a.sys.Args, " ")}
}

// rel shows path relative to root when it is inside it.
func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return path
}
