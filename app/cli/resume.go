package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/app/cli/jsondoc"
	"github.com/orchestrate-dev/orchestrate/app/cli/views"
	"github.com/orchestrate-dev/orchestrate/app/resumeflow"
	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/templates"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// ResumeOptions are the dependencies, flags and argument of
// `orchestrate resume`.
type ResumeOptions struct {
	Deps Deps

	Workflow  string
	Mode      string
	DryRun    bool
	JSON      bool
	Approve   bool
	Force     bool
	Restart   bool
	FromPhase string
	PlanOut   string // --plan-out: write the dry run's plan there
	Plan      string // --plan: apply the saved plan there
	Again     bool
	// FindSession: --find-session (app/cli/agentcmd.go).
	FindSession bool

	// passed are the workflows an unnamed autopilot run found taken on the
	// shared lifecycle when it came to take them (held, or just handed off
	// by another runner): the run starts over without them.
	passed map[string]bool
}

func (a *app) newResumeCmd() *cobra.Command {
	opts := &ResumeOptions{}
	cmd := &cobra.Command{
		Use:   "resume [WORKFLOW]",
		Short: "Resume an interrupted workflow",
		Long: `Find every saved state, validate it against the repository, work out where to pick
up, let the mode decide, and hand the work to the orchestrator.

WORKFLOW is a candidate id (sdc:4.2, qa-loop:2.1, epic:EPIC-ACT, spec:login,
workflow:<execution id>), its key alone, a unique prefix of either, or a story id.
Without it the most recent interrupted workflow is taken (interactive mode asks).

Modes: autopilot (no prompt; resumes clean states, halts on conflicts or staleness),
interactive (default; shows the summary and asks), preflight (full report, then a typed
"proceed" or --approve). The mode comes from --mode, ORCHESTRATE_MODE, resume.mode in
the config, the mode the workflow was started in, else interactive.

A resume already handed off is not handed off again at the same phase unless --again is
given; autopilot skips a workflow handed off within resume.rehandoff_after (default 1h)
and takes the next one. A handoff whose command never started is offered again.

` + cmdutil.ExitCodesHelp,
		Args: cmdutil.Positional(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Workflow = args[0]
			}
			opts.Deps = a.deps()
			return runResume(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Mode, "mode", "", "autopilot, interactive or preflight")
	f.BoolVar(&opts.DryRun, "dry-run", false, "discover, validate and plan; print; change nothing (exit code as the real run)")
	f.BoolVar(&opts.JSON, "json", false, "print one JSON document on stdout (schema orchestrate/v1)")
	f.BoolVar(&opts.Approve, "approve", false, "the explicit approval pre-flight requires, for non-interactive use")
	f.BoolVar(&opts.Force, "force", false, "resume over conflicts (never over missing critical files); logged as forced")
	f.BoolVar(&opts.Restart, "restart", false, "start the workflow from its first phase, keeping existing artifacts")
	f.StringVar(&opts.FromPhase, "from-phase", "", "start from a named phase when earlier phases are still valid")
	f.StringVar(&opts.PlanOut, "plan-out", "", "with --dry-run: save the plan to FILE, to apply later with --plan")
	f.StringVar(&opts.Plan, "plan", "", "apply the plan saved in FILE, without prompting, if nothing it depends on changed")
	f.BoolVar(&opts.Again, "again", false, "hand the same workflow and phase off again although it was handed off before; logged as again")
	addFindSessionFlag(f, opts)
	return cmd
}

// resumeRun is everything one resume decided, for rendering.
type resumeRun struct {
	opts      *ResumeOptions
	s         *loadedRepo
	mode      modes.Mode
	all       []workflow.Candidate // resumable candidates
	selected  *workflow.Candidate
	report    validate.Report
	plan      plan.Plan
	findings  []workflow.Finding
	outcome   string
	exit      int
	situation modes.Situation
	code      int  // the exit code the decision implies
	chosen    bool // the user chose the candidate at a prompt
	forced    bool // the user chose to resume over conflicts
	restarted bool // the user chose to restart from scratch
	handoff   *jsondoc.Handoff
	command   *jsondoc.Command   // the command's own result, when it failed (exit 18)
	rehandoff map[string]bool    // handed off longer than resume.rehandoff_after ago (lifecycle.go)
	reason    string             // why nothing was done (--json "reason"), e.g. already_handed_off
	restartOK bool               // a halt a restart from the first phase would get past
	shared    *sharedState       // lifecycle.remote: the shared lifecycle as fetched once
	holder    *jsondoc.Holder    // another runner's live lease (reason held_remotely)
	ghDone    bool               // the GitHub Actions summary was written
	listed    []*validate.Report // the validations of all, for the pick list's ages (multipleView)
}

// runResume runs `orchestrate resume` with opts (no terminal needed: the
// streams, prompter and clock are opts.Deps').
func runResume(opts *ResumeOptions) error {
	return opts.Deps.app().runResume(opts)
}

func (a *app) runResume(opts *ResumeOptions) error {
	fastsys.Allow() // raw file-system calls until a signal handler Holds them off (internal/fastsys)
	if opts.Mode != "" {
		// --mode is the first of flag > env > config > recorded > interactive
		a.v.Set("resume.mode", opts.Mode)
	}
	if opts.Restart && opts.FromPhase != "" {
		return cmdutil.Usagef("--restart and --from-phase cannot be used together")
	}
	if err := checkPlanFlags(opts); err != nil {
		return err
	} else if opts.Plan != "" {
		return a.applyPlan(opts)
	}
	s, err := a.load()
	if err != nil {
		return err
	}
	a.reportGlobalFindings(s)
	if opts.DryRun {
		a.trustNotice(s)
	}
	r := &resumeRun{opts: opts, s: s, all: s.Resumable()}
	if len(opts.passed) > 0 {
		kept := r.all[:0:0]
		for _, c := range r.all {
			if !opts.passed[c.ID] {
				kept = append(kept, c)
			}
		}
		r.all = kept
		if len(r.all) == 0 {
			return a.finishResume(r, "none", cmdutil.ExitOK, errors.New("nothing to resume: every interrupted workflow was taken by another runner on the shared lifecycle (lifecycle.remote)"))
		}
	}

	// The mode: flag > env > config > the mode the workflow was started in > interactive.
	if r.mode, err = resumeMode(s.conf, opts.Mode); err != nil {
		return err
	}
	if r.mode == "" && opts.Workflow == "" {
		if r.mode = resumeflow.RunMode(r.all); r.mode != "" {
			a.debugf("mode: every interrupted workflow was started in autopilot: autopilot")
		}
	}

	// The shared lifecycle (lifecycle.remote): one fetch. Unusable: exit
	// 20 before anything runs (a dry run plans, then exits 20).
	r.shared = a.sharedLifecycle(s)
	if r.shared.err != nil && !opts.DryRun {
		r.reason = reasonSharedUnusable
		return a.finishResume(r, "error", cmdutil.ExitShared, sharedUnusable(r.shared.err))
	}
	if !r.shared.on() {
		a.ciWarning(s, r.mode)
	}
	var sharedView *resumeflow.Shared
	if r.shared.view != nil {
		sharedView = r.shared.view
	}

	// Selection.
	if opts.Workflow != "" {
		sel := resumeflow.Select(s.Res.Candidates, opts.Workflow)
		r.selected = sel.Candidate
		if sel.Err != nil {
			return a.finishResume(r, sel.Outcome, int(sel.Code), sel.Err)
		}
	} else {
		if len(r.all) == 0 {
			return a.finishResume(r, "none", cmdutil.ExitOK, nil)
		}
		if r.all, r.rehandoff, err = a.skipHandedOff(s, r.all, r.mode, sharedView); len(r.all) == 0 {
			return a.finishResume(r, "none", cmdutil.ExitOK, err)
		}
		idx, end, err := resumeflow.Pick(len(r.all), r.mode, opts.DryRun, a.sys.IO.CanPrompt(), func() (int, error) { return a.chooseCandidate(r) })
		switch {
		case end != nil:
			return a.finishResume(r, end.Outcome, end.Code, end.Err)
		case err != nil:
			return a.cancelled(r, err)
		}
		c := r.all[idx]
		r.selected = &c
	}
	if r.mode == "" {
		// The mode the workflow was started in (resumeflow.SelectedMode).
		var why string
		var downgraded bool
		if r.mode, why, downgraded = resumeflow.SelectedMode(*r.selected, r.chosen); why != "" {
			a.debugf("%s", why)
		}
		if downgraded {
			fmt.Fprintf(a.sys.IO.ErrOut, "%s was started in autopilot; chosen from the list, it is resumed in interactive mode (orchestrate resume %s --mode autopilot resumes it without questions).\n", templates.Safe(r.selected.ID), templates.Safe(r.selected.ID))
		}
	}
	if stop, err := a.takeSelected(r, plan.Options{Restart: opts.Restart, FromPhase: opts.FromPhase}); stop || err != nil {
		return err
	}
	if opts.DryRun {
		code := int(resumeflow.DryRunCode(resumeflow.DryRun{
			CanPrompt: a.sys.IO.CanPrompt(), NamedWorkflow: r.opts.Workflow != "", Resumable: len(r.all),
			Mode: r.mode, Decision: r.plan.Decision, Approve: r.opts.Approve,
			Situation: r.situation, Code: exitcode.Code(r.code),
		}))
		outcome := "planned"
		if code == cmdutil.ExitTerminal {
			outcome = "terminal"
		}
		if code == cmdutil.ExitNoTTY {
			fmt.Fprintf(a.sys.IO.ErrOut, "Dry run: without a terminal the real run would stop to ask (exit 19); %s.\n", noTTYAnswer(r))
		}
		if opts.PlanOut != "" {
			if err := a.savePlan(r); err != nil {
				return err
			}
		}
		if r.shared.err != nil {
			// the plan is printed; the real run would stop at the remote
			r.reason = reasonSharedUnusable
			fmt.Fprintf(a.sys.IO.ErrOut, "orchestrate: dry run: %s\n", cmdutil.SafeErr(sharedUnusable(r.shared.err)))
			return a.finishResume(r, outcome, cmdutil.ExitShared, nil)
		}
		if l, held := sharedView.HeldBy(r.selected.ID, s.Now); held && opts.Workflow != "" {
			fmt.Fprintf(a.sys.IO.ErrOut, "Dry run: the real run would stop: %s (exit 16).\n", cmdutil.SafeErr(heldRemotely(r.selected.ID, l)))
			r.reason, r.holder = reasonHeldRemotely, jsondoc.NewHolder(l)
			return a.finishResume(r, "locked", cmdutil.ExitLocked, nil)
		}
		return a.finishResume(r, outcome, code, nil)
	}
	return a.act(r)
}

// takeSelected runs the steps between choosing r.selected and acting on
// it: a corrupt state is rebuilt, a workflow locked here or held on the
// shared lifecycle is refused, then it is evaluated (popts). stop is set
// when the run ended (its result is err).
func (a *app) takeSelected(r *resumeRun, popts plan.Options) (stop bool, err error) {
	s, opts := r.s, r.opts
	if err := a.rebuildIfCorrupt(r); err != nil {
		return true, err
	}
	var sharedView *resumeflow.Shared
	if r.shared != nil {
		sharedView = r.shared.view
	}
	if end, held, ok := resumeflow.TakeGate(s.Root, r.selected.ID, sharedView, s.Now, opts.DryRun); !ok {
		if held != nil {
			r.reason, r.holder = end.Reason, jsondoc.NewHolder(*held)
		}
		return true, a.finishResume(r, end.Outcome, end.Code, end.Err)
	}
	return false, a.evaluate(r, popts)
}

// chooseCandidate asks which of r.all to resume: the list's heading, then
// the list once, as the prompt's options. The heading goes where the
// prompt is drawn (stderr) unless stdout is the terminal too, so that it
// never lands after the question when stdout is a pipe.
func (a *app) chooseCandidate(r *resumeRun) (int, error) {
	out := a.sys.IO.ErrOut
	if a.sys.IO.OutTTY && !r.opts.JSON {
		out = a.sys.IO.Out
	}
	if err := a.renderTo(out, r.s, "multiple", a.multipleView(r, false, false)); err != nil {
		return 0, err
	}
	i, err := modes.ChooseCandidate(a.prompter(), views.CandidateLabels(a.multipleView(r, false, true)))
	if err != nil {
		return 0, err
	}
	r.chosen = true
	return i, nil
}

// evaluate validates the selected candidate, builds its plan and lets the
// mode decide (resumeflow.Evaluate); it fills r.report, r.plan, r.findings,
// r.situation and r.code.
func (a *app) evaluate(r *resumeRun, popts plan.Options) error {
	ev, err := resumeflow.Evaluate(r.s.Session, resumeflow.Input{
		Candidate: *r.selected, Mode: r.mode,
		Force: r.opts.Force || r.forced, Approve: r.opts.Approve,
		Candidates: len(r.all), Selected: r.opts.Workflow != "" || r.chosen,
		Plan: popts,
	})
	if err != nil {
		var ue *plan.UsageError
		if errors.As(err, &ue) {
			return cmdutil.Usagef("%v", err)
		}
		return err
	}
	r.report, r.plan, r.findings, r.situation, r.code = ev.Report, ev.Plan, ev.Findings, ev.Situation, ev.Code
	r.restartOK = ev.RestartOK
	r.s.SaveCaches() // before a prompt or the handoff, which can take long
	a.debugDecision(r)
	return nil
}

// finishResume prints the outcome (JSON or human) and returns the exit code.
func (a *app) finishResume(r *resumeRun, outcome string, code int, msg error) error {
	r.outcome, r.exit = outcome, code
	a.githubSummary(r)
	if r.opts.JSON {
		doc := a.resumeDoc(r)
		if msg != nil {
			doc.Error = cmdutil.SafeErr(msg)
			doc.Changed = jsondoc.ChangedOf(msg)
		}
		if err := jsondoc.Write(a.sys.IO.Out, doc); err != nil {
			return err
		}
		if msg != nil {
			fmt.Fprintf(a.sys.IO.ErrOut, "orchestrate: %s\n", cmdutil.SafeErr(msg))
		}
		return cmdutil.Silent(code)
	}
	if outcome == "declined" || r.selected == nil && msg == nil && outcome != "none" {
		return cmdutil.Silent(code)
	}
	if outcome == "none" && msg == nil {
		fmt.Fprintf(a.sys.IO.Out, "No interrupted workflows found in %s.\nNothing to resume: this is not a failure. Run 'orchestrate status --all' to see every saved state, or start a new workflow.\n", r.s.Root)
		return nil
	}
	if msg != nil {
		if code == cmdutil.ExitOK {
			fmt.Fprintln(a.sys.IO.Out, cmdutil.SafeErr(msg))
			return nil
		}
		return &cmdutil.ExitErr{Code: code, Err: msg}
	}
	if err := a.printBlocks(a.sys.IO.Out, r); err != nil {
		return err
	}
	return cmdutil.Silent(code)
}

// resumeDoc builds the --json document.
func (a *app) resumeDoc(r *resumeRun) jsondoc.Resume {
	doc := jsondoc.Resume{Schema: jsondoc.Schema, Command: "resume", Outcome: r.outcome, ExitCode: r.exit, Mode: string(r.mode), DryRun: r.opts.DryRun,
		Candidates: []jsondoc.Candidate{}, Findings: []workflow.Finding{}}
	if doc.Mode == "" {
		doc.Mode = "interactive"
	}
	ageClass := func(d time.Duration) string { return validate.ClassifyAge(d, r.s.Cfg.Age) }
	for _, c := range r.all {
		var rep *validate.Report
		if r.selected != nil && c.ID == r.selected.ID && r.report.Status != "" {
			rep = &r.report
		}
		doc.Candidates = append(doc.Candidates, jsondoc.NewCandidate(c, rep, r.s.Now, false, ageClass))
	}
	doc.Handoff = r.handoff
	doc.Trust = trustDoc(r.s)
	doc.CommandResult = r.command
	doc.Reason = r.reason
	doc.Holder = r.holder
	if r.selected != nil {
		id := r.selected.ID
		doc.Selected = &id
		if r.report.Status != "" {
			doc.Findings = r.findings
			if doc.Findings == nil {
				doc.Findings = []workflow.Finding{}
			}
			p := r.plan
			doc.Plan = &p
		}
	}
	return doc
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// noTTYAnswer names what answers, without a terminal, the question a run
// would ask: the workflow to take, or the flags that approve.
func noTTYAnswer(r *resumeRun) string {
	switch {
	case r.opts.Workflow == "" && len(r.all) > 1 && r.mode != modes.ModeAutopilot:
		return "name the workflow to resume (orchestrate resume WORKFLOW; orchestrate status lists them)"
	case r.situation.Conflicts && !r.situation.Force:
		return "pass --force --approve to resume over the conflicts, or resolve them first"
	}
	return "pass --approve to go ahead without the question"
}
