package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// The built-in definitions , spelled out here so the tests do not
// depend on discover.
var (
	sdcDef = workflow.Definition{ID: workflow.DefSDC, Name: "Story Development Cycle", Phases: []workflow.PhaseDef{
		{ID: "create", Name: "Story Creation", Agent: "sm", Task: "create-next-story.md"},
		{ID: "validate", Name: "Story Validation", Agent: "po", Task: "validate-next-story.md"},
		{ID: "implement", Name: "Implementation", Agent: "dev", Task: "dev-develop-story.md"},
		{ID: "review", Name: "QA Gate", Agent: "qa", Task: "qa-gate.md"},
	}}
	qaDef = workflow.Definition{ID: workflow.DefQALoop, Name: "QA Loop", MaxIterations: 5, Phases: []workflow.PhaseDef{
		{ID: "review", Name: "QA Review", Agent: "qa"},
		{ID: "fix", Name: "Apply Fixes", Agent: "dev"},
		{ID: "escalate", Name: "Escalation", Agent: "master"},
	}}
	specDef = workflow.Definition{ID: workflow.DefSpec, Name: "Spec Pipeline", Phases: []workflow.PhaseDef{
		{ID: "gather", Name: "Requirements Gathering", Agent: "pm"},
		{ID: "assess", Name: "Complexity Assessment", Agent: "architect", SkipIf: "complexity class is SIMPLE"},
		{ID: "research", Name: "Dependency Research", Agent: "analyst", SkipIf: "complexity class is SIMPLE"},
		{ID: "spec", Name: "Write Specification", Agent: "pm"},
		{ID: "critique", Name: "Spec Critique", Agent: "qa"},
	}}
	epicDef = workflow.Definition{ID: workflow.DefEpic, Name: "Epic Execution", Phases: []workflow.PhaseDef{
		{ID: "waves", Name: "Wave Execution", Agent: "pm"},
		{ID: "final-gate", Name: "Final Gate", Agent: "qa"},
	}}
)

// allKnown is an Env in which every file exists and every agent is configured.
var allKnown = Env{
	Exists:     func(string) bool { return true },
	AgentKnown: func(string) (bool, bool) { return true, true },
}

func phases(statuses ...string) []workflow.Phase {
	ids := []string{"create", "validate", "implement", "review"}
	var out []workflow.Phase
	for i, s := range statuses {
		out = append(out, workflow.Phase{ID: ids[i], Status: s})
	}
	return out
}

func sdcState(statuses ...string) workflow.Candidate {
	return workflow.Candidate{
		ID: "workflow:wf-1", Type: workflow.TypeWorkflow, Workflow: workflow.DefSDC,
		Source:  workflow.SourceRef{Kind: workflow.KindWorkflowState, Path: ".orchestrate/workflows/wf-1.yaml", Priority: 3},
		Stories: []string{"4.2"}, Status: "paused", Resumable: true,
		Phases: phases(statuses...),
	}
}

func build(t *testing.T, c workflow.Candidate, rep validate.Report, def workflow.Definition, env Env, opts Options) Plan {
	t.Helper()
	p, err := Build(c, rep, def, env, opts)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return p
}

