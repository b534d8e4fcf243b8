package plan

import (
	"testing"

	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestOpenSpecPlan checks the plan of an OpenSpec change: it resumes at the
// group of the first open task whatever validation finds changed in
// earlier groups, and it names the task there.
func TestOpenSpecPlan(t *testing.T) {
	c := workflow.Candidate{
		ID: "openspec:add-dark-mode", Type: workflow.TypeChange, Key: "add-dark-mode", Resumable: true, Status: "InProgress",
		Source: workflow.SourceRef{Kind: workflow.KindOpenSpec, Path: "openspec/changes/add-dark-mode/tasks.md", Priority: 4},
		Phases: []workflow.Phase{
			{ID: "group-1", Name: "1. Theme tokens", Status: workflow.PhaseCompleted},
			{ID: "group-2", Name: "2. Toggle", Status: workflow.PhaseCurrent},
			{ID: "group-3", Name: "3. Verification", Status: workflow.PhasePending},
		},
		Files: []workflow.RefFile{
			{Path: "openspec/changes/add-dark-mode/tasks.md", Critical: true, From: "tasks-file"},
			{Path: "src/theme/tokens.ts", Phase: "group-1", Produced: true, From: "task 1.1"},
		},
		Position: workflow.Position{Kind: workflow.PosStep, Index: 3, Done: 3, Total: 7, Name: "2. Toggle", At: "2.2"},
		Resume:   &workflow.ResumePoint{Item: "2.2", Section: "2. Toggle", Done: 3, Total: 7, FrameworkCommand: "/opsx:apply add-dark-mode"},
	}
	for _, rep := range []validate.Report{{}, {ChangedPhases: []string{"group-1"}}} {
		p := build(t, c, rep, workflow.Definition{}, allKnown, Options{})
		if p.ResumeFrom.Phase != "group-2" || p.Terminal {
			t.Errorf("plan resumes at %q (terminal %v), want group-2", p.ResumeFrom.Phase, p.Terminal)
		}
		if len(p.Steps) != 2 || p.Steps[0].Note != "resume at 2.2" {
			t.Errorf("steps: %+v", p.Steps)
		}
	}
	// a change without counted tasks: one step running the apply command
	c.Phases, c.Resume.Item = nil, ""
	p := build(t, c, validate.Report{}, workflow.Definition{}, allKnown, Options{})
	if len(p.Steps) != 1 || p.Steps[0].Name != "Apply the change's tasks" || p.Steps[0].Note != "/opsx:apply add-dark-mode" {
		t.Errorf("single step: %+v", p.Steps)
	}
}
