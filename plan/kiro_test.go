package plan

import (
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestKiroPlan checks a Kiro spec's plan: it resumes at the group of the
// candidate's first open required task even when validation finds files of
// an earlier group changed or missing, completed groups after it are not
// run again, and the resume step names the framework's own command.
func TestKiroPlan(t *testing.T) {
	c := workflow.Candidate{
		ID: "kiro:speech-to-text", Type: workflow.TypeKiroSpec, Key: "speech-to-text", Resumable: true, Status: "InProgress",
		Source: workflow.SourceRef{Kind: workflow.KindKiro, Path: ".kiro/specs/speech-to-text/tasks.md", Priority: 4},
		Phases: []workflow.Phase{
			{ID: "task-1", Name: "1. Set up project structure", Agent: "dev", Status: workflow.PhaseCompleted},
			{ID: "task-2", Name: "2. Implement core functionality", Agent: "dev", Status: workflow.PhaseCurrent},
			{ID: "task-3", Name: "3. Checkpoint - Ensure all tests pass", Agent: "dev", Status: workflow.PhasePending},
			{ID: "task-4", Name: "4. Docs", Agent: "dev", Status: workflow.PhaseCompleted},
		},
		Files: []workflow.RefFile{
			{Path: ".kiro/specs/speech-to-text/tasks.md", Critical: true},
			{Path: "src/stt/models.ts", Phase: "task-1", Produced: true, From: "task 1"},
		},
		Position: workflow.Position{Kind: workflow.PosStep, Index: 2, Done: 2, Total: 6, At: "2.3", Name: "2. Implement core functionality"},
		Resume: &workflow.ResumePoint{Item: "2.3", Labels: []string{"[-] in progress"}, Done: 2, Total: 6,
			FrameworkCommand: "Start task 2.3 in .kiro/specs/speech-to-text/tasks.md (Kiro IDE)"},
	}
	missing := Env{Exists: func(p string) bool { return p != "src/stt/models.ts" }, AgentKnown: func(string) (bool, bool) { return true, true }}
	for _, tt := range []struct {
		name string
		rep  validate.Report
		env  Env
	}{
		{"clean", validate.Report{}, allKnown},
		{"an earlier group's file changed", validate.Report{ChangedPhases: []string{"task-1"}}, allKnown},
		{"an earlier group's file missing", validate.Report{MissingPhases: []string{"task-1"}}, missing},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := build(t, c, tt.rep, workflow.Definition{}, tt.env, Options{})
			if p.ResumeFrom.Phase != "task-2" || p.ResumeFrom.Item != "2.3" || p.Terminal {
				t.Fatalf("resume from %+v", p.ResumeFrom)
			}
			if got := strings.Join(p.RemainingPhases, " "); got != "task-2 task-3" {
				t.Errorf("remaining %q", got)
			}
			if len(p.Steps) == 0 || p.Steps[0].Note != "resume at 2.3 [-] in progress -- Start task 2.3 in .kiro/specs/speech-to-text/tasks.md (Kiro IDE)" {
				t.Errorf("steps %+v", p.Steps)
			}
		})
	}
}
