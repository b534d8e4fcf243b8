package discover

import (
	"fmt"
	"reflect"
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

func TestConcatCandidates(t *testing.T) {
	ids := func(n int, prefix string, extra int) []workflow.Candidate {
		out := make([]workflow.Candidate, n, n+extra)
		for i := range out {
			out[i].ID = fmt.Sprintf("%s%d", prefix, i)
		}
		return out
	}
	tests := []struct {
		name    string
		parts   [][]workflow.Candidate
		want    []string
		inPlace bool // the first list's array is the result's
	}{
		{"none", nil, nil, false},
		{"empty lists", [][]workflow.Candidate{nil, {}}, nil, false},
		{"one list", [][]workflow.Candidate{ids(2, "s", 0)}, []string{"s0", "s1"}, true},
		{"fits the spare capacity", [][]workflow.Candidate{ids(2, "s", 2), ids(1, "w", 0), nil, ids(1, "e", 0)}, []string{"s0", "s1", "w0", "e0"}, true},
		{"does not fit", [][]workflow.Candidate{ids(2, "s", 1), ids(2, "w", 0)}, []string{"s0", "s1", "w0", "w1"}, false},
		{"first list empty", [][]workflow.Candidate{nil, ids(1, "w", 0)}, []string{"w0"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var first *workflow.Candidate
			if len(tt.parts) > 0 && cap(tt.parts[0]) > 0 {
				first = &tt.parts[0][:1][0]
			}
			got := concatCandidates(tt.parts)
			var gotIDs []string
			for _, c := range got {
				gotIDs = append(gotIDs, c.ID)
			}
			if !reflect.DeepEqual(gotIDs, tt.want) {
				t.Fatalf("ids = %v, want %v", gotIDs, tt.want)
			}
			if inPlace := len(got) > 0 && &got[0] == first; inPlace != tt.inPlace {
				t.Errorf("in place = %v, want %v", inPlace, tt.inPlace)
			}
			if !tt.inPlace && cap(got) != len(got) {
				t.Errorf("cap %d for %d candidates: not allocated at its exact size", cap(got), len(got))
			}
		})
	}
}
