package story

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestParseStoryRecordStatus: BMAD v4 stories whose only status is in the
// Dev Agent Record ("### Status" with its value below, or "**Status**: X")
// read that status, with an info finding saying so; a story's own status
// wins over it; status words in the Change Log, the debug log, a nested list
// or the QA Results never count. The fixtures have the shape of real v4
// stories (the story template's sections, a Change Log table, the record's
// sub-sections).
func TestParseStoryRecordStatus(t *testing.T) {
	tests := []struct {
		file     string
		status   workflow.Status
		raw      string
		line     int
		fromRec  bool // the status-from-dev-agent-record finding is expected
		scanMode bool // parse as a scan does (compacted story)
	}{
		{"4.2.record-status-heading.md", workflow.StatusInReview, "Ready for Review", 58, true, false},
		{"4.2.record-status-heading.md", workflow.StatusInReview, "Ready for Review", 58, true, true},
		{"4.3.record-status-field.md", workflow.StatusInProgress, "In Progress", 25, true, false},
		{"4.4.own-and-record.md", workflow.StatusReady, "Approved", 5, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "record", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			p := storyParse("docs/stories/"+tt.file, data, nil, tt.scanMode)
			st := p.story
			if st.Status != tt.status || st.StatusRaw != tt.raw || st.StatusLine != tt.line || !p.hasStatus {
				t.Errorf("status %s %q line %d (hasStatus %v), want %s %q line %d", st.Status, st.StatusRaw, st.StatusLine, p.hasStatus, tt.status, tt.raw, tt.line)
			}
			found := false
			for _, f := range st.Findings {
				switch f.Code {
				case "status-from-dev-agent-record":
					found = true
					if f.Severity != workflow.Info || f.Line != tt.line {
						t.Errorf("finding %+v", f)
					}
				case "no-status", "unknown-status":
					t.Errorf("unexpected finding %+v", f)
				}
			}
			if found != tt.fromRec {
				t.Errorf("status-from-dev-agent-record finding: %v, want %v (%v)", found, tt.fromRec, st.Findings)
			}
		})
	}
}
