package resumeflow

import (
	"fmt"
	"strings"

	"github.com/orchestrate-dev/orchestrate/app/loaded"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/planfile"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/templates"
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
	Session   *loaded.Session
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
// moved (a *RefusedPlan), the decision is now to halt, or it asks and was
// not approved. Nil means it may be handed off without prompting.
func CheckSaved(path string, saved planfile.File, e Evaluated) error {
	if changes := planfile.Compare(saved.Deps, PlanDeps(e)); len(changes) > 0 {
		return &RefusedPlan{Path: path, Changes: changes, Next: NextPlanCommands(path, saved)}
	}
	switch {
	case e.Plan.Decision == modes.DecisionHalt:
		return fmt.Errorf("cannot apply the plan %s: %s", path, e.Plan.Reason)
	case e.Plan.Decision == modes.DecisionAsk && !saved.Approved:
		next := NextPlanCommands(path, saved)
		return &RefusedPlan{Path: path, Why: "it was not approved (" + e.Plan.Reason + ")", Next: next}
	}
	return nil
}

// RefusedPlan is why a saved plan is not applied: what it depends on that
// moved (Changes), or another reason (Why), and the commands that write a
// new, approved plan and apply it (Next). Its message spans several lines:
// MessageLines gives them one by one, each safe to escape on its own.
type RefusedPlan struct {
	Path    string
	Why     string
	Changes []planfile.Change
	Next    []string
}

// MessageLines are the lines of the message.
func (e *RefusedPlan) MessageLines() []string {
	var lines []string
	if len(e.Changes) > 0 {
		lines = append(lines, fmt.Sprintf("cannot apply the plan %s: the repository moved since it was made:", e.Path))
		for _, c := range e.Changes {
			lines = append(lines, "  - "+c.Message)
		}
	} else {
		lines = append(lines, fmt.Sprintf("cannot apply the plan %s: %s", e.Path, e.Why))
	}
	if len(e.Next) > 0 {
		lines = append(lines, "Review the dry run, write a new approved plan, then apply it:")
		for _, n := range e.Next {
			lines = append(lines, "  "+n)
		}
	}
	return lines
}

// Error implements error.
func (e *RefusedPlan) Error() string { return strings.Join(e.MessageLines(), "\n") }

// NextPlanCommands are the commands that write the saved plan at path
// again from the repository as it is now, with the plan's workflow, mode
// and options and with --approve (a plan is applied without prompting only
// when approved), then apply it.
func NextPlanCommands(path string, saved planfile.File) []string {
	args := []string{"orchestrate", "resume", templates.ShellWord(saved.WorkflowID), "--dry-run"}
	if saved.Mode != "" {
		args = append(args, "--mode", templates.ShellWord(saved.Mode))
	}
	if saved.Forced {
		args = append(args, "--force")
	}
	if saved.Restart {
		args = append(args, "--restart")
	}
	if saved.FromPhase != "" {
		args = append(args, "--from-phase", templates.ShellWord(saved.FromPhase))
	}
	args = append(args, "--approve", "--plan-out", templates.ShellWord(path))
	return []string{strings.Join(args, " "), "orchestrate resume --plan " + templates.ShellWord(path)}
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
