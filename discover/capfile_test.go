package discover

import (
	"fmt"
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestCapFileCandidatesShortcut: candidates whose paths are strictly
// increasing (one per file) pass without being counted, and the cut of a
// file over MaxFileCandidates is the same whether or not the others are in
// order.
func TestCapFileCandidatesShortcut(t *testing.T) {
	mk := func(paths ...string) []workflow.Candidate {
		cs := make([]workflow.Candidate, len(paths))
		for i, p := range paths {
			cs[i].Source.Path = p
		}
		return cs
	}
	n := MaxFileCandidates + 500
	sorted := make([]string, n)
	for i := range sorted {
		sorted[i] = fmt.Sprintf("docs/stories/%05d.md", i)
	}
	reversed := make([]string, n)
	for i := range reversed {
		reversed[i] = sorted[n-1-i]
	}
	oneFile := append([]string(nil), sorted[:10]...)
	for range MaxFileCandidates + 1 {
		oneFile = append(oneFile, "tasks.json")
	}
	oneFile = append(oneFile, sorted[10:20]...)
	for _, tc := range []struct {
		name   string
		paths  []string
		sorted bool
		keep   int
		cut    int
	}{
		{"one per file, in order", sorted, true, n, 0},
		{"one per file, reversed", reversed, false, n, 0},
		{"a file over the cap", oneFile, false, 20 + MaxFileCandidates, 1},
		{"the same path twice in a row", append(append([]string(nil), sorted...), sorted[n-1]), false, n + 1, 0},
	} {
		cs := mk(tc.paths...)
		if got := distinctSorted(cs); got != tc.sorted {
			t.Errorf("%s: distinctSorted = %v, want %v", tc.name, got, tc.sorted)
		}
		out, fs := capFileCandidates(cs, nil)
		if len(out) != tc.keep || len(fs) != tc.cut {
			t.Errorf("%s: kept %d with %d findings, want %d and %d", tc.name, len(out), len(fs), tc.keep, tc.cut)
		}
	}
}
