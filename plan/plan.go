// Package plan works out where an interrupted workflow picks up (docs/ARCHITECTURE.md):
// the resume point per workflow type, the prerequisites of that point, the
// phases still valid and those that must re-run, and the phases left to
// completion. It takes plain values (a candidate, its validation report, its
// workflow definition, two repository probes) and returns a Plan; the same
// input always gives the same plan, byte for byte, in JSON.
package plan

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// PhaseRef names a completed phase: the plan's last_completed.
type PhaseRef struct {
	Phase  string `json:"phase"`
	Agent  string `json:"agent"`
	Output string `json:"output"`
}

// ResumeFrom is the phase the workflow picks up at, the agent responsible
// for it and the inputs it is handed; Item is the candidate's resume point
// inside that phase (a task, subtask or plan id, the same as
// candidate.resume_point.item and the position's "at"), when the plan
// resumes there.
type ResumeFrom struct {
	Phase  string   `json:"phase"`
	Item   string   `json:"item,omitempty"`
	Agent  string   `json:"agent"`
	Inputs []string `json:"inputs"`
}

// Plan is the resume plan of one candidate: the "plan" object of --json
// plus what the human blocks need. Lists marshal as [] (never null) and
// LastCompleted as null when nothing completed.
type Plan struct {
	WorkflowType    string     `json:"workflow_type"`
	StateSource     string     `json:"state_source"`
	LastCompleted   *PhaseRef  `json:"last_completed"`
	ResumeFrom      ResumeFrom `json:"resume_from"`
	RemainingPhases []string   `json:"remaining_phases"`
	ValidPhases     []string   `json:"valid_phases"`
	InvalidPhases   []string   `json:"invalid_phases"`
	// Invalidated gives every invalid phase with the reason it must re-run,
	// in the order of invalid_phases.
	Invalidated []InvalidPhase `json:"invalid_phase_reasons"`
	// PositionText is Position as status prints it ("2/5 done, at Spec").
	PositionText string `json:"position"`
	// Decision and Reason are filled from modes.Decide.
	Decision string `json:"decision"`
	Reason   string `json:"reason"`

	// StateAge is how long ago the workflow was interrupted.
	StateAge time.Duration `json:"-"`
	// Completed are the completed phases before the resume point (name,
	// agent, outputs), in order, for the summary block and the envelope;
	// the invalidated ones are also in Invalidated, with their reason.
	Completed []workflow.Phase `json:"-"`
	// Position is the resume point in the candidate's numbering (the one
	// discovery gives status): "2/5 done, at Spec", "3/5 iterations done,
	// at review", "1/3 done, at wave 2"; for a terminal plan, the
	// candidate's own position.
	Position workflow.Position `json:"-"`
	// ResumeIndex is Position.Index, 0 when not applicable.
	ResumeIndex int `json:"-"`
	// PhaseTotal is Position.Total, 0 when unknown.
	PhaseTotal int `json:"-"`
	// ResumeName is the human name of the resume phase, e.g. "Implementation".
	ResumeName string `json:"-"`
	// Partial is set when some completed phases are invalid and must re-run.
	Partial bool `json:"-"`
	// Steps is the full plan from the resume point to completion.
	Steps []Step `json:"-"`
	// Findings are the prerequisite findings (check "prerequisite") and the
	// findings about the requested starting phase.
	Findings []workflow.Finding `json:"-"`
	// Terminal is set when nothing is left to do (QA APPROVE, every wave and
	// the final gate done, a state that says completed).
	Terminal bool `json:"-"`
}

// InvalidPhase is a completed phase that must re-run, and why.
type InvalidPhase struct {
	Phase  string `json:"phase"`
	Name   string `json:"name"`
	Agent  string `json:"agent"`
	Reason string `json:"reason"`
}

// Step is one step of the plan to completion, as pre-flight lists it.
type Step struct {
	Phase string // phase id as in remaining_phases (for epics wave-N:story)
	Name  string // human name
	Agent string // responsible agent, without "@"
	Story string // story id, when the step is about one
	Note  string // what it does: "iteration 4: review", "task dev-develop-story.md", …
}

