package gitmemo

import (
	"fmt"
	"reflect"
	"sort"
	"sync"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// walkGit is a parGit that walks the history for every workflow of a run
// (as *gitrepo.Repo does), counting the walks and keeping what each was
// asked; block, when set, holds each walk until it is closed.
type walkGit struct {
	*parGit
	wmu   sync.Mutex
	walks int
	bases []string
	paths []string
	block chan struct{}
}

func (g *walkGit) HistoryFor(bases []gitrepo.Commit, paths []string, _ int) *gitrepo.History {
	if g.block != nil {
		<-g.block
	}
	g.wmu.Lock()
	defer g.wmu.Unlock()
	g.walks++
	g.bases, g.paths = nil, append([]string(nil), paths...)
	for _, b := range bases {
		g.bases = append(g.bases, b.Hash)
	}
	return &gitrepo.History{}
}

// walkRun is a Memo of g for resumable candidates at bases, candidate i
// referencing files[i].
func walkRun(g Git, bases []string, files [][]string) *Memo {
	run := &fakeRun{}
	for i, b := range bases {
		c := &workflow.Candidate{ID: fmt.Sprintf("workflow:w-%02d", i), Resumable: true, Commit: b}
		for _, p := range files[i] {
			c.Files = append(c.Files, workflow.RefFile{Path: p})
		}
		run.cands = append(run.cands, c)
	}
	return New(g, run)
}

// Prepare walks the run's history once, on a goroutine of its own, for
// the bases and the union of the files of every resumable candidate: what
// the first Compare would have walked. The Compares after it take that
// walk (no second one), and a second Prepare starts nothing.
func TestPrepareWalksOnceBeforeTheCompares(t *testing.T) {
	g := &walkGit{parGit: &parGit{asked: map[string]int{}}, block: make(chan struct{})}
	b0, b1 := parBase(0), parBase(1)
	c := walkRun(g, []string{b0, b1}, [][]string{{"a.go", "b/c.go"}, {"b/c.go", "d.go"}})
	done := c.Prepare(4)
	if done == nil {
		t.Fatal("Prepare started no walk for two resumable candidates of a Git that walks")
	}
	select {
	case <-done:
		t.Fatal("the walk ended before the Git answered")
	default:
	}
	// the memo's lock is the walk's from Prepare on: no validation can
	// take it first and walk in its place
	if c.mu.TryLock() {
		c.mu.Unlock()
		t.Fatal("the memo's lock is free after Prepare, before the walk it started is done")
	}
	// a Compare while the walk runs waits for it, then takes it
	compared := make(chan []gitrepo.PathState, 1)
	go func() {
		got, err := c.Compare(gitrepo.Commit{Hash: b0}, []string{"a.go"})
		if err != nil {
			t.Error(err)
		}
		compared <- got
	}()
	close(g.block)
	<-done
	if got := <-compared; !reflect.DeepEqual(got, wantStates(b0, []string{"a.go"})) {
		t.Errorf("Compare after the walk: %+v", got)
	}
	if c.Walked() == nil {
		t.Error("the walked History is not the run's")
	}
	if _, err := c.Compare(gitrepo.Commit{Hash: b1}, []string{"d.go"}); err != nil {
		t.Fatal(err)
	}
	if again := c.Prepare(4); again != nil {
		t.Error("a second Prepare started another walk")
	}
	g.wmu.Lock()
	defer g.wmu.Unlock()
	if g.walks != 1 {
		t.Fatalf("%d walks, want 1", g.walks)
	}
	sort.Strings(g.paths)
	if want := []string{"a.go", "b/c.go", "d.go"}; !reflect.DeepEqual(g.paths, want) {
		t.Errorf("walked for %q, want the union %q", g.paths, want)
	}
	if want := []string{b0, b1}; !reflect.DeepEqual(g.bases, want) {
		t.Errorf("walked for bases %q, want %q", g.bases, want)
	}
}

// Prepare starts nothing where the first Compare would walk nothing: one
// resumable candidate, a Git that cannot walk for all, no run.
func TestPrepareStartsNothingWithoutAWalk(t *testing.T) {
	walker := &walkGit{parGit: &parGit{asked: map[string]int{}}}
	if done := walkRun(walker, []string{parBase(0)}, [][]string{{"a.go"}}).Prepare(1); done != nil {
		t.Error("a walk started for one resumable candidate")
	}
	plain := &parGit{asked: map[string]int{}}
	if done := walkRun(plain, []string{parBase(0), parBase(1)}, [][]string{{"a.go"}, {"b.go"}}).Prepare(2); done != nil {
		t.Error("a walk started with a Git that cannot walk for all")
	}
	if done := New(walker, nil).Prepare(2); done != nil {
		t.Error("a walk started without a run")
	}
	if walker.walks != 0 {
		t.Errorf("%d walks, want none", walker.walks)
	}
}
