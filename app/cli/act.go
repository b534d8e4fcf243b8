package cli

import (
	"fmt"
	"io"
	"os"
	"os/user"
	"strings"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/app/cli/failpoint"
	"github.com/orchestrate-dev/orchestrate/app/cli/iostreams"
	"github.com/orchestrate-dev/orchestrate/app/cli/jsondoc"
	"github.com/orchestrate-dev/orchestrate/app/cli/views"
	"github.com/orchestrate-dev/orchestrate/app/resumeflow"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/templates"
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
	return iostreams.NewTerminalPrompter(a.sys.IO, a.color())
}

// cancelled ends a resume the user declined or interrupted: exit 10,
// nothing changed.
func (a *app) cancelled(r *resumeRun, err error) error {
	if resumeflow.Cancel(err) {
		fmt.Fprintln(a.sys.IO.ErrOut, "Cancelled: nothing was changed.")
		return a.finishResume(r, "declined", cmdutil.ExitDeclined, nil)
	}
	return a.finishResume(r, "error", cmdutil.ExitError, err)
}

// act carries out a resume that is not a dry run: the state machine of
// resumeflow.Flow (decide, confirm, trust, lock, handoff, record) over
// this run, rendered here (flowHost).
func (a *app) act(r *resumeRun) error { return a.flow(r).Act() }

// flow is the resume state machine over run r.
func (a *app) flow(r *resumeRun) *resumeflow.Flow {
	return &resumeflow.Flow{Host: &flowHost{a: a, r: r, out: a.humanOut(r.opts)}, Prompter: a.prompter(), CanPrompt: a.sys.IO.CanPrompt()}
}

// planOptions are the plan options of the run, including a restart the user chose.
func (a *app) planOptions(r *resumeRun) plan.Options {
	return plan.Options{Restart: r.opts.Restart || r.restarted, FromPhase: r.opts.FromPhase}
}

// flowHost is resumeflow.Host over one resume run: the facts the flow
// decides on, the choices it records, and the rendering of its events.
type flowHost struct {
	a   *app
	r   *resumeRun
	out io.Writer // the human blocks (humanOut)
	// shown: the Resuming block was printed before the command ran
	shown bool
}

// Facts implements resumeflow.Host.
func (h *flowHost) Facts() resumeflow.Facts {
	r := h.r
	return resumeflow.Facts{
		Candidate: *r.selected, Mode: r.mode, Situation: r.situation,
		Decision: r.plan.Decision, Reason: r.plan.Reason, Partial: r.plan.Partial, Code: r.code,
		RestartOK: r.restartOK, AgeClass: r.report.AgeClass,
		Candidates: len(r.all), Named: r.opts.Workflow != "", Chosen: r.chosen,
		JSON: r.opts.JSON, Approve: r.opts.Approve,
		Forced: r.forced, Restarted: r.restarted, Now: r.s.Now,
	}
}

// SetMode implements resumeflow.Host.
func (h *flowHost) SetMode(m modes.Mode) { h.r.mode = m }

// SetForced implements resumeflow.Host.
func (h *flowHost) SetForced() { h.r.forced = true }

// SetRestarted implements resumeflow.Host.
func (h *flowHost) SetRestarted() { h.r.restarted = true }

// DropAutopilotOnly implements resumeflow.Host.
func (h *flowHost) DropAutopilotOnly() {
	h.r.selected.Findings = resumeflow.WithoutAutopilotOnly(h.r.selected.Findings)
}

// Evaluate implements resumeflow.Host.
func (h *flowHost) Evaluate() error { return h.a.evaluate(h.r, h.a.planOptions(h.r)) }

// Choose implements resumeflow.Host.
func (h *flowHost) Choose() (bool, error) {
	r := h.r
	i, err := h.a.chooseCandidate(r)
	if err != nil {
		return false, err
	}
	if c := r.all[i]; c.ID != r.selected.ID {
		r.selected = &c
		return true, nil
	}
	return false, nil
}

// Take implements resumeflow.Host.
func (h *flowHost) Take() (bool, error) { return h.a.takeSelected(h.r, h.a.planOptions(h.r)) }