func strs(s ...string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// checkResume compares a plan's resume point (agent "" is not compared),
// last completed phase, remaining phases and terminality.
func checkResume(t *testing.T, p Plan, resume, agent, last string, remaining []string, terminal bool) {
	t.Helper()
	if p.ResumeFrom.Phase != resume || (agent != "" && p.ResumeFrom.Agent != agent) {
		t.Errorf("resume = %s @%s, want %s @%s", p.ResumeFrom.Phase, p.ResumeFrom.Agent, resume, agent)
	}
	if got := lastPhase(p); got != last {
		t.Errorf("last completed = %q, want %q", got, last)
	}
	if !reflect.DeepEqual(p.RemainingPhases, remaining) {
		t.Errorf("remaining = %q, want %q", p.RemainingPhases, remaining)
	}
	if p.Terminal != terminal {
		t.Errorf("terminal = %v, want %v", p.Terminal, terminal)
	}
}

func lastPhase(p Plan) string {
	if p.LastCompleted == nil {
		return ""
	}
	return p.LastCompleted.Phase
}

func TestSDCResumePoint(t *testing.T) {
	const (
		done = workflow.PhaseCompleted
		cur  = workflow.PhaseCurrent
		pend = workflow.PhasePending
	)
	story := func(typ workflow.Type, pos workflow.Position) workflow.Candidate {
		return workflow.Candidate{
			ID: string(typ) + ":4.2", Type: typ, Workflow: workflow.DefSDC, Stories: []string{"4.2"}, Resumable: true,
			Source:   workflow.SourceRef{Kind: workflow.KindStory, Path: "docs/stories/4.2.story.md", Priority: 4},
			Position: pos,
		}
	}
	tests := []struct {
		name      string
		c         workflow.Candidate
		resume    string
		agent     string
		last      string
		remaining []string
		terminal  bool
	}{
		{"nothing done", sdcState(cur, pend, pend, pend), "create", "sm", "", strs("create", "validate", "implement", "review"), false},
		{"after create", sdcState(done, pend, pend, pend), "validate", "po", "create", strs("validate", "implement", "review"), false},
		{"after validate", sdcState(done, done, cur, pend), "implement", "dev", "validate", strs("implement", "review"), false},
		{"after implement", sdcState(done, done, done, pend), "review", "qa", "implement", strs("review"), false},
		{"after review", sdcState(done, done, done, done), "", "", "review", strs(), true},
		{"position only", func() workflow.Candidate {
			c := sdcState()
			c.Position = workflow.PhasePosition(3, 4, "Implementation")
			return c
		}(), "implement", "dev", "validate", strs("implement", "review"), false},
		{"position by number", func() workflow.Candidate {
			c := sdcState()
			c.Position = workflow.Position{Kind: workflow.PosPhase, Index: 2}
			return c
		}(), "validate", "po", "create", strs("validate", "implement", "review"), false},
		{"story InProgress, nothing recorded", story(workflow.TypeSDC, workflow.Position{}), "implement", "dev", "validate", strs("implement", "review"), false},
		{"story InReview", story(workflow.TypeQAReview, workflow.Position{}), "review", "qa", "implement", strs("review"), false},
		{"story InProgress as discover renders it", func() workflow.Candidate {
			c := story(workflow.TypeSDC, workflow.PhasePosition(3, 4, "Implementation"))
			c.Phases = phases(done, done, cur, pend)
			return c
		}(), "implement", "dev", "validate", strs("implement", "review"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := build(t, tt.c, validate.Report{}, sdcDef, allKnown, Options{})
			checkResume(t, p, tt.resume, tt.agent, tt.last, tt.remaining, tt.terminal)
		})
	}
}

func TestSDCHumanFields(t *testing.T) {
	c := sdcState(workflow.PhaseCompleted, workflow.PhaseCompleted, workflow.PhaseCurrent)
	c.Phases[0].Outputs = []string{"docs/stories/4.2.story.md"}
	p := build(t, c, validate.Report{Age: 45 * time.Minute}, sdcDef, allKnown, Options{})
	if p.ResumeIndex != 3 || p.PhaseTotal != 4 || p.ResumeName != "Implementation" {
		t.Errorf("index/total/name = %d/%d/%q", p.ResumeIndex, p.PhaseTotal, p.ResumeName)
	}
	if p.StateAge != 45*time.Minute || p.StateSource != ".orchestrate/workflows/wf-1.yaml" || p.WorkflowType != "workflow" {
		t.Errorf("age/source/type = %v/%q/%q", p.StateAge, p.StateSource, p.WorkflowType)
	}
	if len(p.Completed) != 2 || p.Completed[0].ID != "create" || p.Completed[0].Agent != "sm" || p.Completed[1].ID != "validate" {
		t.Errorf("completed = %+v", p.Completed)
	}
	if !reflect.DeepEqual(p.ResumeFrom.Inputs, []string{"docs/stories/4.2.story.md"}) {
		t.Errorf("inputs = %q", p.ResumeFrom.Inputs)
	}
	if len(p.Steps) != 2 || p.Steps[0].Phase != "implement" || p.Steps[0].Agent != "dev" || p.Steps[0].Note != "task dev-develop-story.md" || p.Steps[0].Story != "4.2" {
		t.Errorf("steps = %+v", p.Steps)
	}
	if !reflect.DeepEqual(p.ValidPhases, []string{"create", "validate"}) || len(p.InvalidPhases) != 0 || p.Partial {
		t.Errorf("valid/invalid/partial = %q/%q/%v", p.ValidPhases, p.InvalidPhases, p.Partial)
	}
}

func TestSpecResumePoint(t *testing.T) {
	spec := func(complexity, verdict string, artifacts map[string]string, ph ...workflow.Phase) workflow.Candidate {
		return workflow.Candidate{
			ID: "spec:login", Type: workflow.TypeSpec, Workflow: workflow.DefSpec, Resumable: true,
			Source: workflow.SourceRef{Kind: workflow.KindSpec, Path: "docs/specs/login", Priority: 6},
			Spec:   &workflow.Spec{Name: "login", Dir: "docs/specs/login", Complexity: complexity, Verdict: verdict, Artifacts: artifacts},
			Phases: ph,
		}
	}
	done := func(id string) workflow.Phase { return workflow.Phase{ID: id, Status: workflow.PhaseCompleted} }
	tests := []struct {
		name      string
		c         workflow.Candidate
		resume    string
		last      string
		remaining []string
		terminal  bool
	}{
		{"standard after gather", spec("STANDARD", "", nil, done("gather")), "assess", "gather", strs("assess", "research", "spec", "critique"), false},
		{"simple after gather skips assess and research", spec("SIMPLE", "", nil, done("gather")), "spec", "gather", strs("spec", "critique"), false},
		{"artifacts mark phases complete", spec("", "", map[string]string{
			"gather": "docs/specs/login/requirements.json", "assess": "docs/specs/login/complexity.json", "research": "docs/specs/login/research.json",
		}), "spec", "research", strs("spec", "critique"), false},
		{"needs revision goes back to spec", spec("STANDARD", "NEEDS_REVISION", map[string]string{
			"gather": "r.json", "assess": "c.json", "research": "d.json", "spec": "spec.md", "critique": "critique.json",
		}), "spec", "critique", strs("spec", "critique"), false},
		{"simple needs revision", spec("SIMPLE", "needs revision", nil, done("gather"), done("spec"), done("critique")), "spec", "critique", strs("spec", "critique"), false},
		{"approved is terminal", spec("STANDARD", "APPROVED", nil, done("gather"), done("spec")), "", "critique", strs(), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := build(t, tt.c, validate.Report{}, specDef, allKnown, Options{})
			checkResume(t, p, tt.resume, "", tt.last, tt.remaining, tt.terminal)
		})
	}
}

func qaCand(iter, max int, verdict string, fixed bool) workflow.Candidate {
	return workflow.Candidate{
		ID: "qa-loop:2.1", Type: workflow.TypeQALoop, Workflow: workflow.DefQALoop, Stories: []string{"2.1"}, Resumable: true,
		Status: "in_progress",
		Source: workflow.SourceRef{Kind: workflow.KindQALoop, Path: "qa/loop-status.json", Priority: 2},
		QA:     &workflow.QALoop{Iteration: iter, MaxIterations: max, LastVerdict: verdict, FixesApplied: fixed},
	}
}

