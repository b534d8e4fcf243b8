package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/planfile"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Saved plans: `resume --dry-run --plan-out FILE` writes the plan the dry
// run made, with a digest of everything it depends on; `resume --plan FILE`
// re-derives that plan from the repository as it is now and hands off
// without prompting only when nothing moved (see docs/SECURITY.md).

// planKeyEnv names the environment variable holding the plan signing key.
const planKeyEnv = "ORCHESTRATE_PLAN_KEY"

// checkPlanFlags refuses the flag combinations a saved plan cannot take.
func checkPlanFlags(opts *ResumeOptions) error {
	if opts.PlanOut != "" && !opts.DryRun {
		return usagef("--plan-out writes the plan of a dry run: add --dry-run")
	}
	if opts.Plan == "" {
		return nil
	}
	switch {
	case opts.PlanOut != "":
		return usagef("--plan and --plan-out cannot be used together")
	case opts.DryRun:
		return usagef("--plan applies a saved plan: it cannot be a dry run (run the plan's dry run again instead)")
	case opts.Workflow != "":
		return usagef("--plan applies the workflow the plan names: drop the WORKFLOW argument %q", opts.Workflow)
	case opts.Mode != "" || opts.Approve || opts.Force || opts.Restart || opts.FromPhase != "":
		return usagef("--plan takes its mode, approval, --force, --restart and --from-phase from the plan: write a new plan to change them")
	}
	return nil
}

// planKey is the signing key, empty when none is set.
func (a *app) planKey() []byte {
	return []byte(a.sys.Getenv(planKeyEnv))
}

// planDeps lists what the evaluated run r depends on: the version, the
// workflow, its state file and referenced files (content digests through the
// confined reader), HEAD, the lock, the resume phase, the mode and the
// decision.
func (a *app) planDeps(r *resumeRun) []planfile.Dep {
	s, c := r.s, *r.selected
	max := s.Cfg.MaxFileSize
	deps := []planfile.Dep{
		{Kind: planfile.KindVersion, Digest: "orchestrate " + Version + " (" + planfile.Schema + ")"},
		{Kind: planfile.KindWorkflow, Digest: c.ID},
		{Kind: planfile.KindState, Path: c.Source.Path, Digest: planfile.FileDigest(s.Root, c.Source.Path, max)},
		{Kind: planfile.KindPhase, Digest: r.plan.ResumeFrom.Phase},
		{Kind: planfile.KindMode, Digest: string(r.mode)},
		{Kind: planfile.KindDecision, Digest: r.plan.Decision},
	}
	seen := map[string]bool{c.Source.Path: true}
	addFile := func(p string) {
		if p == "" || seen[p] {
			return
		}
		seen[p] = true
		deps = append(deps, planfile.Dep{Kind: planfile.KindFile, Path: p, Digest: planfile.FileDigest(s.Root, p, max)})
	}
	for _, f := range c.Files {
		addFile(f.Path)
	}
	for _, e := range c.Evidence {
		addFile(e.Path)
	}
	for _, st := range r.report.Stories {
		addFile(st.Path)
	}
	if s.conf != nil && s.conf.Repo != nil {
		addFile(s.conf.Repo.Rel)
	}
	head := planfile.NoHead
	if s.Git != nil {
		if h, err := s.Git.Head(); err == nil && h.Hash != "" {
			head = h.Hash
		}
	}
	deps = append(deps, planfile.Dep{Kind: planfile.KindHead, Digest: head})
	deps = append(deps, planfile.Dep{Kind: planfile.KindLock, Digest: lockDigest(handoff.Inspect(s.Root, c.ID))})
	planfile.SortDeps(deps)
	return deps
}

