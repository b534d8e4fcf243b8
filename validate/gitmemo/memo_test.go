package gitmemo

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// parGit is a Git that takes the run's options (as *gitrepo.Repo does),
// safe for concurrent use: each path's state is a function of its base and
// path, and every (base, path) asked is counted. hook, when set, runs at
// each CompareWith call (numbered from 1) before it answers, without the
// fake's lock; an error it returns is the call's.
type parGit struct {
	mu     sync.Mutex
	asked  map[string]int // "base path": how many times
	calls  int
	serial []bool // per CompareWith call: a Serial lock given
	hook   func(call int, paths []string) error
}

func (g *parGit) Shallow() bool { return false }

func (g *parGit) InterruptionCommit(recorded string, _ time.Time) (gitrepo.Commit, error) {
	return gitrepo.Commit{Hash: recorded, Short: recorded[:7]}, nil
}

func (g *parGit) Compare(base gitrepo.Commit, paths []string) ([]gitrepo.PathState, error) {
	return g.CompareWith(base, paths, gitrepo.CompareOptions{})
}

func (g *parGit) CompareWith(base gitrepo.Commit, paths []string, o gitrepo.CompareOptions) ([]gitrepo.PathState, error) {
	g.mu.Lock()
	g.calls++
	call := g.calls
	g.serial = append(g.serial, o.Serial != nil)
	for _, p := range paths {
		g.asked[base.Hash+" "+p]++
	}
	g.mu.Unlock()
	if g.hook != nil {
		if err := g.hook(call, paths); err != nil {
			return nil, err
		}
	}
	out := make([]gitrepo.PathState, 0, len(paths))
	for _, p := range paths {
		out = append(out, parState(base.Hash, p))
	}
	return out, nil
}

// parState is parGit's answer for path p against base.
func parState(base, p string) gitrepo.PathState {
	st := gitrepo.PathState{Path: p, BaseHash: base[:4] + p, DiskHash: p, OnDisk: true}
	st.Changed = st.BaseHash != st.DiskHash
	return st
}

func (g *parGit) IndexFor([]string, int) *gitrepo.Index { return nil }

func (g *parGit) CommitsTouching(gitrepo.Commit, []string, int) (map[string][]gitrepo.Commit, error) {
	return map[string][]gitrepo.Commit{}, nil
}

func (g *parGit) ReadAt(gitrepo.Commit, string) ([]byte, error) { return nil, os.ErrNotExist }

// fakeRun is a Run of candidates, without lstats.
type fakeRun struct{ cands []*workflow.Candidate }

func (r *fakeRun) Candidates() []*workflow.Candidate { return r.cands }

func (r *fakeRun) Resumable() int {
	n := 0
	for _, c := range r.cands {
		if c.Resumable {
			n++
		}
	}
	return n
}

func (r *fakeRun) RefPaths() []string { return nil }

func (r *fakeRun) Lstat(string) (fs.FileInfo, bool) { return nil, false }

// parRun is a Memo of g for a Run of resumable candidates, one per base (a
// base given several times is shared).
func parRun(t *testing.T, g *parGit, bases ...string) *Memo {
	t.Helper()
	run := &fakeRun{}
	for i, b := range bases {
		run.cands = append(run.cands, &workflow.Candidate{ID: fmt.Sprintf("workflow:w-%02d", i), Resumable: true, Commit: b})
	}
	return New(g, run)
}

func parBase(n int) string { return fmt.Sprintf("%040x", n+0xabc) }

// wantStates is parGit's answer for paths against base, in order.
func wantStates(base string, paths []string) []gitrepo.PathState {
	out := make([]gitrepo.PathState, 0, len(paths))
	for _, p := range paths {
		out = append(out, parState(base, p))
	}
	return out
}