func TestQALoopResumePoint(t *testing.T) {
	tests := []struct {
		name      string
		c         workflow.Candidate
		resume    string
		agent     string
		last      string
		remaining []string
		terminal  bool
	}{
		{"REJECT, fixes not applied", qaCand(3, 5, "REJECT", false), "fix", "dev", "review", strs("fix", "review", "fix", "review", "escalate"), false},
		{"REJECT, fixes applied", qaCand(3, 5, "REJECT", true), "review", "qa", "fix", strs("review", "fix", "review", "escalate"), false},
		{"BLOCKED", qaCand(2, 5, "BLOCKED", false), "escalate", "master", "review", strs("escalate"), false},
		{"REJECT at max", qaCand(5, 5, "REJECT", false), "escalate", "master", "review", strs("escalate"), false},
		{"REJECT at max, fixed", qaCand(5, 5, "REJECT", true), "escalate", "master", "fix", strs("escalate"), false},
		{"over max", qaCand(6, 5, "REJECT", false), "escalate", "master", "review", strs("escalate"), false},
		{"APPROVE", qaCand(2, 5, "APPROVE", false), "", "", "review", strs(), true},
		{"no verdict yet", qaCand(1, 3, "", false), "review", "qa", "", strs("review", "fix", "review", "fix", "review", "escalate"), false},
		{"verdict from history", func() workflow.Candidate {
			c := qaCand(2, 5, "", false)
			c.QA.History = []workflow.Iteration{{Number: 1, Verdict: "REJECT", Fixed: true}, {Number: 2, Verdict: "REJECT"}}
			return c
		}(), "fix", "dev", "review", strs("fix", "review", "fix", "review", "fix", "review", "escalate"), false},
		{"max from the definition", qaCand(4, 0, "REJECT", true), "review", "qa", "fix", strs("review", "escalate"), false},
		{"nil QA", func() workflow.Candidate { c := qaCand(0, 0, "", false); c.QA = nil; return c }(), "review", "qa", "",
			strs("review", "fix", "review", "fix", "review", "fix", "review", "fix", "review", "escalate"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := build(t, tt.c, validate.Report{}, qaDef, allKnown, Options{})
			checkResume(t, p, tt.resume, tt.agent, tt.last, tt.remaining, tt.terminal)
		})
	}
}

func TestQALoopSteps(t *testing.T) {
	p := build(t, qaCand(3, 5, "REJECT", true), validate.Report{}, qaDef, allKnown, Options{})
	var notes []string
	for _, s := range p.Steps {
		notes = append(notes, s.Note)
	}
	want := []string{"iteration 4: review", "iteration 4: fix", "iteration 5: review", "after iteration 5: escalate"}
	if !reflect.DeepEqual(notes, want) {
		t.Errorf("step notes = %q, want %q", notes, want)
	}
	if p.ResumeName != "QA Review (iteration 4 of 5)" || p.ResumeIndex != 4 || p.PhaseTotal != 5 {
		t.Errorf("name/index/total = %q/%d/%d", p.ResumeName, p.ResumeIndex, p.PhaseTotal)
	}
	if got := p.Position.String(); got != "3/5 iterations done, at review" {
		t.Errorf("position = %q", got)
	}
	if p.Steps[0].Story != "2.1" {
		t.Errorf("story = %q", p.Steps[0].Story)
	}
}

func TestQALoopEscalatedStatus(t *testing.T) {
	c := qaCand(2, 5, "", false)
	c.Status = "escalated"
	p := build(t, c, validate.Report{}, qaDef, allKnown, Options{})
	if p.ResumeFrom.Phase != "escalate" {
		t.Errorf("resume = %q, want escalate", p.ResumeFrom.Phase)
	}
}

func epicCand(cur int, waves ...workflow.Wave) workflow.Candidate {
	return workflow.Candidate{
		ID: "epic:EPIC-3", Type: workflow.TypeEpic, Workflow: workflow.DefEpic, Resumable: true, Status: "active",
		Source: workflow.SourceRef{Kind: workflow.KindEpicState, Path: ".aiox/epic-EPIC-3-state.yaml", Priority: 1},
		Epic:   &workflow.Epic{EpicID: "EPIC-3", PlanPath: "docs/epics/EXECUTION.yaml", CurrentWave: cur, Waves: waves},
	}
}

func wave(n int, stories ...workflow.StoryRef) workflow.Wave {
	return workflow.Wave{Number: n, Stories: stories}
}

func st(id, status string) workflow.StoryRef {
	return workflow.StoryRef{ID: id, Status: status, Path: "docs/stories/" + id + ".story.md"}
}

func TestEpicResumePoint(t *testing.T) {
	waves := func(w2a, w2b, w2c string) []workflow.Wave {
		return []workflow.Wave{
			wave(1, st("3.1", "done"), st("3.2", "completed")),
			wave(2, st("3.3", w2a), st("3.4", w2b), st("3.5", w2c)),
			wave(3, st("3.6", "pending"), st("3.7", "pending")),
		}
	}
	allDone := []workflow.Wave{wave(1, st("3.1", "done")), wave(2, st("3.2", "done"), st("3.3", "skipped"))}
	tests := []struct {
		name      string
		c         workflow.Candidate
		resume    string
		agent     string
		last      string
		remaining []string
		terminal  bool
	}{
		{"first incomplete story of the current wave", epicCand(2, waves("done", "in_progress", "pending")...),
			"wave-2:3.4", "dev", "wave-2:3.3", strs("wave-2:3.4", "wave-2:3.5", "wave-3", "final-gate"), false},
		{"a done story later in the wave is not re-run", epicCand(2, waves("pending", "done", "pending")...),
			"wave-2:3.3", "dev", "wave-1:3.2", strs("wave-2:3.3", "wave-2:3.5", "wave-3", "final-gate"), false},
		{"skipped stories are not incomplete", epicCand(2, waves("skipped", "done", "blocked")...),
			"wave-2:3.5", "dev", "wave-2:3.4", strs("wave-2:3.5", "wave-3", "final-gate"), false},
		{"wave complete goes to the next wave", epicCand(2, waves("done", "done", "skipped")...),
			"wave-3:3.6", "dev", "wave-2:3.4", strs("wave-3:3.6", "wave-3:3.7", "final-gate"), false},
		{"all stories done leaves the final gate", epicCand(2, allDone...),
			"final-gate", "qa", "wave-2:3.2", strs("final-gate"), false},
		{"all done", func() workflow.Candidate {
			c := epicCand(2, allDone...)
			c.Phases = []workflow.Phase{{ID: "final-gate", Status: workflow.PhaseCompleted}}
			return c
		}(), "", "", "final-gate", strs(), true},
		{"unknown current wave", epicCand(0, waves("done", "pending", "pending")...),
			"wave-2:3.4", "dev", "wave-2:3.3", strs("wave-2:3.4", "wave-2:3.5", "wave-3", "final-gate"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := build(t, tt.c, validate.Report{}, epicDef, allKnown, Options{})
			checkResume(t, p, tt.resume, tt.agent, tt.last, tt.remaining, tt.terminal)
		})
	}
}

