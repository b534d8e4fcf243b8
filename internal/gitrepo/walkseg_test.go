package gitrepo

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// TestWalkSegmentsMatchOneWalk checks that the walk's comparisons of each
// commit with its first parent are the same whether the chain is walked in
// one segment or cut into several, each with a tree cache of its own, on
// random histories with merges (the paths asked including folders, paths
// under files and paths never there).
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
			for _, segs := range []int{2, 3, 5, len(chain) - 1} {
				got := r.walkSegments(newTreeCache(open(t, h.dir).trees), chain, trie, segs)
				if !reflect.DeepEqual(got, one) {
					t.Fatalf("%d segments:\ngot  %+v\nwant %+v", segs, got, one)
				}
			}
		})
	}
}
