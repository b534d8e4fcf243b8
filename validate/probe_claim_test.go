package validate

import (
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/par"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// countProbes makes probeFn count its calls by path (and call fail on
// each) for the test's duration.
func countProbes(t *testing.T, fail func(rel string)) map[string]int {
	t.Helper()
	var mu sync.Mutex
	calls := map[string]int{}
	orig := probeFn
	probeFn = func(root string, paths *safefile.Reader, rel string) probe {
		mu.Lock()
		calls[rel]++
		mu.Unlock()
		if fail != nil {
			fail(rel)
		}
		return orig(root, paths, rel)
	}
	t.Cleanup(func() { probeFn = orig })
	return calls
}

// overlapping is eight resumable workflows of 40 references each, every
// one sharing most of its paths with its neighbours.
func overlapping(t *testing.T) (*repo, []workflow.Candidate) {
	r, refs := probeFixture(t)
	var all []workflow.Candidate
	for i := 0; i < 8; i++ {
		c := sdc(fmt.Sprintf("5.%d", i), refs[i*10:i*10+40]...)
		c.Stories, c.StoryRefs = nil, nil
		all = append(all, c)
	}
	return r, all
}

// Validations of one Run on several goroutines, with the prefetch running
// beside them, probe every distinct path once (a path claimed by one is
// waited for by the others), and report what validations without a Run do.
func TestRunProbesEachPathOnce(t *testing.T) {
	r, all := overlapping(t)
	var want []Report
	for _, c := range all {
		want = append(want, Validate(withOthers(input(r, c), all)))
	}
	calls := countProbes(t, nil)
	for round := 0; round < 5; round++ {
		clear(calls)
		run := NewRun(r.root, all)
		got := make([]Report, len(all))
		par.For(len(all), par.Options{Workers: 4, Chunk: 1, Min: 1}, func(i int) {
			in := input(r, all[i])
			in.Run = run
			got[i] = Validate(in)
		})
		run.waitPrefetch()
		for i := range all {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("round %d: %s with a shared Run:\n%+v\nwithout:\n%+v", round, all[i].ID, got[i], want[i])
			}
		}
		for p, n := range calls {
			if n != 1 {
				t.Errorf("round %d: %s probed %d times", round, p, n)
			}
		}
		if len(calls) != 110 { // refs[0:110]
			t.Errorf("round %d: %d paths probed, want 110", round, len(calls))
		}
	}
}

// A probe that panics in the prefetch gives its paths up: the validations
// waiting for them probe them themselves, with the same reports.
func TestRunPrefetchPanicGivesUp(t *testing.T) {
	r, all := overlapping(t)
	var want []Report
	for _, c := range all {
		want = append(want, Validate(withOthers(input(r, c), all)))
	}
	early := map[string]bool{} // the paths of the validations before the prefetch
	for _, c := range all[:2] {
		for _, rf := range c.Files {
			early[rf.Path] = true
		}
	}
	var bad string // a path of the last workflows only
	for _, rf := range all[7].Files {
		if !early[rf.Path] {
			bad = rf.Path
		}
	}
	var once sync.Once
	countProbes(t, func(rel string) {
		if rel == bad {
			once.Do(func() { panic("probe failed once") })
		}
	})
	run := NewRun(r.root, all)
	for i, c := range all {
		in := input(r, c)
		in.Run = run
		if i == 2 {
			run.waitPrefetch() // the prefetch has claimed and given up its paths
		}
		if got := Validate(in); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("%s after the prefetch's panic:\n%+v\nwithout:\n%+v", c.ID, got, want[i])
		}
	}
	run.probeMu.Lock()
	p := run.probed[bad]
	run.probeMu.Unlock()
	if p == nil || !p.failed {
		t.Errorf("the path whose probe panicked: %+v, want a probe given up", p)
	}
}