func TestEpicExecutorInputsAndSteps(t *testing.T) {
	s34 := st("3.4", "in_progress")
	s34.Executor = "@dev-backend"
	c := epicCand(2, wave(1, st("3.1", "done")), wave(2, s34, st("3.5", "pending")), wave(3, st("3.6", "")))
	c.StoryRefs = []workflow.StoryRef{{ID: "3.5", Executor: "ux"}}
	p := build(t, c, validate.Report{}, epicDef, allKnown, Options{})
	if p.ResumeFrom.Agent != "dev-backend" {
		t.Errorf("agent = %q, want dev-backend", p.ResumeFrom.Agent)
	}
	want := []string{"docs/stories/3.4.story.md", "docs/epics/EXECUTION.yaml"}
	if !reflect.DeepEqual(p.ResumeFrom.Inputs, want) {
		t.Errorf("inputs = %q, want %q", p.ResumeFrom.Inputs, want)
	}
	var got []string
	for _, s := range p.Steps {
		got = append(got, s.Phase+"@"+s.Agent)
	}
	if w := []string{"wave-2:3.4@dev-backend", "wave-2:3.5@ux", "wave-3:3.6@dev", "final-gate@qa"}; !reflect.DeepEqual(got, w) {
		t.Errorf("steps = %q, want %q", got, w)
	}
	if p.ResumeIndex != 2 || p.PhaseTotal != 3 || p.Position.Kind != workflow.PosWave {
		t.Errorf("index/total = %d/%d (%s)", p.ResumeIndex, p.PhaseTotal, p.Position)
	}
}

func TestGenericResumePoint(t *testing.T) {
	custom := workflow.Definition{ID: "brownfield", Phases: []workflow.PhaseDef{
		{ID: "analyze", Name: "Analyze", Agent: "architect"},
		{ID: "document", Name: "Document", Agent: "analyst"},
		{ID: "plan", Name: "Plan", Agent: "pm"},
	}}
	t.Run("definition phases with a current one", func(t *testing.T) {
		c := workflow.Candidate{Type: workflow.TypeWorkflow, Workflow: "brownfield", Resumable: true, Phases: []workflow.Phase{
			{ID: "analyze", Status: "completed", Outputs: []string{"docs/analysis.md"}}, {ID: "document", Status: "in_progress"},
		}}
		p := build(t, c, validate.Report{}, custom, allKnown, Options{})
		if p.ResumeFrom.Phase != "document" || p.ResumeFrom.Agent != "analyst" || !reflect.DeepEqual(p.RemainingPhases, []string{"document", "plan"}) {
			t.Errorf("plan = %+v", p)
		}
		if p.LastCompleted == nil || *p.LastCompleted != (PhaseRef{Phase: "analyze", Agent: "architect", Output: "docs/analysis.md"}) {
			t.Errorf("last completed = %+v", p.LastCompleted)
		}
	})
	t.Run("position names the phase", func(t *testing.T) {
		c := workflow.Candidate{Type: workflow.TypeWorkflow, Workflow: "brownfield", Resumable: true,
			Position: workflow.Position{Kind: workflow.PosPhase, Name: "2_document"}}
		p := build(t, c, validate.Report{}, custom, allKnown, Options{})
		if p.ResumeFrom.Phase != "document" || lastPhase(p) != "analyze" {
			t.Errorf("resume = %q, last = %q", p.ResumeFrom.Phase, lastPhase(p))
		}
	})
	t.Run("progress file with its own steps", func(t *testing.T) {
		c := workflow.Candidate{Type: workflow.TypeProgress, Resumable: true, Agent: "dev",
			Position: workflow.Position{Kind: workflow.PosStep, Index: 3, Total: 4},
			Phases: []workflow.Phase{
				{Name: "project-analysis", Status: "completed"}, {Name: "build-test", Status: "completed"},
				{Name: "code-generation", Status: "pending"}, {Name: "test-validation", Status: "pending"},
			}}
		p := build(t, c, validate.Report{}, workflow.Definition{}, allKnown, Options{})
		if p.ResumeFrom.Phase != "code-generation" || p.ResumeFrom.Agent != "dev" || !reflect.DeepEqual(p.RemainingPhases, []string{"code-generation", "test-validation"}) {
			t.Errorf("resume = %+v, remaining = %q", p.ResumeFrom, p.RemainingPhases)
		}
		if p.Steps[1].Agent != "master" {
			t.Errorf("agentless step goes to %q, want master", p.Steps[1].Agent)
		}
	})
	t.Run("work session with no phases", func(t *testing.T) {
		c := workflow.Candidate{Type: workflow.TypeWorkSession, Resumable: true}
		p := build(t, c, validate.Report{}, workflow.Definition{}, allKnown, Options{})
		if p.ResumeFrom.Phase != "continue" || p.ResumeFrom.Agent != "master" || !reflect.DeepEqual(p.RemainingPhases, []string{"continue"}) {
			t.Errorf("resume = %+v, remaining = %q", p.ResumeFrom, p.RemainingPhases)
		}
		if len(p.Findings) != 1 || p.Findings[0].Code != CodePositionUnknown || p.Findings[0].Severity != workflow.Info {
			t.Errorf("findings = %+v", p.Findings)
		}
	})
	t.Run("terminal status", func(t *testing.T) {
		c := sdcState(workflow.PhaseCompleted)
		c.Status = "Completed"
		p := build(t, c, validate.Report{}, sdcDef, allKnown, Options{})
		if !p.Terminal || p.ResumeFrom.Phase != "" || len(p.RemainingPhases) != 0 {
			t.Errorf("plan = %+v", p)
		}
	})
}

