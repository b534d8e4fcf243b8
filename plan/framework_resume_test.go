package plan

import (
	"testing"

	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestFrameworkPlanAgreesWithCandidate checks that the plan of a spec-kit
// feature, a Taskmaster task and a GSD phase resumes where the candidate's
// resume point is, even when validation finds an earlier phase's files
// changed or missing (the agent's own later work edits them): those stay
// findings, they do not move the resume point.
func TestFrameworkPlanAgreesWithCandidate(t *testing.T) {
	speckit := workflow.Candidate{
		ID: "feature:017-sync", Type: workflow.TypeFeature, Key: "017-sync", Resumable: true, Status: "InProgress",
		Source: workflow.SourceRef{Kind: workflow.KindSpecKit, Path: "specs/017-sync/tasks.md", Priority: 4},
		Phases: []workflow.Phase{
			{ID: "phase-1", Name: "Phase 1: Setup", Status: workflow.PhaseCompleted},
			{ID: "phase-2", Name: "Phase 2: Foundational", Status: workflow.PhaseCompleted},
			{ID: "phase-3", Name: "Phase 3: User Story 1", Status: workflow.PhaseCompleted},
			{ID: "phase-7", Name: "Phase 7: Polish & Cross-Cutting Concerns", Status: workflow.PhaseCurrent},
		},
		Files: []workflow.RefFile{
			{Path: "specs/017-sync/tasks.md", Critical: true},
			{Path: "src/models/contact.py", Phase: "phase-1", Produced: true, From: "task T003"},
			{Path: "src/services/sync.py", Phase: "phase-2", Produced: true, From: "task T010"},
		},
		Position: workflow.Position{Kind: workflow.PosStep, Index: 24, Total: 30, Name: "Phase 7: Polish & Cross-Cutting Concerns"},
		Resume:   &workflow.ResumePoint{Item: "T025", Section: "Phase 7: Polish & Cross-Cutting Concerns", Done: 24, Total: 30},
	}
	gsd := workflow.Candidate{
		ID: "phase:03", Type: workflow.TypePhase, Key: "03", Resumable: true, Status: "InProgress",
		Source: workflow.SourceRef{Kind: workflow.KindGSD, Path: ".planning/phases/03-sync/03-01-SUMMARY.md", Priority: 3},
		Phases: []workflow.Phase{
			{ID: "03-01", Status: workflow.PhaseCompleted, Outputs: []string{".planning/phases/03-sync/03-01-SUMMARY.md"}},
			{ID: "03-02", Status: workflow.PhaseCurrent, DependsOn: []string{"03-01"}},
			{ID: "03-03", Status: workflow.PhasePending},
			{ID: "verify-03", Status: workflow.PhasePending},
		},
		Files: []workflow.RefFile{
			{Path: ".planning/phases/03-sync/03-01-SUMMARY.md", Phase: "03-01", Produced: true},
			{Path: ".planning/phases/03-sync/03-02-PLAN.md", Phase: "03-02", Critical: true},
		},
		Resume: &workflow.ResumePoint{Item: "03-02", Done: 1, Total: 3},
	}
	task := workflow.Candidate{
		ID: "task:master/12", Type: workflow.TypeTask, Key: "master/12", Resumable: true, Status: "InProgress",
		Source: workflow.SourceRef{Kind: workflow.KindTaskmaster, Path: ".taskmaster/tasks/tasks.json", Priority: 4},
		Phases: []workflow.Phase{
			{ID: "12.1", Name: "List endpoint", Status: workflow.PhaseCompleted},
			{ID: "12.2", Name: "Sync endpoint", Status: workflow.PhaseCurrent, DependsOn: []string{"12.1"}},
			{ID: "12.3", Name: "Webhook receiver", Status: workflow.PhasePending},
		},
		Files: []workflow.RefFile{
			{Path: "src/server/routes/contacts.ts", Phase: "12.1", From: "subtask 12.1"},
		},
		Resume: &workflow.ResumePoint{Item: "12.2", Done: 1, Total: 3},
	}
	missing := Env{
		Exists: func(p string) bool {
			return p != ".planning/phases/03-sync/03-01-SUMMARY.md" && p != "src/models/contact.py"
		},
		AgentKnown: func(string) (bool, bool) { return true, true },
	}
	tests := []struct {
		name string
		c    workflow.Candidate
		rep  validate.Report
		env  Env
		want string
	}{
		{"spec-kit, files of phase 1 changed", speckit, validate.Report{ChangedPhases: []string{"phase-1", "phase-2"}}, allKnown, "phase-7"},
		{"spec-kit, a file of phase 1 missing", speckit, validate.Report{MissingPhases: []string{"phase-1"}}, missing, "phase-7"},
		{"spec-kit, nothing changed", speckit, validate.Report{}, allKnown, "phase-7"},
		{"GSD, a SUMMARY changed", gsd, validate.Report{ChangedPhases: []string{"03-01"}}, allKnown, "03-02"},
		{"GSD, a SUMMARY missing", gsd, validate.Report{MissingPhases: []string{"03-01"}}, missing, "03-02"},
		{"Taskmaster, a subtask's file changed", task, validate.Report{ChangedPhases: []string{"12.1"}}, allKnown, "12.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := build(t, tt.c, tt.rep, workflow.Definition{}, tt.env, Options{})
			if p.ResumeFrom.Phase != tt.want || p.Terminal {
				t.Errorf("plan resumes at %q (terminal %v), the candidate at %q", p.ResumeFrom.Phase, p.Terminal, tt.want)
			}
		})
	}
}
