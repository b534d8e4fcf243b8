package handoff

import (
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestKiroFilesNeverWritten checks that a Kiro spec's tasks.md is no state
// file of orchestrate's: a resume never marks it (cleanup's refusal is
// handoff/cleanup's TestKiroCleanupRefused).
func TestKiroFilesNeverWritten(t *testing.T) {
	if hasStateFile(workflow.KindKiro) {
		t.Error("a resume would mark a Kiro tasks.md")
	}
}