func TestPrerequisites(t *testing.T) {
	missing := func(paths ...string) func(string) bool {
		return func(p string) bool {
			for _, m := range paths {
				if p == m {
					return false
				}
			}
			return true
		}
	}
	base := func() workflow.Candidate {
		c := sdcState(workflow.PhaseCompleted, workflow.PhaseCompleted, workflow.PhaseCurrent)
		c.StoryRefs = []workflow.StoryRef{{ID: "4.2", Path: "docs/stories/4.2.story.md"}}
		c.Phases[1].Outputs = []string{"docs/qa/validation-4.2.md"}
		return c
	}
	t.Run("missing output re-runs the phase that made it", func(t *testing.T) {
		env := allKnown
		env.Exists = missing("docs/qa/validation-4.2.md")
		p := build(t, base(), validate.Report{}, sdcDef, env, Options{})
		if p.ResumeFrom.Phase != "validate" || p.ResumeFrom.Agent != "po" {
			t.Errorf("resume = %+v, want validate @po", p.ResumeFrom)
		}
		if len(p.Findings) != 1 {
			t.Fatalf("findings = %+v", p.Findings)
		}
		f := p.Findings[0]
		if f.Check != workflow.CheckPrerequisite || f.Severity != workflow.Blocking || f.Code != CodeMissingInput ||
			f.Path != "docs/qa/validation-4.2.md" || !strings.Contains(f.Message, "phase validate must re-run") {
			t.Errorf("finding = %+v", f)
		}
		if !reflect.DeepEqual(p.RemainingPhases, []string{"validate", "implement", "review"}) || !reflect.DeepEqual(p.InvalidPhases, []string{"validate"}) {
			t.Errorf("remaining = %q, invalid = %q", p.RemainingPhases, p.InvalidPhases)
		}
	})
	t.Run("missing story file blocks without moving", func(t *testing.T) {
		env := allKnown
		env.Exists = missing("docs/stories/4.2.story.md")
		p := build(t, base(), validate.Report{}, sdcDef, env, Options{})
		if p.ResumeFrom.Phase != "implement" {
			t.Errorf("resume = %q, want implement", p.ResumeFrom.Phase)
		}
		if len(p.Findings) != 1 || p.Findings[0].Code != CodeMissingInput || p.Findings[0].Severity != workflow.Blocking || p.Findings[0].Phase != "implement" {
			t.Errorf("findings = %+v", p.Findings)
		}
		if want := []string{"docs/stories/4.2.story.md", "docs/qa/validation-4.2.md"}; !reflect.DeepEqual(p.ResumeFrom.Inputs, want) {
			t.Errorf("inputs = %q, want %q", p.ResumeFrom.Inputs, want)
		}
	})
	t.Run("agent not configured", func(t *testing.T) {
		env := allKnown
		env.AgentKnown = func(a string) (bool, bool) { return a != "dev", true }
		p := build(t, base(), validate.Report{}, sdcDef, env, Options{})
		if len(p.Findings) != 1 || p.Findings[0].Code != CodeAgentNotConfigured || p.Findings[0].Severity != workflow.Warning || !strings.Contains(p.Findings[0].Message, "@dev") {
			t.Errorf("findings = %+v", p.Findings)
		}
	})
	t.Run("no agent definitions at all: one info", func(t *testing.T) {
		env := allKnown
		env.AgentKnown = func(string) (bool, bool) { return false, false }
		p := build(t, base(), validate.Report{}, sdcDef, env, Options{})
		if len(p.Findings) != 1 {
			t.Fatalf("findings = %+v", p.Findings)
		}
		f := p.Findings[0]
		if f.Code != CodeAgentCheckSkipped || f.Severity != workflow.Info || f.Message != "no agent definitions found; agent check skipped" {
			t.Errorf("finding = %+v", f)
		}
	})
	t.Run("nil env", func(t *testing.T) {
		p := build(t, base(), validate.Report{}, sdcDef, Env{}, Options{})
		if p.ResumeFrom.Phase != "implement" || len(p.Findings) != 1 || p.Findings[0].Code != CodeAgentCheckSkipped {
			t.Errorf("plan = %+v", p)
		}
	})
	t.Run("critical phase input from the references", func(t *testing.T) {
		c := base()
		c.Files = []workflow.RefFile{
			{Path: "docs/architecture/coding-standards.md", Phase: "implement", Critical: true},
			{Path: "docs/notes.md", Phase: "implement"},
		}
		env := allKnown
		env.Exists = missing("docs/architecture/coding-standards.md", "docs/notes.md")
		p := build(t, c, validate.Report{}, sdcDef, env, Options{})
		var sev []string
		for _, f := range p.Findings {
			sev = append(sev, string(f.Severity)+":"+f.Path)
		}
		if want := []string{"blocking:docs/architecture/coding-standards.md", "warning:docs/notes.md"}; !reflect.DeepEqual(sev, want) {
			t.Errorf("findings = %q, want %q", sev, want)
		}
	})
}

