package resumeflow

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/orchestrate-dev/orchestrate/app/loaded"
	"github.com/orchestrate-dev/orchestrate/discover/rebuild"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/handoff/cleanup"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Input is what evaluating a candidate needs besides the session.
type Input struct {
	Candidate workflow.Candidate
	Mode      modes.Mode
	// Force: --force, or the user chose to resume over the conflicts.
	Force   bool
	Approve bool
	// Candidates is how many resumable candidates there were to choose from;
	// Selected says the candidate was named or chosen, not taken by default.
	Candidates int
	Selected   bool
	Plan       plan.Options
}

// Evaluation is a candidate validated, planned and decided on.
type Evaluation struct {
	Report    validate.Report
	Plan      plan.Plan // with the mode's Decision and Reason
	Findings  []workflow.Finding
	Situation modes.Situation
	Code      int // the exit code the decision implies
	// RestartOK is set when the decision halts with exit 17 but restarting
	// from the first phase (--restart) would not halt on findings --force
	// cannot override: only then is a restart offered.
	RestartOK bool
}

// Evaluate validates in.Candidate against the repository, builds its plan,
// and lets the mode decide. A bad --from-phase comes back as the plan's
// *plan.UsageError.
func Evaluate(s *loaded.Session, in Input) (Evaluation, error) {
	var ev Evaluation
	c := in.Candidate
	update := startUpdateCheck(s, c)
	ev.Report = s.Validate(c)
	p, err := plan.Build(c, ev.Report, s.Repo.Definition(c.Workflow), PlanEnv(s), in.Plan)
	if err != nil {
		return ev, err
	}
	ev.Plan = p
	ev.Findings = append(append([]workflow.Finding{}, ev.Report.Findings...), p.Findings...)
	ev.Findings = append(ev.Findings, parityFindings(c, in.Mode, p.Terminal, ev.Findings, update)...)
	workflow.SortFindings(ev.Findings)
	ev.Situation = Situation(in, ev.Report, p, ev.Findings)
	decision, reason, code := modes.Decide(ev.Situation)
	ev.Plan.Decision, ev.Plan.Reason = decision, reason
	ev.Code = int(code)
	if decision == modes.DecisionHalt && code == exitcode.Cannot && !in.Plan.Restart && c.Resumable && !p.Terminal {
		ev.RestartOK = restartOK(s, in, ev.Report, update)
	}
	return ev, nil
}

// startUpdateCheck returns handoff.CheckUpdate's answer for c, asked once
// per evaluation (the plan and the restart both need it). When c is likely
// to need it (resumable, readable), the check starts at once in the
// background — it only reads the state file — so that it overlaps the
// validation instead of following it.
func startUpdateCheck(s *loaded.Session, c workflow.Candidate) func() error {
	root, now := s.Root, s.Now
	var once sync.Once
	var err error
	if !c.Resumable || c.Status == rebuild.StatusUnreadable {
		return func() error {
			once.Do(func() { err = handoff.CheckUpdate(root, c, now) })
			return err
		}
	}
	ch := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- fmt.Errorf("checking the state update failed: %v", r)
			}
		}()
		ch <- handoff.CheckUpdate(root, c, now)
	}()
	return func() error {
		once.Do(func() { err = <-ch })
		return err
	}
}

// restartOK reports whether restarting the candidate from its first phase
// would get past the findings --force cannot override (conflicts and
// staleness aside: the restart is the person's choice over them).
func restartOK(s *loaded.Session, in Input, rep validate.Report, update func() error) bool {
	c := in.Candidate
	opts := in.Plan
	opts.Restart, opts.FromPhase = true, ""
	p, err := plan.Build(c, rep, s.Repo.Definition(c.Workflow), PlanEnv(s), opts)
	if err != nil || p.Terminal {
		return false
	}
	findings := append(append([]workflow.Finding{}, rep.Findings...), p.Findings...)
	findings = append(findings, parityFindings(c, modes.ModeInteractive, p.Terminal, findings, update)...)
	rin := in
	rin.Mode, rin.Force, rin.Plan = modes.ModeInteractive, true, opts
	decision, _, _ := modes.Decide(Situation(rin, rep, p, findings))
	return decision != modes.DecisionHalt
}