// ShowBlocks implements resumeflow.Host.
func (h *flowHost) ShowBlocks() error { return h.a.printBlocks(h.out, h.r) }

// RequireTrust implements resumeflow.Host.
func (h *flowHost) RequireTrust() error { return h.a.requireRepoTrust(h.r) }

// Cleanup implements resumeflow.Host.
func (h *flowHost) Cleanup() error {
	return h.a.runCleanup(&CleanupOptions{Workflow: h.r.selected.ID})
}

// Request implements resumeflow.Host: the handoff request, the Resuming
// block printed before the command runs (an interactive agent session may
// hold the terminal until it ends).
func (h *flowHost) Request() (handoff.Request, error) {
	a, r := h.a, h.r
	stdout := a.sys.IO.Out
	if r.opts.JSON {
		stdout = a.sys.IO.ErrOut // stdout carries the JSON document
	}
	req := resumeflow.Request(resumeflow.Handoff{
		Session: r.s.Session, Candidate: *r.selected, Plan: r.plan, Validation: r.report.Status, Mode: r.mode,
		Forced: r.forced || (r.opts.Force && r.situation.Conflicts), Restart: r.opts.Restart || r.restarted,
		Approve: r.opts.Approve, TakeOverStale: r.opts.Force,
		Again: r.opts.Again || r.rehandoff[r.selected.ID],
		Env:   a.environ(), Stdin: a.stdinFile(), Stdout: stdout, Stderr: a.sys.IO.ErrOut,
		Lock: a.lockInfo(), Failpoint: failpoint.Hook(),
	})
	if err := a.applyFoundSession(r, &req); err != nil {
		return req, err
	}
	req.BeforeCommand = func(res handoff.Result) {
		if err := a.renderTo(h.out, r.s, "confirmation", a.confirmationView(r, res, true)); err == nil {
			h.shown = true
		}
	}
	return req, nil
}

// LockShared implements resumeflow.Host (beginShared, shared.go).
func (h *flowHost) LockShared(req *handoff.Request) (func(error), bool, error) {
	sh, done, err := h.a.beginShared(h.r, req)
	return sh.finish, done, err
}

// Execute implements resumeflow.Host.
func (h *flowHost) Execute(req handoff.Request) (handoff.Result, error) { return handoff.Execute(req) }

// Failed implements resumeflow.Host: the failure block and the exit code.
func (h *flowHost) Failed(f resumeflow.Failure, err error) error {
	a, r := h.a, h.r
	if f.Reason != "" {
		r.reason = f.Reason
	}
	if c := f.Command; c != nil {
		r.command = &jsondoc.Command{Reason: c.Reason, ExitStatus: c.ExitStatus, Signal: c.Signal}
	}
	if f.Holder != nil {
		r.holder = jsondoc.NewHolder(*f.Holder)
	}
	view := struct{ Type, Reason, StateFile, Action string }{
		Type: r.selected.Type.Label() + " (" + r.selected.ID + ")", Reason: err.Error(), StateFile: r.selected.Source.Path, Action: f.Action,
	}
	if rerr := a.renderTo(a.sys.IO.ErrOut, r.s, "failure", view); rerr != nil {
		return rerr
	}
	return a.finishQuiet(r, f.Outcome, f.Code)
}

