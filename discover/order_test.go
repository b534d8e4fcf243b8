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
				UpdatedAt: orderTime(rng, base),
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

// orderTime is one of few instants, written in several zones, with
// nanoseconds, before 1970 or zero, so that ties and near ties abound.
func orderTime(rng *rand.Rand, base time.Time) time.Time {
	zones := []*time.Location{time.UTC, time.FixedZone("e", 3600), time.FixedZone("w", -7*3600)}
	switch rng.Intn(6) {
	case 0:
		return time.Time{}
	case 1:
		return time.Date(1969, 12, 31, 23, 59, 59, rng.Intn(2), zones[rng.Intn(3)])
	case 2:
		return base.Add(time.Duration(rng.Intn(3))).In(zones[rng.Intn(3)]) // nanoseconds apart
	}
	return base.Add(time.Duration(rng.Intn(4)) * time.Hour).In(zones[rng.Intn(3)])
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

// BenchmarkOrder orders 20,000 story candidates, a few dozen per time.
func BenchmarkOrder(b *testing.B) {
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rng := rand.New(rand.NewSource(1))
	src := make([]workflow.Candidate, 20000)
	for i := range src {
		src[i] = workflow.Candidate{
			ID:        "story:" + strconv.Itoa(rng.Intn(1_000_000)),
			UpdatedAt: base.Add(time.Duration(rng.Intn(500)) * time.Hour),
			Source:    workflow.SourceRef{Priority: 6},
		}
	}
	cs := make([]workflow.Candidate, len(src))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		copy(cs, src)
		Order(cs)
	}
}