// Options are the user's choices about where to start.
type Options struct {
	// Restart starts from the first phase, keeping existing artifacts.
	Restart bool
	// FromPhase starts from the named phase (id or name, case-insensitive).
	FromPhase string
}

// Env is what the plan may ask about the repository. A nil Exists treats
// every path as present; a nil AgentKnown skips the agent check with one
// info finding.
type Env struct {
	// Exists reports whether a repository-relative path exists.
	Exists func(path string) bool
	// AgentKnown reports whether an agent is configured, and whether the
	// repository has any agent definitions at all.
	AgentKnown func(agent string) (known bool, anyDefinitions bool)
}

// UsageError is a problem with the user's request (exitcode.Usage), such as a
// --from-phase that names no phase of the workflow.
type UsageError struct {
	Msg   string
	Valid []string // the names that would have been accepted
}

// Error implements error.
func (e *UsageError) Error() string {
	if len(e.Valid) == 0 {
		return e.Msg
	}
	return e.Msg + "; valid phases: " + strings.Join(e.Valid, ", ")
}

// ExitCode is the exit code of a usage error.
func (e *UsageError) ExitCode() exitcode.Code { return exitcode.Usage }

// Finding codes the plan produces.
const (
	CodeMissingInput       = "missing-input"
	CodeAgentNotConfigured = "agent-not-configured"
	CodeAgentCheckSkipped  = "agent-check-skipped"
	CodeFromPhaseInvalid   = "from-phase-invalid"
	CodeFromPhaseSkips     = "from-phase-skips"
	CodePositionUnknown    = "position-unknown"
)