// Notify implements resumeflow.Host: each event where it has always been
// shown.
func (h *flowHost) Notify(ev resumeflow.Event) error {
	a, r, out, errOut := h.a, h.r, h.out, h.a.sys.IO.ErrOut
	res := ev.Result
	switch ev.Kind {
	case resumeflow.EvAutopilotSwitched:
		fmt.Fprintf(errOut, "Autopilot stopped (%s).\nA terminal is attached: switching to interactive mode.\n\n", templates.Safe(ev.Reason))
	case resumeflow.EvCancelled:
		fmt.Fprintln(errOut, "Cancelled: nothing was changed.")
	case resumeflow.EvNotApproved:
		fmt.Fprintln(errOut, "Not approved: nothing was changed.")
	case resumeflow.EvNoTerminal:
		if ev.Preflight {
			fmt.Fprintf(errOut, "orchestrate: pre-flight needs an explicit approval and there is no terminal: pass %s\n", ev.Flags)
		} else {
			fmt.Fprintf(errOut, "orchestrate: confirmation needed and there is no terminal: pass %s\n", ev.Flags)
		}
	case resumeflow.EvRestarting:
		fmt.Fprintln(out, "Restarting from the first phase (existing artifacts are kept).")
	case resumeflow.EvCannotRestart:
		fmt.Fprintf(out, "Cannot restart: %s\n", templates.Safe(ev.Finding.Message))
		if ev.CleanupHint {
			fmt.Fprintf(out, "To archive the stale state instead, run: orchestrate cleanup %s\n", templates.Safe(ev.ID))
		}
	case resumeflow.EvLockLeft:
		fmt.Fprintln(errOut, "Lock left in place: nothing was changed.")
	case resumeflow.EvDispatched:
		a.gitignoreNotice(out, r)
		r.handoff = &jsondoc.Handoff{Envelope: rel(r.s.Root, res.EnvelopePath), IdempotencyKey: res.IdempotencyKey, Command: res.Command, Agent: res.Agent}
	case resumeflow.EvTookOverStale:
		fmt.Fprintf(errOut, "Took over the stale lock of pid %d on %s.\n", res.TookOverStale.PID, templates.Safe(res.TookOverStale.Host))
	case resumeflow.EvHandingOffAgain:
		fmt.Fprintf(out, "Handing %s off again at the same phase (logged as again).\n", templates.Safe(ev.ID))
	case resumeflow.EvAlreadyHandedOff:
		fmt.Fprint(out, alreadyHandedOff(r.s, ev.ID, res))
	case resumeflow.EvUnconfirmed:
		fmt.Fprintf(out, "The previous handoff of %s was dispatched but its command never started (unconfirmed): handing it off again.\n", templates.Safe(ev.ID))
	case resumeflow.EvHandedOff:
		if h.shown {
			fmt.Fprintf(out, "Handed off to @%s (%s).\n", templates.Safe(strings.TrimPrefix(res.Agent, "@")), templates.Safe(res.Command))
			return nil
		}
		return a.renderTo(out, r.s, "confirmation", a.confirmationView(r, res, false))
	}
	return nil
}

// Finish implements resumeflow.Host.
func (h *flowHost) Finish(e resumeflow.End) error {
	if e.Reason != "" {
		h.r.reason = e.Reason
	}
	if e.Quiet {
		return h.a.finishQuiet(h.r, e.Outcome, e.Code)
	}
	return h.a.finishResume(h.r, e.Outcome, e.Code, e.Err)
}

// finishQuiet ends the run after the blocks were printed: JSON when asked,
// and the exit code.
func (a *app) finishQuiet(r *resumeRun, outcome string, code int) error {
	r.outcome, r.exit = outcome, code
	a.githubSummary(r)
	if r.opts.JSON {
		if err := jsondoc.Write(a.sys.IO.Out, a.resumeDoc(r)); err != nil {
			return err
		}
	}
	return cmdutil.Silent(code)
}

// reasonAlreadyHandedOff is the --json "reason" of a resume handed off
// before (see resumeDoc.Reason; the others are resumeflow's Reason*).
const reasonAlreadyHandedOff = resumeflow.ReasonAlreadyHandedOff

// confirmationView feeds the confirmation template; running is set when it
// is shown before the orchestrator command runs.
func (a *app) confirmationView(r *resumeRun, res handoff.Result, running bool) views.Confirmation {
	c := r.selected
	phase := r.plan.ResumeName
	if phase == "" {
		phase = r.plan.ResumeFrom.Phase
	}
	if r.plan.Position.Kind != "" {
		phase = views.ResumePoint(r.plan)
	}
	v := views.Confirmation{
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

// rel shows path relative to root when it is inside it (resumeflow.Rel).
func rel(root, path string) string { return resumeflow.Rel(root, path) }