// Two validations of a shared base compare side by side: the second asks
// the Git while the first's Compare is still running (the Memo's lock is
// not held across it, and the Git is given that lock as Serial), asks only
// the paths the first is not asking already, and waits for the first's
// answer for the others, which it gets.
func TestGitCacheComparesSideBySide(t *testing.T) {
	x, y := parBase(1), parBase(2)
	entered, release, second := make(chan struct{}), make(chan struct{}), make(chan struct{})
	g := &parGit{asked: map[string]int{}}
	g.hook = func(call int, paths []string) error {
		switch call {
		case 1:
			close(entered)
			<-release
		case 2:
			close(second)
		}
		return nil
	}
	gc := parRun(t, g, x, x, x, y)
	base := gitrepo.Commit{Hash: x, Short: x[:7]}
	a := compareAsync(t, gc, base, []string{"p1", "p2"})
	<-entered
	b := compareAsync(t, gc, base, []string{"p2", "p3"})
	<-second // the second Compare reached the Git while the first is in it
	close(release)
	if got, want := <-a, wantStates(x, []string{"p1", "p2"}); !reflect.DeepEqual(got, want) {
		t.Errorf("first: %+v, want %+v", got, want)
	}
	if got, want := <-b, wantStates(x, []string{"p2", "p3"}); !reflect.DeepEqual(got, want) {
		t.Errorf("second: %+v, want %+v", got, want)
	}
	if want := map[string]int{x + " p1": 1, x + " p2": 1, x + " p3": 1}; !reflect.DeepEqual(g.asked, want) {
		t.Errorf("asked %v, want %v", g.asked, want)
	}
	if !reflect.DeepEqual(g.serial, []bool{true, true}) {
		t.Errorf("Serial given %v", g.serial)
	}
	// the third validation of x takes the kept answers; then they are dropped
	got, err := gc.Compare(base, []string{"p3", "p1"})
	if err != nil || !reflect.DeepEqual(got, wantStates(x, []string{"p3", "p1"})) {
		t.Errorf("third: %+v %v", got, err)
	}
	if g.calls != 2 {
		t.Errorf("the third validation asked the Git (%d calls)", g.calls)
	}
	if len(gc.states) != 0 || len(gc.statesLeft) != 0 || len(gc.flying) != 0 {
		t.Errorf("kept after the last validation: states %v, left %v, flying %v", gc.states, gc.statesLeft, gc.flying)
	}
}

// A Compare that fails leaves the paths another validation waited for to
// that validation, which asks them itself: an error is not shared.
func TestGitCacheFailedFlightIsAskedAgain(t *testing.T) {
	x := parBase(1)
	entered, release, second := make(chan struct{}), make(chan struct{}), make(chan struct{})
	g := &parGit{asked: map[string]int{}}
	errBroken := errors.New("broken")
	g.hook = func(call int, paths []string) error {
		switch call {
		case 1:
			close(entered)
			<-release
			return errBroken
		case 2:
			close(second)
		}
		return nil
	}
	gc := parRun(t, g, x, x)
	base := gitrepo.Commit{Hash: x, Short: x[:7]}
	a := make(chan error)
	go func() {
		_, err := gc.Compare(base, []string{"p1", "p2"})
		a <- err
	}()
	<-entered
	b := compareAsync(t, gc, base, []string{"p2", "p3"})
	<-second
	close(release)
	if err := <-a; !errors.Is(err, errBroken) {
		t.Errorf("first: %v, want %v", err, errBroken)
	}
	if got, want := <-b, wantStates(x, []string{"p2", "p3"}); !reflect.DeepEqual(got, want) {
		t.Errorf("second: %+v, want %+v", got, want)
	}
	if want := map[string]int{x + " p1": 1, x + " p2": 2, x + " p3": 1}; !reflect.DeepEqual(g.asked, want) {
		t.Errorf("asked %v, want %v", g.asked, want)
	}
}

