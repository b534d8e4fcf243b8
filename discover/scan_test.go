package discover

import (
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestDefaultSourcesOrder checks the registry lists progress files and work
// sessions after workflow states and before spec pipelines.
func TestDefaultSourcesOrder(t *testing.T) {
	var kinds []string
	for _, s := range DefaultSources() {
		kinds = append(kinds, s.Kind())
	}
	if got := strings.Join(kinds, ","); !strings.Contains(got, workflow.KindWorkflowState+","+workflow.KindProgress+","+workflow.KindWorkSession+","+workflow.KindSpec) {
		t.Errorf("default sources = %s", got)
	}
}
