package resumeflow

import (
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/rebuild"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func TestValidationWord(t *testing.T) {
	blocking := func(check, code string) workflow.Finding {
		return workflow.Finding{Check: check, Severity: workflow.Blocking, Code: code}
	}
	for _, tt := range []struct {
		name   string
		status string // candidate status
		rep    *validate.Report
		want   string
	}{
		{"not validated", "", nil, ""},
		{"clean", "interrupted", &validate.Report{Status: validate.StatusClean}, "clean"},
		{"conflicts", "interrupted", &validate.Report{Status: validate.StatusConflicts, Findings: []workflow.Finding{blocking(workflow.CheckConflict, "file-changed")}}, "conflicts"},
		{"unreadable state", rebuild.StatusUnreadable, &validate.Report{Status: validate.StatusConflicts}, "corrupt"},
		{"parse blocking", "interrupted", &validate.Report{Status: validate.StatusConflicts, Findings: []workflow.Finding{blocking(workflow.CheckParse, "yaml")}}, "corrupt"},
		{"deleted story", "interrupted", &validate.Report{Status: validate.StatusConflicts, Findings: []workflow.Finding{blocking(workflow.CheckConflict, "file-changed"), blocking(workflow.CheckConsistency, "story-missing")}}, "missing"},
		{"missing critical file", "interrupted", &validate.Report{Status: validate.StatusConflicts, Findings: []workflow.Finding{blocking(workflow.CheckIntegrity, "missing-critical")}}, "missing"},
		{"a missing file warning", "interrupted", &validate.Report{Status: validate.StatusWarnings, Findings: []workflow.Finding{{Check: workflow.CheckIntegrity, Severity: workflow.Warning, Code: "missing-file"}}}, "warnings"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidationWord(workflow.Candidate{Status: tt.status}, tt.rep); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