func TestPartialResume(t *testing.T) {
	c := sdcState(workflow.PhaseCompleted, workflow.PhaseCompleted, workflow.PhaseCompleted)
	c.Phases[1].Outputs = []string{"docs/qa/validation-4.2.md"}
	for _, rep := range []validate.Report{
		{ChangedPhases: []string{"validate"}},
		{MissingPhases: []string{"validate"}},
		{ChangedPhases: []string{"Story Validation", "review"}}, // review never completed: not invalid
	} {
		p := build(t, c, rep, sdcDef, allKnown, Options{})
		if p.ResumeFrom.Phase != "validate" || !p.Partial {
			t.Errorf("%+v: resume = %q partial = %v", rep, p.ResumeFrom.Phase, p.Partial)
		}
		if !reflect.DeepEqual(p.ValidPhases, []string{"create"}) || !reflect.DeepEqual(p.InvalidPhases, []string{"validate"}) {
			t.Errorf("%+v: valid = %q invalid = %q", rep, p.ValidPhases, p.InvalidPhases)
		}
		if !reflect.DeepEqual(p.RemainingPhases, []string{"validate", "implement", "review"}) {
			t.Errorf("%+v: remaining = %q", rep, p.RemainingPhases)
		}
		if lastPhase(p) != "create" {
			t.Errorf("%+v: last = %q", rep, lastPhase(p))
		}
	}
	t.Run("epic story completed but changed", func(t *testing.T) {
		e := epicCand(2, wave(1, st("3.1", "done"), st("3.2", "done")), wave(2, st("3.3", "in_progress"), st("3.4", "done")))
		p := build(t, e, validate.Report{ChangedPhases: []string{"3.2", "wave-2:3.4"}}, epicDef, allKnown, Options{})
		if p.ResumeFrom.Phase != "wave-1:3.2" {
			t.Errorf("resume = %q", p.ResumeFrom.Phase)
		}
		if want := []string{"wave-1:3.2", "wave-2", "final-gate"}; !reflect.DeepEqual(p.RemainingPhases, want) {
			t.Errorf("remaining = %q, want %q", p.RemainingPhases, want)
		}
		var steps []string
		for _, s := range p.Steps {
			steps = append(steps, s.Phase)
		}
		if want := []string{"wave-1:3.2", "wave-2:3.3", "wave-2:3.4", "final-gate"}; !reflect.DeepEqual(steps, want) {
			t.Errorf("steps = %q, want %q", steps, want)
		}
		if !reflect.DeepEqual(p.InvalidPhases, []string{"wave-1:3.2", "wave-2:3.4"}) || !reflect.DeepEqual(p.ValidPhases, []string{"wave-1:3.1"}) {
			t.Errorf("invalid = %q valid = %q", p.InvalidPhases, p.ValidPhases)
		}
	})
	t.Run("QA loop: only the latest round of a phase is judged", func(t *testing.T) {
		p := build(t, qaCand(3, 5, "REJECT", true), validate.Report{ChangedPhases: []string{"fix"}}, qaDef, allKnown, Options{})
		if p.ResumeFrom.Phase != "fix" || p.ResumeName != "Apply Fixes (iteration 3 of 5)" {
			t.Errorf("resume = %q (%s)", p.ResumeFrom.Phase, p.ResumeName)
		}
		if !reflect.DeepEqual(p.InvalidPhases, []string{"fix"}) || !reflect.DeepEqual(p.ValidPhases, []string{"review"}) {
			t.Errorf("invalid = %q valid = %q", p.InvalidPhases, p.ValidPhases)
		}
	})
	t.Run("QA loop: a changed review is covered by the next review", func(t *testing.T) {
		p := build(t, qaCand(3, 5, "REJECT", true), validate.Report{ChangedPhases: []string{"review"}}, qaDef, allKnown, Options{})
		if p.ResumeFrom.Phase != "review" || p.ResumeName != "QA Review (iteration 4 of 5)" || p.Partial || len(p.InvalidPhases) != 0 {
			t.Errorf("resume = %q (%s), invalid = %q", p.ResumeFrom.Phase, p.ResumeName, p.InvalidPhases)
		}
	})
}

func TestRestart(t *testing.T) {
	c := sdcState(workflow.PhaseCompleted, workflow.PhaseCompleted, workflow.PhaseCurrent)
	p := build(t, c, validate.Report{ChangedPhases: []string{"create"}}, sdcDef, allKnown, Options{Restart: true})
	if p.ResumeFrom.Phase != "create" || p.LastCompleted != nil || len(p.ValidPhases) != 0 || len(p.Completed) != 0 || p.Partial {
		t.Errorf("plan = %+v", p)
	}
	if !reflect.DeepEqual(p.RemainingPhases, []string{"create", "validate", "implement", "review"}) || !reflect.DeepEqual(p.InvalidPhases, []string{"create"}) {
		t.Errorf("remaining = %q invalid = %q", p.RemainingPhases, p.InvalidPhases)
	}

	q := build(t, qaCand(3, 3, "REJECT", false), validate.Report{}, qaDef, allKnown, Options{Restart: true})
	if q.ResumeFrom.Phase != "review" || q.ResumeName != "QA Review (iteration 1 of 3)" || q.LastCompleted != nil {
		t.Errorf("qa restart = %+v", q)
	}
	if want := []string{"review", "fix", "review", "fix", "review", "escalate"}; !reflect.DeepEqual(q.RemainingPhases, want) {
		t.Errorf("qa remaining = %q, want %q", q.RemainingPhases, want)
	}

	e := epicCand(2, wave(1, st("3.1", "done")), wave(2, st("3.2", "done"), st("3.3", "pending")))
	ep := build(t, e, validate.Report{}, epicDef, allKnown, Options{Restart: true})
	if want := []string{"wave-1:3.1", "wave-2", "final-gate"}; ep.ResumeFrom.Phase != "wave-1:3.1" || !reflect.DeepEqual(ep.RemainingPhases, want) {
		t.Errorf("epic restart = %q %q", ep.ResumeFrom.Phase, ep.RemainingPhases)
	}
}

