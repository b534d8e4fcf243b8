package handoff

import (
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestKiroFilesNeverWritten checks that a Kiro spec's tasks.md is no state
// file of orchestrate's (a resume never marks it) and that cleanup refuses
// it in Kiro's own terms, naming the framework's command to continue.
func TestKiroFilesNeverWritten(t *testing.T) {
	if hasStateFile(workflow.KindKiro) {
		t.Error("a resume would mark a Kiro tasks.md")
	}
	c := workflow.Candidate{ID: "kiro:f", Resumable: true, Source: workflow.SourceRef{Kind: workflow.KindKiro, Path: ".kiro/specs/f/tasks.md"},
		Resume: &workflow.ResumePoint{FrameworkCommand: "/kiro:spec-impl f 2.2"}}
	r := refuseCleanup(c, nil)
	if r == nil || !strings.Contains(r.Reason, "Kiro task list") || !strings.Contains(r.Instead, "/kiro:spec-impl f 2.2") {
		t.Errorf("refusal %+v", r)
	}
}
