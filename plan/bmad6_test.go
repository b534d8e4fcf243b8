package plan

import (
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func TestBMAD6Track(t *testing.T) {
	builtin := source.BuiltinDefinitions()[workflow.DefSDC]
	custom := workflow.Definition{ID: workflow.DefSDC, Phases: []workflow.PhaseDef{{ID: "create-story"}, {ID: "validate-story"}, {ID: "development"}, {ID: "qa-gate"}}}
	tests := []struct {
		name      string
		typ       workflow.Type
		rp        *workflow.ResumePoint
		wantPhase string
		wantNote  string
	}{
		{"in progress, a task", workflow.TypeSDC, &workflow.ResumePoint{Item: "Task 2", Title: "Timeline", FrameworkCommand: "/bmad dev-story s.md"}, "implement", "resume at Task 2: Timeline (/bmad dev-story s.md)"},
		{"in review", workflow.TypeQAReview, &workflow.ResumePoint{Item: "code review", FrameworkCommand: "/bmad code-review s.md"}, "review", "resume at code review (/bmad code-review s.md)"},
		{"no resume point", workflow.TypeSDC, nil, "implement", ""},
		{"a definition naming its phases differently", workflow.TypeSDC, &workflow.ResumePoint{Item: "Task 1"}, "development", "resume at Task 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := workflow.Candidate{ID: "sdc:2.2", Type: tt.typ, Workflow: workflow.DefSDC, Stories: []string{"2.2"},
				Source: workflow.SourceRef{Kind: workflow.KindBMADLedger, Path: "sprint-status.yaml"}, Resume: tt.rp}
			def := builtin
			if strings.Contains(tt.name, "differently") {
				def = custom
			}
			tr := buildTrack(c, def)
			if tr.natural >= len(tr.slots) || tr.slots[tr.natural].id != tt.wantPhase {
				t.Fatalf("resume phase: %+v", tr.slots)
			}
			if got := tr.slots[tr.natural].note; tt.wantNote != "" && got != tt.wantNote || tt.wantNote == "" && strings.HasPrefix(got, "resume at") {
				t.Errorf("note %q, want %q", got, tt.wantNote)
			}
		})
	}
}