func TestFromPhase(t *testing.T) {
	c := sdcState(workflow.PhaseCompleted, workflow.PhaseCompleted, workflow.PhaseCompleted)
	t.Run("valid", func(t *testing.T) {
		p := build(t, c, validate.Report{}, sdcDef, allKnown, Options{FromPhase: "Implementation"})
		if p.ResumeFrom.Phase != "implement" || lastPhase(p) != "validate" || len(p.Findings) != 0 {
			t.Errorf("plan = %+v", p)
		}
		if !reflect.DeepEqual(p.ValidPhases, []string{"create", "validate"}) || !reflect.DeepEqual(p.RemainingPhases, []string{"implement", "review"}) {
			t.Errorf("valid = %q remaining = %q", p.ValidPhases, p.RemainingPhases)
		}
	})
	t.Run("earlier phase invalid", func(t *testing.T) {
		p := build(t, c, validate.Report{ChangedPhases: []string{"validate"}}, sdcDef, allKnown, Options{FromPhase: "implement"})
		if p.ResumeFrom.Phase != "implement" {
			t.Errorf("resume = %q, want the requested implement", p.ResumeFrom.Phase)
		}
		if len(p.Findings) != 1 || p.Findings[0].Code != CodeFromPhaseInvalid || p.Findings[0].Severity != workflow.Blocking ||
			p.Findings[0].Phase != "validate" || !strings.Contains(p.Findings[0].Message, "validate") {
			t.Errorf("findings = %+v", p.Findings)
		}
	})
	t.Run("skipping a phase that never ran", func(t *testing.T) {
		p := build(t, sdcState(workflow.PhaseCompleted), validate.Report{}, sdcDef, allKnown, Options{FromPhase: "review"})
		if p.ResumeFrom.Phase != "review" || len(p.Findings) != 1 || p.Findings[0].Code != CodeFromPhaseSkips || p.Findings[0].Severity != workflow.Warning {
			t.Errorf("plan = %+v", p)
		}
	})
	t.Run("unknown name", func(t *testing.T) {
		_, err := Build(c, validate.Report{}, sdcDef, allKnown, Options{FromPhase: "deploy"})
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Fatalf("err = %v, want *UsageError", err)
		}
		if !reflect.DeepEqual(ue.Valid, []string{"create", "validate", "implement", "review"}) || !strings.Contains(ue.Error(), "create, validate, implement, review") || ue.ExitCode() != 2 {
			t.Errorf("usage error = %v (%q)", ue, ue.Valid)
		}
	})
	t.Run("with restart", func(t *testing.T) {
		_, err := Build(c, validate.Report{}, sdcDef, allKnown, Options{FromPhase: "implement", Restart: true})
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Fatalf("err = %v, want *UsageError", err)
		}
	})
	t.Run("epic wave and story", func(t *testing.T) {
		e := epicCand(2, wave(1, st("3.1", "done")), wave(2, st("3.2", "done"), st("3.3", "pending")), wave(3, st("3.4", "")))
		p := build(t, e, validate.Report{}, epicDef, allKnown, Options{FromPhase: "wave-2"})
		if p.ResumeFrom.Phase != "wave-2:3.2" || !reflect.DeepEqual(p.RemainingPhases, []string{"wave-2:3.2", "wave-2:3.3", "wave-3", "final-gate"}) {
			t.Errorf("wave-2: %q %q", p.ResumeFrom.Phase, p.RemainingPhases)
		}
		p = build(t, e, validate.Report{}, epicDef, allKnown, Options{FromPhase: "3.4"})
		if p.ResumeFrom.Phase != "wave-3:3.4" {
			t.Errorf("3.4: %q", p.ResumeFrom.Phase)
		}
		_, err := Build(e, validate.Report{}, epicDef, allKnown, Options{FromPhase: "wave-9"})
		var ue *UsageError
		if !errors.As(err, &ue) || !reflect.DeepEqual(ue.Valid, []string{"wave-1", "wave-2", "wave-3", "final-gate"}) {
			t.Errorf("wave-9: %v", err)
		}
	})
	t.Run("QA loop review of the current iteration", func(t *testing.T) {
		p := build(t, qaCand(3, 5, "REJECT", false), validate.Report{}, qaDef, allKnown, Options{FromPhase: "review"})
		if p.ResumeFrom.Phase != "review" || p.ResumeName != "QA Review (iteration 3 of 5)" {
			t.Errorf("resume = %q (%s)", p.ResumeFrom.Phase, p.ResumeName)
		}
	})
	t.Run("a skipped spec phase", func(t *testing.T) {
		s := workflow.Candidate{Type: workflow.TypeSpec, Resumable: true, Spec: &workflow.Spec{Complexity: "SIMPLE"},
			Phases: []workflow.Phase{{ID: "gather", Status: "completed"}}}
		p := build(t, s, validate.Report{}, specDef, allKnown, Options{FromPhase: "assess"})
		if p.ResumeFrom.Phase != "assess" || !reflect.DeepEqual(p.RemainingPhases, []string{"assess", "spec", "critique"}) {
			t.Errorf("resume = %q remaining = %q", p.ResumeFrom.Phase, p.RemainingPhases)
		}
	})
}

