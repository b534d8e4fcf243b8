package cleanup

import (
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestKiroCleanupRefused checks that cleanup refuses a Kiro spec in Kiro's
// own terms, naming the framework's command to continue.
func TestKiroCleanupRefused(t *testing.T) {
	c := workflow.Candidate{ID: "kiro:f", Resumable: true, Source: workflow.SourceRef{Kind: workflow.KindKiro, Path: ".kiro/specs/f/tasks.md"},
		Resume: &workflow.ResumePoint{FrameworkCommand: "/kiro:spec-impl f 2.2"}}
	r := refuseCleanup(c, nil)
	if r == nil || !strings.Contains(r.Reason, "Kiro task list") || !strings.Contains(r.Instead, "/kiro:spec-impl f 2.2") {
		t.Errorf("refusal %+v", r)
	}
}
