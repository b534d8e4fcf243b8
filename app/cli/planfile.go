package cli

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/app/resumeflow"
	"github.com/orchestrate-dev/orchestrate/internal/planfile"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/templates"
)

// Saved plans (--plan-out, --plan): the flags, the messages and the exit
// codes; what a plan holds and when it applies is app/resumeflow's.

// planKeyEnv names the environment variable holding the plan signing key.
const planKeyEnv = "ORCHESTRATE_PLAN_KEY"

// checkPlanFlags refuses the flag combinations a saved plan cannot take.
func checkPlanFlags(opts *ResumeOptions) error {
	if opts.PlanOut != "" && !opts.DryRun {
		return cmdutil.Usagef("--plan-out writes the plan of a dry run: add --dry-run")
	}
	if opts.Plan == "" {
		return nil
	}
	switch {
	case opts.PlanOut != "":
		return cmdutil.Usagef("--plan and --plan-out cannot be used together")
	case opts.DryRun:
		return cmdutil.Usagef("--plan applies a saved plan: it cannot be a dry run (run the plan's dry run again instead)")
	case opts.Workflow != "":
		return cmdutil.Usagef("--plan applies the workflow the plan names: drop the WORKFLOW argument %q", opts.Workflow)
	case opts.Mode != "" || opts.Approve || opts.Force || opts.Restart || opts.FromPhase != "":
		return cmdutil.Usagef("--plan takes its mode, approval, --force, --restart and --from-phase from the plan: write a new plan to change them")
	}
	return nil
}

// planKey is the signing key, empty when none is set.
func (a *app) planKey() []byte {
	return []byte(a.sys.Getenv(planKeyEnv))
}

// evaluated is the evaluated run r as a saved plan sees it.
func (a *app) evaluated(r *resumeRun) resumeflow.Evaluated {
	e := resumeflow.Evaluated{
		Session: r.s.Session, Candidate: *r.selected, Plan: r.plan, Report: r.report, Mode: r.mode, Version: Version,
		Approve: r.opts.Approve, Force: r.opts.Force, Restart: r.opts.Restart, FromPhase: r.opts.FromPhase,
	}
	if r.s.conf != nil && r.s.conf.Repo != nil {
		e.RepoFile = r.s.conf.Repo.Rel
	}
	return e
}

// savePlan writes the plan of the dry run r to --plan-out. A run that would
// halt writes nothing (there is nothing to apply); the dry run's exit code
// is kept either way.
func (a *app) savePlan(r *resumeRun) error {
	path := r.opts.PlanOut
	if r.selected == nil || r.plan.Decision == "" {
		fmt.Fprintf(a.sys.IO.ErrOut, "No plan written to %s: no workflow was planned.\n", path)
		return nil
	}
	if r.plan.Decision == modes.DecisionHalt {
		fmt.Fprintf(a.sys.IO.ErrOut, "No plan written to %s: the resume would not proceed (%s).\n", path, r.plan.Reason)
		return nil
	}
	key := a.planKey()
	f := resumeflow.PlanFile(a.evaluated(r))
	if _, err := planfile.Save(path, f, key); err != nil {
		return cmdutil.Exitf(cmdutil.ExitError, "--plan-out %s: %w", path, err)
	}
	signed := "signed with " + planKeyEnv
	if len(key) == 0 {
		signed = "unsigned: set " + planKeyEnv + " to sign it"
	}
	fmt.Fprintf(a.sys.IO.ErrOut, "Plan written to %s (%s). Apply it with: orchestrate resume --plan %s\n", path, signed, path)
	if r.plan.Decision == modes.DecisionAsk && !r.opts.Approve {
		fmt.Fprintf(a.sys.IO.ErrOut, "This plan needs an approval before it can be applied: write it again with --approve: %s\n", templates.Safe(resumeflow.NextPlanCommands(path, f)[0]))
	}
	return nil
}

// applyPlan applies the saved plan of --plan: it loads and verifies it,
// re-derives the plan of its workflow from the repository as it is now
// (with the plan's mode, approval and options), refuses with exit 17 and
// the list of what moved when any dependency differs, and otherwise hands
// off without prompting.
func (a *app) applyPlan(opts *ResumeOptions) error {
	key := a.planKey()
	saved, err := planfile.Load(opts.Plan, key)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return cmdutil.Usagef("--plan %s: no such file", opts.Plan)
		}
		return cmdutil.Exitf(cmdutil.ExitCannot, "refusing the plan: %w", err)
	}
	if !saved.Signed() {
		fmt.Fprintf(a.sys.IO.ErrOut, "Warning: the plan %s is not signed: its self-check detects accidental edits, not tampering (set %s when writing and applying plans).\n", opts.Plan, planKeyEnv)
	}
	mode, err := modes.ParseMode(saved.Mode)
	if err != nil {
		return cmdutil.Exitf(cmdutil.ExitCannot, "refusing the plan %s: %w", opts.Plan, err)
	}
	s, err := a.load()
	if err != nil {
		return err
	}
	a.reportGlobalFindings(s)
	opts.Approve, opts.Force, opts.Restart, opts.FromPhase = saved.Approved, saved.Forced, saved.Restart, saved.FromPhase
	r := &resumeRun{opts: opts, s: s, all: s.Resumable(), mode: mode}
	if r.selected = resumeflow.PlannedWorkflow(s.Res.Candidates, saved.WorkflowID); r.selected == nil {
		return a.finishResume(r, "halted", cmdutil.ExitCannot, fmt.Errorf("cannot apply the plan %s: the workflow %s is gone (its state file %s was removed or rewritten); make a new plan", opts.Plan, saved.WorkflowID, saved.StateFile))
	}
	if err := a.evaluate(r, plan.Options{Restart: saved.Restart, FromPhase: saved.FromPhase}); err != nil {
		return err
	}
	if err := resumeflow.CheckSaved(opts.Plan, saved, a.evaluated(r)); err != nil {
		return a.finishResume(r, "halted", cmdutil.ExitCannot, err)
	}
	fmt.Fprintf(a.sys.IO.ErrOut, "Applying the plan %s (made %s): nothing it depends on has changed.\n", opts.Plan, saved.CreatedAt.UTC().Format("2006-01-02 15:04:05Z"))
	return a.flow(r).ApplySaved()
}