func TestJSON(t *testing.T) {
	t.Run("empty lists and null last_completed", func(t *testing.T) {
		for _, p := range []Plan{{}, build(t, sdcState(workflow.PhaseCompleted, workflow.PhaseCompleted, workflow.PhaseCompleted, workflow.PhaseCompleted), validate.Report{}, sdcDef, allKnown, Options{Restart: true})} {
			b, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			s := string(b)
			if strings.Contains(s, "[]string") || strings.Count(s, "null") > 1 || strings.Contains(s, `"inputs":null`) || strings.Contains(s, `"valid_phases":null`) {
				t.Errorf("json = %s", s)
			}
			if !strings.Contains(s, `"last_completed":null`) {
				t.Errorf("last_completed not null: %s", s)
			}
		}
	})
	t.Run("field names", func(t *testing.T) {
		p := build(t, qaCand(3, 5, "REJECT", false), validate.Report{}, qaDef, allKnown, Options{})
		p.Decision, p.Reason = "resume", "state is clean and 45 minutes old"
		b, err := json.Marshal(&p)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"workflow_type":"qa-loop","state_source":"qa/loop-status.json","last_completed":{"phase":"review","agent":"qa","output":""},` +
			`"resume_from":{"phase":"fix","agent":"dev","inputs":[]},"remaining_phases":["fix","review","fix","review","escalate"],` +
			`"valid_phases":["review","fix"],"invalid_phases":[],"invalid_phase_reasons":[],"position":"2/5 iterations done, at fix","decision":"resume","reason":"state is clean and 45 minutes old"}`
		if string(b) != want {
			t.Errorf("json =\n%s\nwant\n%s", b, want)
		}
	})
	t.Run("deterministic", func(t *testing.T) {
		cands := []struct {
			c   workflow.Candidate
			def workflow.Definition
		}{
			{sdcState(workflow.PhaseCompleted, workflow.PhaseCurrent), sdcDef},
			{qaCand(2, 5, "REJECT", true), qaDef},
			{epicCand(2, wave(1, st("3.1", "done")), wave(2, st("3.2", "pending"), st("3.3", "pending"))), epicDef},
			{workflow.Candidate{Type: workflow.TypeSpec, Spec: &workflow.Spec{Artifacts: map[string]string{"gather": "a", "assess": "b", "research": "c", "spec": "d"}}}, specDef},
		}
		rep := validate.Report{ChangedPhases: []string{"gather", "create"}, MissingPhases: []string{"wave-1"}}
		for _, tc := range cands {
			var first []byte
			for i := 0; i < 5; i++ {
				p := build(t, tc.c, rep, tc.def, allKnown, Options{})
				b, err := json.Marshal(p)
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					first = b
				} else if !bytes.Equal(first, b) {
					t.Errorf("build %d differs:\n%s\n%s", i, first, b)
				}
			}
		}
	})
}

// TestOddInput builds plans from inputs no state should give, for every
// workflow type: none may panic, and each gives a plan or a usage error.
func TestOddInput(t *testing.T) {
	defs := []workflow.Definition{{}, sdcDef, qaDef, specDef, epicDef, {Phases: []workflow.PhaseDef{{}}}}
	types := []workflow.Type{workflow.TypeEpic, workflow.TypeQALoop, workflow.TypeWorkflow, workflow.TypeProgress,
		workflow.TypeWorkSession, workflow.TypeSDC, workflow.TypeQAReview, workflow.TypeSpec, workflow.TypeStory, "unknown"}
	cands := []workflow.Candidate{
		{},
		{Position: workflow.Position{Kind: workflow.PosPhase, Index: 99, Name: "nowhere"}},
		{Position: workflow.Position{Kind: workflow.PosPhase, Index: -3}},
		{Phases: []workflow.Phase{{}, {Status: "completed"}, {ID: "x", Status: "weird"}}},
		{QA: &workflow.QALoop{Iteration: -1, MaxIterations: -5, LastVerdict: "maybe", History: []workflow.Iteration{{}}}},
		{Epic: &workflow.Epic{CurrentWave: 42, Waves: []workflow.Wave{{}, {Number: -1, Stories: []workflow.StoryRef{{}, {ID: "1.1"}}}}}},
		{Epic: &workflow.Epic{}},
		{Spec: &workflow.Spec{Verdict: "NEEDS_REVISION", Complexity: "SIMPLE", Artifacts: map[string]string{"": "", "zzz": "q"}}},
		{Files: []workflow.RefFile{{Path: "a", Phase: "create", Produced: true}, {Path: "", Phase: "nowhere"}}},
	}
	reps := []validate.Report{{}, {ChangedPhases: []string{"", "create", "review", "1.1", "x"}, MissingPhases: []string{"fix"}}}
	envs := []Env{{}, allKnown, {Exists: func(string) bool { return false }, AgentKnown: func(string) (bool, bool) { return false, true }}}
	opts := []Options{{}, {Restart: true}, {FromPhase: "review"}, {FromPhase: "wave-1"}}
	for _, def := range defs {
		for _, typ := range types {
			for _, c := range cands {
				c.Type = typ
				for _, rep := range reps {
					for _, env := range envs {
						for _, o := range opts {
							p, err := Build(c, rep, def, env, o)
							if err != nil {
								var ue *UsageError
								if !errors.As(err, &ue) {
									t.Fatalf("non-usage error %v", err)
								}
								continue
							}
							if !p.Terminal && p.ResumeFrom.Phase == "" {
								t.Fatalf("type %s def %+v cand %+v opts %+v: no resume phase and not terminal", typ, def, c, o)
							}
							if _, err := json.Marshal(p); err != nil {
								t.Fatal(err)
							}
						}
					}
				}
			}
		}
	}
}

func TestStateAgent(t *testing.T) {
	c := workflow.Candidate{
		ID: "sdc:4.2", Type: workflow.TypeSDC, Workflow: workflow.DefSDC, Stories: []string{"4.2"}, Resumable: true, Agent: "@dev-backend",
		Source:   workflow.SourceRef{Kind: workflow.KindStory, Path: "docs/stories/4.2.story.md", Priority: 4},
		Position: workflow.PhasePosition(3, 4, "Implementation"),
		Phases:   phases(workflow.PhaseCompleted, workflow.PhaseCompleted, workflow.PhaseCurrent, workflow.PhasePending),
	}
	p := build(t, c, validate.Report{}, sdcDef, allKnown, Options{})
	if p.ResumeFrom.Phase != "implement" || p.ResumeFrom.Agent != "dev-backend" {
		t.Errorf("resume = %+v, want implement @dev-backend (the story's executor)", p.ResumeFrom)
	}
	// the recorded agent belongs to the current phase only
	p = build(t, c, validate.Report{ChangedPhases: []string{"validate"}}, sdcDef, allKnown, Options{})
	if p.ResumeFrom.Phase != "validate" || p.ResumeFrom.Agent != "po" {
		t.Errorf("resume = %+v, want validate @po", p.ResumeFrom)
	}
	if p.Steps[1].Agent != "dev-backend" {
		t.Errorf("implement step agent = %q", p.Steps[1].Agent)
	}
}
