package gitrepo

import (
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

// TestLastCommittedBatchIsOneByOne: LastCommitted compares the files and
// folders of a batch side by side (par.For, from 8 paths on); its answers
// are those of each path asked on its own, in any order, a path asked
// twice included, with the cache off and with the work-tree hash table,
// and the race detector (make test) sees the comparisons share nothing
// unguarded.
func TestLastCommittedBatchIsOneByOne(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	clone := filepath.Join(t.TempDir(), "clone") // every file as committed
	must(t, gitfixture.Clone(h.dir, clone))
	batch := append(slices.Clone(datingPaths), "src/app/main.go", "docs")
	slices.Reverse(batch[:6])
	for _, c := range []struct {
		dir    string
		dated  int
		cached bool
	}{{h.dir, 3, false}, {h.dir, 3, true}, {clone, 6, false}, {clone, 6, true}} {
		dir, cached := c.dir, c.cached
		var disk *diskcache.Cache
		if cached {
			disk = diskcache.New(filepath.Join(t.TempDir(), "cache"))
		}
		want := map[string]string{}
		for _, p := range batch {
			r := open(t, dir)
			r.UseCache(disk)
			for q, c := range r.LastCommitted([]string{p}, 0) {
				want[q] = c.Hash
			}
		}
		if len(want) < c.dated {
			t.Fatalf("%s, cache %v: only %d paths dated one by one: %v", dir, cached, len(want), want)
		}
		for run := 0; run < 2; run++ { // with the cache: the table empty, then filled
			r := open(t, dir)
			r.UseCache(disk)
			got := map[string]string{}
			for q, c := range r.LastCommitted(batch, 0) {
				got[q] = c.Hash
			}
			must(t, r.SaveCache())
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, cache %v, run %d: %v\nwant (one by one) %v", dir, cached, run, got, want)
			}
		}
	}
}