// Situation is what the mode decides on: the validation, the age, the
// findings by severity (any blocking one makes the validation "conflicts").
func Situation(in Input, rep validate.Report, p plan.Plan, findings []workflow.Finding) modes.Situation {
	sit := modes.Situation{
		Mode: in.Mode, Validation: rep.Status, AgeClass: rep.AgeClass,
		Force: in.Force, Approve: in.Approve, Terminal: p.Terminal, Resumable: in.Candidate.Resumable,
		Candidates: in.Candidates, Selected: in.Selected, Restart: in.Plan.Restart, ID: in.Candidate.ID,
		// a hint never leads to a cleanup that would be refused
		NoCleanup: !cleanup.CleanupOffered(in.Candidate),
	}
	sit.Age = rep.Age
	for _, f := range findings {
		if f.Severity == workflow.Warning {
			sit.Warnings = append(sit.Warnings, f)
		}
		if f.Severity == workflow.Blocking {
			sit.Blocking = append(sit.Blocking, f)
			if f.Check == workflow.CheckConflict {
				sit.Conflicts = true
			}
		}
	}
	if sit.Validation != validate.StatusConflicts && len(sit.Blocking) > 0 {
		sit.Validation = validate.StatusConflicts
	}
	return sit
}

// ParityFindings are what the handoff would refuse, found without writing,
// so that a dry run exits with the code the real run would: a state file
// the update cannot rewrite is blocking; in autopilot, so is a state file
// with wrong-typed fields (autopilot never rewrites a file it only partly
// understood — interactive and pre-flight show the warnings and ask).
// findings are the candidate's findings so far.
func ParityFindings(s *loaded.Session, c workflow.Candidate, mode modes.Mode, terminal bool, findings []workflow.Finding) []workflow.Finding {
	return parityFindings(c, mode, terminal, findings, func() error { return handoff.CheckUpdate(s.Root, c, s.Now) })
}

// parityFindings is ParityFindings with the state-update check's answer
// from update (see startUpdateCheck).
func parityFindings(c workflow.Candidate, mode modes.Mode, terminal bool, findings []workflow.Finding, update func() error) []workflow.Finding {
	if terminal || !c.Resumable {
		return nil
	}
	if c.Status == rebuild.StatusUnreadable {
		return nil // the corruption is reported already (and rebuilt, or blocking)
	}
	var out []workflow.Finding
	if err := update(); err != nil {
		out = append(out, workflow.Finding{
			Check: "handoff", Severity: workflow.Blocking, Code: "state-not-updatable", Path: c.Source.Path,
			Message: fmt.Sprintf("the state file cannot be marked resumed: %v", err),
		})
	}
	if mode == modes.ModeAutopilot {
		n := 0
		for _, f := range findings {
			if f.Check == workflow.CheckParse && f.Severity == workflow.Warning && f.Code == "wrong-type" && f.Path == c.Source.Path {
				n++
			}
		}
		if n > 0 {
			out = append(out, workflow.Finding{
				Check: workflow.CheckParse, Severity: workflow.Blocking, Code: "autopilot-partial-state", Path: c.Source.Path,
				Message: fmt.Sprintf("%s has %d wrong-typed %s: autopilot does not rewrite a state file it only partly understood (resume interactively to review and confirm)", c.Source.Path, n, map[bool]string{true: "field", false: "fields"}[n == 1]),
			})
		}
	}
	return out
}

// PlanEnv is what plan needs of the repository.
func PlanEnv(s *loaded.Session) plan.Env {
	return plan.Env{
		Exists: s.Exists,
		AgentKnown: func(agent string) (bool, bool) {
			return AgentKnown(s.Root, s.Cfg, agent)
		},
	}
}

// AgentKnown looks for an agent definition in the configured folders or the
// config's agents list; anyDefs is false when the repository has none at all.
func AgentKnown(root string, cfg config.Config, agent string) (known, anyDefs bool) {
	agent = strings.TrimPrefix(agent, "@")
	for _, a := range cfg.Agents {
		anyDefs = true
		if strings.TrimPrefix(a, "@") == agent {
			known = true
		}
	}
	for _, d := range cfg.AgentDirs {
		dir := filepath.Join(root, filepath.FromSlash(d))
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			ext := filepath.Ext(name)
			if ext != ".md" && ext != ".yaml" && ext != ".yml" {
				continue
			}
			anyDefs = true
			if strings.TrimSuffix(name, ext) == agent {
				known = true
			}
		}
	}
	return known, anyDefs
}
