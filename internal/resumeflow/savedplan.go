package resumeflow

import (
	"fmt"
	"strings"

	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/planfile"
	"github.com/orchestrate-dev/orchestrate/internal/session"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Saved plans: `resume --dry-run --plan-out FILE` writes the plan the dry
// run made, with a digest of everything it depends on; `resume --plan FILE`
// re-derives that plan from the repository as it is now and hands off
// without prompting only when nothing moved (see docs/SECURITY.md).

// Evaluated is a resume evaluated for a saved plan: the candidate, its plan
// and validation, the mode, and the flags the plan carries.
type Evaluated struct {
	Session   *session.Session
	Candidate workflow.Candidate
	Plan      plan.Plan
	Report    validate.Report
	Mode      modes.Mode
	// RepoFile is the repository configuration file (root-relative), ""
	// when there is none.
	RepoFile string
	// Version is orchestrate's version.
	Version                 string
	Approve, Force, Restart bool
	FromPhase               string
}

// PlanDeps lists what the evaluated run e depends on: the version, the
// workflow, its state file and referenced files (content digests through the
// confined reader), HEAD, the lock, the resume phase, the mode and the
// decision.
func PlanDeps(e Evaluated) []planfile.Dep {
	s, c := e.Session, e.Candidate
	max := s.Cfg.MaxFileSize
	deps := []planfile.Dep{
		{Kind: planfile.KindVersion, Digest: "orchestrate " + e.Version + " (" + planfile.Schema + ")"},
		{Kind: planfile.KindWorkflow, Digest: c.ID},
		{Kind: planfile.KindState, Path: c.Source.Path, Digest: planfile.FileDigest(s.Root, c.Source.Path, max)},
		{Kind: planfile.KindPhase, Digest: e.Plan.ResumeFrom.Phase},
		{Kind: planfile.KindMode, Digest: string(e.Mode)},
		{Kind: planfile.KindDecision, Digest: e.Plan.Decision},
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
	for _, ev := range c.Evidence {
		addFile(ev.Path)
	}
	for _, st := range e.Report.Stories {
		addFile(st.Path)
	}
	addFile(e.RepoFile)
	head := planfile.NoHead
	if s.Git != nil {
		if h, err := s.Git.Head(); err == nil && h.Hash != "" {
			head = h.Hash
		}
	}
	deps = append(deps, planfile.Dep{Kind: planfile.KindHead, Digest: head})
	deps = append(deps, planfile.Dep{Kind: planfile.KindLock, Digest: LockDigest(handoff.Inspect(s.Root, c.ID))})
	planfile.SortDeps(deps)
	return deps
}

// LockDigest words the lock of a workflow for a plan.
func LockDigest(st handoff.LockState) string {
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

// PlanFile is the saved plan of the evaluated dry run e.
func PlanFile(e Evaluated) planfile.File {
	return planfile.File{
		CreatedAt:  e.Session.Now,
		Version:    e.Version,
		WorkflowID: e.Candidate.ID,
		Phase:      e.Plan.ResumeFrom.Phase,
		Mode:       string(e.Mode),
		Decision:   e.Plan.Decision,
		Reason:     e.Plan.Reason,
		Approved:   e.Approve,
		Forced:     e.Force,
		Restart:    e.Restart,
		FromPhase:  e.FromPhase,
		StateFile:  e.Candidate.Source.Path,
		Agent:      e.Plan.ResumeFrom.Agent,
		Remaining:  e.Plan.RemainingPhases,
		Deps:       PlanDeps(e),
	}
}

// CheckSaved says why the saved plan at path cannot be applied to the run
// e, re-evaluated now with the plan's options: something it depends on
// moved, the decision is now to halt, or it asks and was not approved. Nil
// means it may be handed off without prompting.
func CheckSaved(path string, saved planfile.File, e Evaluated) error {
	if changes := planfile.Compare(saved.Deps, PlanDeps(e)); len(changes) > 0 {
		lines := make([]string, len(changes))
		for i, c := range changes {
			lines[i] = "  - " + c.Message
		}
		return fmt.Errorf("cannot apply the plan %s: the repository moved since it was made:\n%s\nReview it again: orchestrate resume --dry-run --plan-out %s", path, strings.Join(lines, "\n"), path)
	}
	switch {
	case e.Plan.Decision == modes.DecisionHalt:
		return fmt.Errorf("cannot apply the plan %s: %s", path, e.Plan.Reason)
	case e.Plan.Decision == modes.DecisionAsk && !saved.Approved:
		return fmt.Errorf("cannot apply the plan %s: it was not approved (%s); write it with --approve: orchestrate resume %s --dry-run --approve --plan-out %s", path, e.Plan.Reason, saved.WorkflowID, path)
	}
	return nil
}

// PlannedWorkflow is a copy of the candidate whose id is exactly id, nil
// when there is none.
func PlannedWorkflow(cands []workflow.Candidate, id string) *workflow.Candidate {
	for i := range cands {
		if cands[i].ID == id {
			c := cands[i]
			return &c
		}
	}
	return nil
}
