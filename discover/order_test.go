package discover

import (
	"math/rand"
	"reflect"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestOrderMatchesStableSort checks Order against the plain stable sort it
// replaces, on inputs with ties in every key.
func TestOrderMatchesStableSort(t *testing.T) {
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, n := range []int{0, 1, 2, 3, 17, 500} {
		rng := rand.New(rand.NewSource(int64(n)))
		cs := make([]workflow.Candidate, n)
		for i := range cs {
			cs[i] = workflow.Candidate{
				ID:        "story:" + strconv.Itoa(rng.Intn(n+1)), // duplicates too
				UpdatedAt: base.Add(time.Duration(rng.Intn(4)) * time.Hour),
				Source:    workflow.SourceRef{Priority: rng.Intn(3)},
				Key:       strconv.Itoa(i), // tells equal ones apart
			}
		}
		want := make([]workflow.Candidate, n)
		copy(want, cs)
		sort.SliceStable(want, func(i, j int) bool {
			a, b := &want[i], &want[j]
			if !a.UpdatedAt.Equal(b.UpdatedAt) {
				return a.UpdatedAt.After(b.UpdatedAt)
			}
			if a.Source.Priority != b.Source.Priority {
				return a.Source.Priority < b.Source.Priority
			}
			return a.ID < b.ID
		})
		Order(cs)
		if !reflect.DeepEqual(cs, want) {
			t.Errorf("n=%d: Order differs from a stable sort", n)
		}
	}
}

func TestPermute(t *testing.T) {
	tests := []struct {
		perm []int
		want string
	}{
		{[]int{}, ""},
		{[]int{0}, "a"},
		{[]int{1, 0}, "ba"},
		{[]int{2, 0, 1, 3}, "cabd"},
		{[]int{3, 2, 1, 0}, "dcba"},
		{[]int{1, 2, 3, 0}, "bcda"},
	}
	for _, tt := range tests {
		in := []byte("abcd")[:len(tt.perm)]
		perm := append([]int(nil), tt.perm...)
		permute(in, perm)
		if string(in) != tt.want {
			t.Errorf("permute(%v) = %q, want %q", tt.perm, in, tt.want)
		}
	}
}