// Many validations at once, over shared and unshared bases, each get the
// Git's own answer whatever the order (run under -race in make test).
func TestGitCacheConcurrentAnswers(t *testing.T) {
	var bases []string
	for i := 0; i < 12; i++ {
		bases = append(bases, parBase(i%5)) // bases 0-1 thrice, 2-4 twice
	}
	bases = append(bases, parBase(7)) // one unshared
	g := &parGit{asked: map[string]int{}}
	g.hook = func(int, []string) error { return nil }
	gc := parRun(t, g, bases...)
	var paths []string
	for i := 0; i < 24; i++ {
		paths = append(paths, fmt.Sprintf("src/f%02d.go", i))
	}
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			for k := 0; k < 40; k++ {
				b := bases[rng.Intn(len(bases))]
				var asked []string
				for _, p := range paths {
					if rng.Intn(3) == 0 {
						asked = append(asked, p)
					}
				}
				got, err := gc.Compare(gitrepo.Commit{Hash: b, Short: b[:7]}, asked)
				if err != nil || !reflect.DeepEqual(got, wantStates(b, asked)) {
					t.Errorf("Compare at %.7s: %+v %v", b, got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(gc.flying) != 0 {
		t.Errorf("flights left: %v", gc.flying)
	}
}

// compareAsync asks gc.Compare(base, paths) on a goroutine of its own; the
// channel gets the states (an error fails the test).
func compareAsync(t *testing.T, gc *Memo, base gitrepo.Commit, paths []string) <-chan []gitrepo.PathState {
	out := make(chan []gitrepo.PathState, 1)
	go func() {
		got, err := gc.Compare(base, paths)
		if err != nil {
			t.Error(err)
		}
		out <- got
	}()
	return out
}

// A Memo without a Run asks nothing ahead: each path of a base is asked
// once, the answers in the order asked, and LastChangeAtFor is
// LastChangeAt (no candidate's record paths are asked for).
func TestMemoWithoutRun(t *testing.T) {
	x := parBase(3)
	g := &parGit{asked: map[string]int{}}
	m := New(g, nil)
	base := gitrepo.Commit{Hash: x, Short: x[:7]}
	for _, paths := range [][]string{{"b", "a"}, {"a", "c", "b"}} {
		got, err := m.Compare(base, paths)
		if err != nil || !reflect.DeepEqual(got, wantStates(x, paths)) {
			t.Errorf("Compare %v: %+v %v", paths, got, err)
		}
	}
	if want := map[string]int{x + " a": 1, x + " b": 1, x + " c": 1}; !reflect.DeepEqual(g.asked, want) {
		t.Errorf("asked %v, want %v", g.asked, want)
	}
	if !reflect.DeepEqual(g.serial, []bool{false, false}) {
		t.Errorf("Serial given %v without a Run", g.serial)
	}
	asked := false
	got := m.LastChangeAtFor(func(*workflow.Candidate) []string { asked = true; return nil }, base, []string{"a"}, 10)
	if asked || len(got) != 0 {
		t.Errorf("LastChangeAtFor without a Run: %v, record paths asked %v", got, asked)
	}
	if m.Walked() != nil {
		t.Error("a History walked without a Run")
	}
}

// changeGit is a parGit that lists the files a commit changed (an
// OwnershipGit), counting what it is asked.
type changeGit struct {
	*parGit
	changed map[string][]string // by commit hash; more when over max
	asked   map[string]int      // "hash max" (ChangedPaths), "hash max first"
}

func (g *changeGit) ChangedPaths(c gitrepo.Commit, max int) ([]string, bool, error) {
	g.asked[fmt.Sprint(c.Hash, " ", max)]++
	ps := g.changed[c.Hash]
	if len(ps) > max {
		return ps[:max], true, nil
	}
	return ps, false, nil
}

func (g *changeGit) LastChangeAt(gitrepo.Commit, []string, int) map[string]gitrepo.Commit {
	return map[string]gitrepo.Commit{}
}

// firstChangeGit is a changeGit that can list the first files alone, as
// gitrepo.Repo.ChangedPathsFirst does.
type firstChangeGit struct{ *changeGit }

func (g firstChangeGit) ChangedPathsFirst(c gitrepo.Commit, max, first int) ([]string, bool, bool, error) {
	g.asked[fmt.Sprint(c.Hash, " ", max, " ", first)]++
	ps := g.changed[c.Hash]
	if first >= max || len(ps) <= first {
		paths, more, err := g.ChangedPaths(c, max)
		return paths, more, true, err
	}
	return ps[:first], true, false, nil
}

// TestChangedPathsFirstKept: the Memo keeps a commit's first files apart
// from its whole answer: asked in either order, ChangedPaths is the whole
// answer and ChangedPathsFirst a cut one only until the whole is known;
// each is asked of the Git once; a Git that cannot list the first files
// alone gives the whole answer.
func TestChangedPathsFirstKept(t *testing.T) {
	c1 := gitrepo.Commit{Hash: parBase(1), Short: parBase(1)[:7]}
	c2 := gitrepo.Commit{Hash: parBase(2), Short: parBase(2)[:7]}
	changed := map[string][]string{c1.Hash: {"a", "b", "c", "d"}, c2.Hash: {"x", "y", "z"}}
	g := &changeGit{parGit: &parGit{asked: map[string]int{}}, changed: changed, asked: map[string]int{}}
	m := New(firstChangeGit{g}, nil)
	check := func(what string, paths []string, more, full bool, wantPaths []string, wantMore, wantFull bool) {
		t.Helper()
		if !reflect.DeepEqual(paths, wantPaths) || more != wantMore || full != wantFull {
			t.Fatalf("%s: %v more %v full %v, want %v more %v full %v", what, paths, more, full, wantPaths, wantMore, wantFull)
		}
	}
	// the first files, then the whole answer, then the first files again
	for i := 0; i < 2; i++ {
		p, more, full, err := m.ChangedPathsFirst(c1, 200, 2)
		must(t, err)
		check("c1 first 2", p, more, full, []string{"a", "b"}, true, false)
	}
	p, more, full, err := m.ChangedPathsFirst(c1, 200, 3) // another bound: its own answer
	must(t, err)
	check("c1 first 3", p, more, full, []string{"a", "b", "c"}, true, false)
	p, more, err = m.ChangedPaths(c1, 200)
	must(t, err)
	check("c1 all", p, more, true, changed[c1.Hash], false, true)
	p, more, full, err = m.ChangedPathsFirst(c1, 200, 2)
	must(t, err)
	check("c1 first 2 once all is known", p, more, full, changed[c1.Hash], false, true)
	// the whole answer first
	p, more, err = m.ChangedPaths(c2, 200)
	must(t, err)
	check("c2 all", p, more, true, changed[c2.Hash], false, true)
	p, more, full, err = m.ChangedPathsFirst(c2, 200, 1)
	must(t, err)
	check("c2 first 1", p, more, full, changed[c2.Hash], false, true)
	want := map[string]int{
		c1.Hash + " 200 2": 1, c1.Hash + " 200 3": 1, c1.Hash + " 200 200": 1, c1.Hash + " 200": 1,
		c2.Hash + " 200 200": 1, c2.Hash + " 200": 1,
	}
	if !reflect.DeepEqual(g.asked, want) {
		t.Fatalf("asked %v, want %v", g.asked, want)
	}
	// a Git without ChangedPathsFirst: the whole answer, asked once
	g2 := &changeGit{parGit: &parGit{asked: map[string]int{}}, changed: changed, asked: map[string]int{}}
	m2 := New(g2, nil)
	for i := 0; i < 2; i++ {
		p, more, full, err = m2.ChangedPathsFirst(c1, 200, 2)
		must(t, err)
		check("without first files", p, more, full, changed[c1.Hash], false, true)
	}
	if !reflect.DeepEqual(g2.asked, map[string]int{c1.Hash + " 200": 1}) {
		t.Fatalf("asked %v", g2.asked)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
