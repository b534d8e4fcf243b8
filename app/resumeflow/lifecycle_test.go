package resumeflow

import (
	"reflect"
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
		{"a parse warning, then a missing story", "interrupted", &validate.Report{Status: validate.StatusConflicts, Findings: []workflow.Finding{
			{Check: workflow.CheckParse, Severity: workflow.Warning, Code: "bad-id"}, blocking(workflow.CheckConflict, "file-changed"), blocking(workflow.CheckConsistency, "story-missing")}}, "missing"},
		{"a missing story, not blocking", "interrupted", &validate.Report{Status: validate.StatusWarnings, Findings: []workflow.Finding{{Check: workflow.CheckConsistency, Severity: workflow.Warning, Code: "story-missing"}}}, "warnings"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := workflow.Candidate{Status: tt.status}
			if got := ValidationWord(c, tt.rep); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			// status's table keeps only WordFindings of each report: the
			// same word
			if tt.rep != nil {
				kept := *tt.rep
				kept.Findings = WordFindings(tt.rep.Findings)
				if got := ValidationWord(c, &kept); got != tt.want {
					t.Errorf("with WordFindings %+v only: got %q, want %q", kept.Findings, got, tt.want)
				}
			}
		})
	}
}

// WordFindings keeps, in order, the blocking parse findings and the
// blocking missing stories and critical files, and nothing else.
func TestWordFindings(t *testing.T) {
	f := func(check string, sev workflow.Severity, code string) workflow.Finding {
		return workflow.Finding{Check: check, Severity: sev, Code: code, Message: check + " " + code}
	}
	all := []workflow.Finding{
		f(workflow.CheckConflict, workflow.Blocking, "file-changed"),
		f(workflow.CheckIntegrity, workflow.Blocking, "missing-critical"),
		f(workflow.CheckParse, workflow.Warning, "bad-id"),
		f(workflow.CheckParse, workflow.Blocking, "yaml"),
		f(workflow.CheckConsistency, workflow.Warning, "story-missing"),
		f(workflow.CheckConsistency, workflow.Blocking, "story-missing"),
		f(workflow.CheckConflict, workflow.Info, "progress"),
	}
	want := []workflow.Finding{all[1], all[3], all[5]}
	if got := WordFindings(all); !reflect.DeepEqual(got, want) {
		t.Errorf("WordFindings:\n got %+v\nwant %+v", got, want)
	}
	if got := WordFindings(all[:1]); got != nil {
		t.Errorf("WordFindings of a file change: %+v, want none", got)
	}
	// what status keeps: everything for --json, the words' findings for the table
	if KeptFindings(true) != nil {
		t.Error("KeptFindings(json) keeps less than every finding")
	}
	if got := KeptFindings(false)(all); !reflect.DeepEqual(got, want) {
		t.Errorf("KeptFindings(table):\n got %+v\nwant %+v", got, want)
	}
}
