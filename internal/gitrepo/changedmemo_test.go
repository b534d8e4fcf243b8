package gitrepo

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitcache"
)

// changedAll is ChangedPaths of every commit of h's chain with bounds 1, 3
// and 200, through r.
func changedAll(t *testing.T, r *Repo, h refHistory) []gitcache.ChangedAnswer {
	t.Helper()
	var out []gitcache.ChangedAnswer
	for _, c := range h.chain {
		for _, max := range []int{1, 3, 200} {
			paths, more, err := r.ChangedPaths(Commit{Hash: c}, max)
			must(t, err)
			out = append(out, gitcache.ChangedAnswer{Max: max, More: more, Paths: paths})
		}
	}
	return out
}

// TestChangedTableMatchesOff: ChangedPaths of every commit of random
// histories, cache off, cold (the table is written) and warm (answered by
// the table: hits, nothing added), give the same answers; a commit that
// became a shallow boundary since is answered as without the table.
func TestChangedTableMatchesOff(t *testing.T) {
	t.Parallel()
	for seed := int64(1); seed <= 3; seed++ {
		h := copyRefHistory(t, seed) // made shallow below
		want := changedAll(t, open(t, h.dir), h)
		o := &cachedOpener{dir: h.dir, c: diskcache.New(t.TempDir()), walks: true}
		cold := o.open(t)
		if got := changedAll(t, cold, h); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: cold %v, want %v", seed, got, want)
		}
		if cold.cmemo.Pending() == 0 {
			t.Fatalf("seed %d: the cold run added no answer", seed)
		}
		o.save(t)
		warm := o.open(t)
		if got := changedAll(t, warm, h); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: warm %v, want %v", seed, got, want)
		}
		// the first commit has no parent: never in the table; the table
		// holds one bound per commit (the first asked, 1), another is a miss
		if st := warm.cmemo.Stats(); st.Hits != len(h.chain)-1 {
			t.Fatalf("seed %d: warm run: %+v", seed, st)
		}
		o.save(t)

		boundary := h.chain[len(h.chain)/2]
		must(t, os.WriteFile(filepath.Join(h.dir, ".git", "shallow"), []byte(boundary+"\n"), 0o644))
		wantShallow := changedAll(t, open(t, h.dir), h)
		if got := changedAll(t, o.open(t), h); !reflect.DeepEqual(got, wantShallow) {
			t.Fatalf("seed %d: shallow later: %v, want %v", seed, got, wantShallow)
		}
		o.save(t)
		must(t, os.Remove(filepath.Join(h.dir, ".git", "shallow")))
	}
}