// MarshalJSON writes the plan with empty lists as [] rather than null.
func (p Plan) MarshalJSON() ([]byte, error) {
	type plain Plan
	q := plain(p)
	q.RemainingPhases = nonNil(q.RemainingPhases)
	q.ValidPhases = nonNil(q.ValidPhases)
	q.InvalidPhases = nonNil(q.InvalidPhases)
	if q.Invalidated == nil {
		q.Invalidated = []InvalidPhase{}
	}
	q.ResumeFrom.Inputs = nonNil(q.ResumeFrom.Inputs)
	return json.Marshal(q)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Build works out the resume plan of candidate c from its validation report
// and workflow definition. It returns an error only for a usage problem
// (*UsageError): --restart with --from-phase, or a --from-phase naming no
// phase of the workflow. Everything else the plan finds is a finding.
func Build(c workflow.Candidate, rep validate.Report, def workflow.Definition, env Env, opts Options) (Plan, error) {
	p := Plan{
		WorkflowType:    string(c.Type),
		StateSource:     c.Source.Path,
		StateAge:        rep.Age,
		RemainingPhases: []string{},
		ValidPhases:     []string{},
		InvalidPhases:   []string{},
		ResumeFrom:      ResumeFrom{Inputs: []string{}},
	}
	from := strings.TrimSpace(opts.FromPhase)
	if opts.Restart && from != "" {
		return p, &UsageError{Msg: "--restart and --from-phase cannot be used together"}
	}

	t := buildTrack(c, def)
	p.Findings = append(p.Findings, t.findings...)

	// A candidate whose framework's files name the item to resume (a task,
	// a subtask, a plan) resumes there: files changed or missing since are
	// findings, never a reason to move the resume point away from it, so
	// plan.resume_from is always the candidate's resume point.
	pinned := c.Resume != nil && c.Resume.Item != "" && !opts.Restart && from == ""
	invalid := invalidity{ids: []string{}, first: -1}
	if !pinned {
		invalid = t.markInvalid(rep)
	}
	p.InvalidPhases = invalid.ids

	resume := t.natural
	chosen := false // the user chose the starting point (restart, --from-phase)
	switch {
	case opts.Restart:
		if t.restart != nil {
			t = t.restart()
		} else {
			t.reset()
		}
		resume = t.firstActive()
		t.terminal = false
		chosen = true
	case from != "":
		idx, ok := t.find(from)
		if !ok {
			return p, &UsageError{
				Msg:   fmt.Sprintf("--from-phase %q names no phase of the %s workflow", from, workflowLabel(c, def)),
				Valid: t.names,
			}
		}
		resume = idx
		t.slots[idx].unskip()
		t.terminal = false
		chosen = true
		p.Findings = append(p.Findings, t.fromPhaseFindings(idx)...)
	default:
		if invalid.first >= 0 && invalid.first < resume {
			resume = invalid.first
			t.terminal = false
		}
	}
	if workflow.IsTerminalStatus(workflow.NormalizeStateStatus(c.Status)) {
		t.terminal = true
	}
	if t.terminal || resume >= len(t.slots) {
		p.Terminal = true
		resume = len(t.slots)
		p.Position = c.Position
	} else {
		var fs []workflow.Finding
		resume, p.ResumeFrom.Inputs, fs = t.prerequisites(resume, env, chosen || pinned)
		p.Findings = append(p.Findings, fs...)
		s := t.slots[resume]
		p.ResumeFrom.Phase = s.id
		if pinned && resume == t.natural {
			p.ResumeFrom.Item = c.Resume.Item
		}
		p.ResumeFrom.Agent = s.agent
		p.Position = t.positionOf(resume, c, !chosen && resume == t.natural)
		p.ResumeName = s.title
		p.Findings = append(p.Findings, agentFindings(s, env)...)
		p.RemainingPhases, p.Steps = t.remaining(resume, chosen)
	}

	if !opts.Restart {
		// a missing output found by the prerequisites invalidates its phase too
		p.InvalidPhases = t.invalidIDs()
	}
	reasons := invalidReasons(rep)
	for i := range t.slots {
		s := t.slots[i]
		if s.status != workflow.PhaseCompleted {
			continue
		}
		bad := s.invalid || contains(p.InvalidPhases, s.id)
		if bad && !opts.Restart {
			// an invalidated phase stays listed, with its reason
			p.Invalidated = appendInvalid(p.Invalidated, InvalidPhase{Phase: s.id, Name: s.title, Agent: s.agent, Reason: s.reason(reasons)})
		}
		if i >= resume {
			continue
		}
		p.Completed = append(p.Completed, workflow.Phase{ID: s.id, Name: s.title, Agent: s.agent, Status: workflow.PhaseCompleted, Outputs: s.outputs})
		if !bad {
			p.ValidPhases = appendUnique(p.ValidPhases, s.id)
		}
	}
	p.Partial = len(p.InvalidPhases) > 0 && !opts.Restart
	p.LastCompleted = t.lastCompleted(resume, chosen)
	p.ResumeIndex, p.PhaseTotal = p.Position.Index, p.Position.Total
	if p.PhaseTotal == 0 {
		p.PhaseTotal = t.total
	}
	p.PositionText = p.Position.String()
	p.Findings = workflow.CapFindings(p.Findings) // thousands of missing inputs: 500 and a count
	return p, nil
}

// workflowLabel names the workflow in messages.
func workflowLabel(c workflow.Candidate, def workflow.Definition) string {
	if def.Name != "" {
		return def.Name
	}
	return c.Type.Label()
}

// agentFindings checks that the agent responsible for the resume phase is
// configured.
func agentFindings(s slot, env Env) []workflow.Finding {
	if s.agent == "" {
		return nil
	}
	known, anyDefs := false, false
	if env.AgentKnown != nil {
		known, anyDefs = env.AgentKnown(s.agent)
	}
	switch {
	case known:
		return nil
	case !anyDefs:
		return []workflow.Finding{{
			Check:    workflow.CheckPrerequisite,
			Severity: workflow.Info,
			Code:     CodeAgentCheckSkipped,
			Message:  "no agent definitions found; agent check skipped",
			Phase:    s.id,
		}}
	}
	return []workflow.Finding{{
		Check:    workflow.CheckPrerequisite,
		Severity: workflow.Warning,
		Code:     CodeAgentNotConfigured,
		Message:  fmt.Sprintf("agent @%s, responsible for phase %s, is not configured (no agent definition or config entry)", s.agent, s.id),
		Phase:    s.id,
	}}
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func appendUnique(list []string, v string) []string {
	if contains(list, v) {
		return list
	}
	return append(list, v)
}
