package gitobj

import (
	"fmt"
	"github.com/orchestrate-dev/orchestrate/internal/gitverify"
	"runtime"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/memory"
)

// storeTrees stores n distinct trees of about the same size in a memory
// storage and returns it with their hashes.
func storeTrees(t *testing.T, n int) (*memory.Storage, []plumbing.Hash) {
	t.Helper()
	st := memory.NewStorage()
	var hs []plumbing.Hash
	for i := 0; i < n; i++ {
		obj := st.NewEncodedObject()
		obj.SetType(plumbing.TreeObject)
		w, err := obj.Writer()
		must(t, err)
		_, err = w.Write(rawTree("100644", fmt.Sprintf("f%03d", i), "040000", fmt.Sprintf("d%03d", i)))
		must(t, err)
		must(t, w.Close())
		h, err := st.SetEncodedObject(obj)
		must(t, err)
		hs = append(hs, h)
	}
	return st, hs
}

// The cache keeps at most its budget of bytes, and past it drops the tree
// used least recently for one asked for twice: a tree met late in a run is
// kept, one in use is not dropped.
func TestTreeIndexCacheBudgetHolds(t *testing.T) {
	t.Parallel()
	st, hs := storeTrees(t, 40)
	one := NewTreeIndex(rawTree("100644", "f000", "040000", "d000")).size()
	c := NewTreeIndexCache(st, 3*one) // room for three trees
	twice := func(h plumbing.Hash) {
		t.Helper()
		for i := 0; i < 2; i++ {
			if _, _, err := c.Lookup(h); err != nil {
				t.Fatal(err)
			}
		}
		if n, used := c.kept(); used > 3*one || n > 3 {
			t.Fatalf("kept %d trees, %d bytes: over the budget of %d", n, used, 3*one)
		}
	}
	for _, h := range hs[:3] {
		twice(h)
	}
	if _, _, err := c.Lookup(hs[0]); err != nil { // hs[0] used last: hs[1] is the oldest now
		t.Fatal(err)
	}
	for _, h := range hs[3:] {
		twice(h)
		if _, _, err := c.Lookup(hs[0]); err != nil {
			t.Fatal(err)
		}
	}
	last := hs[len(hs)-1]
	for _, h := range []plumbing.Hash{hs[0], last} {
		if _, kept := c.m[h]; !kept {
			t.Errorf("tree %s (used recently) not kept", h.String()[:7])
		}
	}
	if _, kept := c.m[hs[1]]; kept {
		t.Error("the tree used least recently is still kept")
	}
	if n, used := c.kept(); n != 3 || used != 3*one {
		t.Errorf("kept %d trees, %d bytes; want 3, %d", n, used, 3*one)
	}
	// a tree over the whole budget is indexed for the caller, not kept
	small := NewTreeIndexCache(st, one-1)
	for i := 0; i < 2; i++ {
		if idx, raw, err := small.Lookup(hs[5]); err != nil || (idx == nil && raw == nil) {
			t.Fatalf("look-up %d: %v %v %v", i, idx, raw, err)
		}
	}
	if n, used := small.kept(); n != 0 || used != 0 {
		t.Errorf("a tree over the budget was kept: %d trees, %d bytes", n, used)
	}
}

// The budget changes what is read again, never an answer: every path of
// every commit of a history resolves to the same entry (and every tree
// read, again or not, passes verification) with no room at all, a tiny
// budget that drops trees all along, and the Repo's budget.
func TestTreeIndexCacheBudgetSameAnswers(t *testing.T) {
	t.Parallel()
	dir, chain := aheadChain(t, 60)
	paths := []string{"a/x/f", "b/g", "c/h", "a/x", "a", "b/none", "none"}
	roots := make([]plumbing.Hash, len(chain))
	for i, c := range chain {
		roots[i] = plumbing.NewHash(strings.TrimSpace(gitStdin(t, dir, "", "rev-parse", c+"^{tree}")))
	}
	answers := func(budget int) string {
		s := openStore(t, dir)
		c := NewTreeIndexCache(s, budget)
		v := &gitverify.Verifier{}
		v.On.Store(true)
		c.Verify = v
		var out strings.Builder
		for pass := 0; pass < 3; pass++ { // trees asked for again and again
			for i := len(chain) - 1; i >= 0; i-- {
				for _, p := range paths {
					h, found := roots[i], true
					for _, name := range strings.Split(p, "/") {
						idx, err := c.GetLazy(h)
						if err != nil {
							t.Fatalf("budget %d: %v", budget, err)
						}
						e, ok := idx.Find(name)
						if !ok {
							found = false
							break
						}
						h = e.Hash
					}
					fmt.Fprintf(&out, "%d %s %v %s\n", i, p, found, h)
				}
				if _, used := c.kept(); used > budget {
					t.Fatalf("budget %d: %d bytes kept", budget, used)
				}
			}
		}
		if v.Failed() {
			t.Fatalf("budget %d: a tree read failed verification", budget)
		}
		return out.String()
	}
	want := answers(TreeIndexBudget)
	if n := strings.Count(want, " true "); n == 0 {
		t.Fatal("no path found: the test compares nothing")
	}
	for _, budget := range []int{0, 200, 1 << 10} {
		if got := answers(budget); got != want {
			t.Errorf("budget %d: answers differ from the Repo's budget", budget)
		}
	}
}

// A halted chain reader drops what it read ahead (the trees it holds) and
// hands nothing more; Halt may be called again (a walk's end, then Close).
func TestChainReaderHaltDrops(t *testing.T) {
	t.Parallel()
	dir, chain := aheadChain(t, 30)
	s := openStore(t, dir)
	c := StartChain(s.Fork(), plumbing.NewHash(chain[len(chain)-1]), false, func(plumbing.Hash) bool { return false }, NewTrie([]string{"a/x/f", "b/g"}))
	if it, ok := c.Take(); !ok || len(it.Trees) == 0 {
		t.Fatalf("first item: %v, %d trees", ok, len(it.Trees))
	}
	for len(c.out) == 0 { // wait until something waits in the queue
		select {
		case <-c.Done():
			t.Fatal("the reader ended before reading ahead")
		default:
			runtime.Gosched()
		}
	}
	c.Halt()
	c.Halt()
	if _, ok := c.Take(); ok {
		t.Fatal("a halted reader handed an item read before it halted")
	}
}
