package gitrepo

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// TestWalkSegmentsMatchOneWalk checks that the walk's comparisons of each
// commit with its first parent are the same whether the chain is walked in
// one segment or cut into several, each with a tree cache of its own, on
// random histories with merges (the paths asked including folders, paths
// under files and paths never there): with the cache off, with an empty
// history table (the descriptions learnt by every segment, then saved) and
// with a filled one (every description used, none learnt again).
func TestWalkSegmentsMatchOneWalk(t *testing.T) {
	t.Parallel()
	for seed := int64(1); seed <= 2; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			h := sharedMergeHistory(t, seed)
			r := open(t, h.dir)
			var chain []links
			c, err := r.walkHead()
			must(t, err)
			for {
				chain = append(chain, c)
				p, ok, err := r.parentLinks(c)
				must(t, err)
				if !ok {
					break
				}
				c = p
			}
			if len(chain) < 8 {
				t.Fatalf("a chain of %d commits", len(chain))
			}
			trie := gitobj.NewTrie(h.asked)
			one := r.walkSegments(newTreeCache(r.trees), chain, trie, 1)
			changes := 0
			for k, st := range one {
				if st.err != nil || len(st.parents) != len(st.changed) {
					t.Fatalf("step %d: %v, %d parents for %d changes", k, st.err, len(st.parents), len(st.changed))
				}
				changes += len(st.changed)
			}
			if changes == 0 {
				t.Fatal("no change found: the test would prove nothing")
			}
			learnt := -1 // descriptions learnt from an empty table by one segment
			for _, segs := range []int{1, 2, 3, 5, len(chain) - 1} {
				cache := diskcache.New(t.TempDir())
				for _, mode := range []string{"off", "empty table", "filled table"} {
					r := open(t, h.dir)
					if mode != "off" {
						r.UseCache(cache)
					}
					wc := r.walkCache()
					if (wc.hist != nil) != (mode != "off") {
						t.Fatalf("%s: history table %v", mode, wc.hist != nil)
					}
					got := r.walkSegments(wc, chain, trie, segs)
					if len(got) != len(one) {
						t.Fatalf("%d segments, %s: %d steps, want %d", segs, mode, len(got), len(one))
					}
					for k, st := range got {
						for i, e := range st.parents {
							if e.Mode == filemode.Dir && e.Hash.IsZero() {
								// a description keeps no folder's hash: HistoryFor reads it
								pe, err := r.entriesOf(chain[k+1].tree, st.changed[i:i+1])
								must(t, err)
								st.parents[i] = pe[st.changed[i]]
							}
						}
						if st.err != nil || !reflect.DeepEqual(st.changed, one[k].changed) || (len(st.parents) > 0 || len(one[k].parents) > 0) && !reflect.DeepEqual(st.parents, one[k].parents) {
							t.Fatalf("%d segments, %s, step %d:\ngot  %+v\nwant %+v", segs, mode, k, st, one[k])
						}
					}
					if wc.hist == nil {
						continue
					}
					if learnt < 0 && segs == 1 && mode == "empty table" {
						if learnt = wc.hist.t.Pending(); learnt == 0 {
							t.Fatal("no description learnt: the test would prove nothing")
						}
					}
					want := learnt // as many descriptions learnt as by one segment
					if mode == "filled table" {
						want = 0 // and used, none learnt again
					}
					if n := wc.hist.t.Pending(); n != want || wc.hist.pairMisses != 0 {
						t.Fatalf("%d segments, %s: %d descriptions learnt, want %d; %d misses", segs, mode, n, want, wc.hist.pairMisses)
					}
					must(t, r.SaveCache())
				}
			}
		})
	}
}
