package workflow

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
)

// randomFindings is n findings over small alphabets, so that groups,
// severities and exact duplicates repeat (from 1 to 40 paths a list); some are CodeMoreFindings
// summaries when more is set.
func randomFindings(rng *rand.Rand, n int, more bool) []Finding {
	paths := 1 + rng.Intn(40)
	sevs := []Severity{Blocking, Warning, Info, "odd"}
	fs := make([]Finding, n)
	for i := range fs {
		f := Finding{
			Severity: sevs[rng.Intn(len(sevs))],
			Check:    []string{"integrity", "conflict", "age"}[rng.Intn(3)],
			Path:     fmt.Sprintf("p%d", rng.Intn(paths)),
			Phase:    []string{"", "implement"}[rng.Intn(2)],
			Code:     []string{"file-changed", "missing-file"}[rng.Intn(2)],
			Message:  fmt.Sprintf("m%d", rng.Intn(80)),
			Line:     rng.Intn(2),
		}
		if more && rng.Intn(200) == 0 {
			f.Code, f.Message = CodeMoreFindings, fmt.Sprintf("… and %d more warnings like these in %s (not listed)", 1+rng.Intn(100), f.Path)
		}
		fs[i] = f
	}
	return fs
}

// TestCapSortedFindingsIsCapFindings: on sorted lists (Findings.Sorted's
// order), within and past every bound, with and without earlier
// summaries, CapSortedFindings gives CapFindings' answer.
func TestCapSortedFindingsIsCapFindings(t *testing.T) {
	rng := rand.New(rand.NewSource(25))
	fast, cut := 0, 0
	for round := 0; round < 150; round++ {
		n := rng.Intn(3 * MaxFindings)
		fs := randomFindings(rng, n, round%3 == 0)
		var l Findings
		l.Add(fs...)
		sorted := l.Sorted()
		want := CapFindings(append([]Finding(nil), sorted...))
		got := CapSortedFindings(append([]Finding(nil), sorted...))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d (%d findings): CapSortedFindings differs from CapFindings:\n%v\nwant\n%v", round, len(sorted), got, want)
		}
		switch {
		case len(sorted) > MaxFindingsPerFile && reflect.DeepEqual(want, sorted):
			fast++
		case !reflect.DeepEqual(want, sorted):
			cut++
		}
	}
	if fast == 0 || cut == 0 {
		t.Fatalf("%d lists past MaxFindingsPerFile within the bounds, %d cut: both cases must be tried", fast, cut)
	}
	// one severity past MaxFindings, every group within its bound
	var fs []Finding
	for i := 0; i < MaxFindings+1; i++ {
		fs = append(fs, Finding{Severity: Warning, Check: "c", Path: fmt.Sprintf("f%04d", i), Code: "x"})
	}
	got, want := CapSortedFindings(fs), CapFindings(fs)
	if !reflect.DeepEqual(got, want) || got[len(got)-1].Code != CodeMoreFindings {
		t.Fatalf("%d warnings: got %d findings ending %v, want CapFindings' %d and a summary", len(fs), len(got), got[len(got)-1], len(want))
	}
}

// TestTakeSortedIsSorted: TakeSorted gives what Sorted gives, and empties
// the list.
func TestTakeSortedIsSorted(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for round := 0; round < 200; round++ {
		var l Findings
		l.Grow(rng.Intn(10))
		l.Add(randomFindings(rng, rng.Intn(60), false)...)
		want := l.Sorted()
		if got := l.TakeSorted(); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: TakeSorted\n%v\nwant\n%v", round, got, want)
		}
		if l.Len() != 0 {
			t.Fatalf("round %d: %d findings left after TakeSorted", round, l.Len())
		}
	}
}

// TestCompareFindingsIsFindingLess: the comparison and FindingLess are
// the same order.
func TestCompareFindingsIsFindingLess(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	fs := randomFindings(rng, 300, true)
	for _, a := range fs {
		for _, b := range fs[:60] {
			c := CompareFindings(a, b)
			if (c < 0) != FindingLess(a, b) || (c > 0) != FindingLess(b, a) || (c == 0) != (a == b) {
				t.Fatalf("CompareFindings(%v, %v) = %d, FindingLess %v/%v", a, b, c, FindingLess(a, b), FindingLess(b, a))
			}
		}
	}
}