// lockDigest words the lock of a workflow for a plan.
func lockDigest(st handoff.LockState) string {
	switch {
	case !st.Exists:
		return planfile.LockFree
	case st.Live && st.Reason != "":
		return "held by an untrusted lock file (" + st.Reason + ")"
	case st.Live:
		return fmt.Sprintf("held by pid %d on %s", st.Owner.PID, st.Owner.Host)
	case st.Stale:
		return fmt.Sprintf("stale (pid %d on %s)", st.Owner.PID, st.Owner.Host)
	}
	return "present"
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
	f := planfile.File{
		CreatedAt:  r.s.Now,
		Version:    Version,
		WorkflowID: r.selected.ID,
		Phase:      r.plan.ResumeFrom.Phase,
		Mode:       string(r.mode),
		Decision:   r.plan.Decision,
		Reason:     r.plan.Reason,
		Approved:   r.opts.Approve,
		Forced:     r.opts.Force,
		Restart:    r.opts.Restart,
		FromPhase:  r.opts.FromPhase,
		StateFile:  r.selected.Source.Path,
		Agent:      r.plan.ResumeFrom.Agent,
		Remaining:  r.plan.RemainingPhases,
		Deps:       a.planDeps(r),
	}
	if _, err := planfile.Save(path, f, key); err != nil {
		return exitf(ExitError, "--plan-out %s: %w", path, err)
	}
	signed := "signed with " + planKeyEnv
	if len(key) == 0 {
		signed = "unsigned: set " + planKeyEnv + " to sign it"
	}
	fmt.Fprintf(a.sys.IO.ErrOut, "Plan written to %s (%s). Apply it with: orchestrate resume --plan %s\n", path, signed, path)
	if r.plan.Decision == modes.DecisionAsk && !r.opts.Approve {
		fmt.Fprintf(a.sys.IO.ErrOut, "This plan needs an approval before it can be applied: write it again with --approve.\n")
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
			return usagef("--plan %s: no such file", opts.Plan)
		}
		return exitf(ExitCannot, "refusing the plan: %w", err)
	}
	if !saved.Signed() {
		fmt.Fprintf(a.sys.IO.ErrOut, "Warning: the plan %s is not signed: its self-check detects accidental edits, not tampering (set %s when writing and applying plans).\n", opts.Plan, planKeyEnv)
	}
	mode, err := modes.ParseMode(saved.Mode)
	if err != nil {
		return exitf(ExitCannot, "refusing the plan %s: %w", opts.Plan, err)
	}
	s, err := a.load()
	if err != nil {
		return err
	}
	a.reportGlobalFindings(s)
	opts.Approve, opts.Force, opts.Restart, opts.FromPhase = saved.Approved, saved.Forced, saved.Restart, saved.FromPhase
	r := &resumeRun{opts: opts, s: s, all: s.Resumable(), mode: mode}
	if r.selected = plannedWorkflow(s.Res.Candidates, saved.WorkflowID); r.selected == nil {
		return a.finishResume(r, "halted", ExitCannot, fmt.Errorf("cannot apply the plan %s: the workflow %s is gone (its state file %s was removed or rewritten); make a new plan", opts.Plan, saved.WorkflowID, saved.StateFile))
	}
	if err := a.evaluate(r, plan.Options{Restart: saved.Restart, FromPhase: saved.FromPhase}); err != nil {
		return err
	}
	if changes := planfile.Compare(saved.Deps, a.planDeps(r)); len(changes) > 0 {
		lines := make([]string, len(changes))
		for i, c := range changes {
			lines[i] = "  - " + c.Message
		}
		return a.finishResume(r, "halted", ExitCannot, fmt.Errorf("cannot apply the plan %s: the repository moved since it was made:\n%s\nReview it again: orchestrate resume --dry-run --plan-out %s", opts.Plan, strings.Join(lines, "\n"), opts.Plan))
	}
	switch {
	case r.plan.Decision == modes.DecisionHalt:
		return a.finishResume(r, "halted", ExitCannot, fmt.Errorf("cannot apply the plan %s: %s", opts.Plan, r.plan.Reason))
	case r.plan.Decision == modes.DecisionAsk && !saved.Approved:
		return a.finishResume(r, "halted", ExitCannot, fmt.Errorf("cannot apply the plan %s: it was not approved (%s); write it with --approve: orchestrate resume %s --dry-run --approve --plan-out %s", opts.Plan, r.plan.Reason, saved.WorkflowID, opts.Plan))
	}
	out := a.humanOut(opts)
	fmt.Fprintf(a.sys.IO.ErrOut, "Applying the plan %s (made %s): nothing it depends on has changed.\n", opts.Plan, saved.CreatedAt.UTC().Format("2006-01-02 15:04:05Z"))
	if err := a.printBlocks(out, r); err != nil {
		return err
	}
	if err := a.requireRepoTrust(r); err != nil {
		return err
	}
	return a.handOff(r, out)
}

// plannedWorkflow is a copy of the candidate whose id is exactly id, nil
// when there is none.
func plannedWorkflow(cands []workflow.Candidate, id string) *workflow.Candidate {
	for i := range cands {
		if cands[i].ID == id {
			c := cands[i]
			return &c
		}
	}
	return nil
}
