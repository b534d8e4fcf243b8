package gitrepo

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

// changedAll is ChangedPaths of every commit of h's chain with bounds 1, 3
// and 200, through r.
func changedAll(t *testing.T, r *Repo, h refHistory) []changedAnswer {
	t.Helper()
	var out []changedAnswer
	for _, c := range h.chain {
		for _, max := range []int{1, 3, 200} {
			paths, more, err := r.ChangedPaths(Commit{Hash: c}, max)
			must(t, err)
			out = append(out, changedAnswer{max: max, more: more, paths: paths})
		}
	}
	return out
}

// TestChangedTableMatchesOff: ChangedPaths of every commit of random
// histories, cache off, cold (the table is written) and warm (answered by
// the table: hits, nothing added), give the same answers; a commit that
// became a shallow boundary since is answered as without the table.
func TestChangedTableMatchesOff(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		h := buildRefHistory(t, seed)
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

// TestDecodeChanged: values round-trip, and malformed ones do not decode.
func TestDecodeChanged(t *testing.T) {
	for _, a := range []changedAnswer{
		{max: 200},
		{max: 1, more: true, paths: []string{"a"}},
		{max: 3, paths: []string{"src/x/one.ts", "é/b", "a.txt"}},
	} {
		got, ok := decodeChanged(encodeChanged(nil, a))
		if !ok || got.max != a.max || got.more != a.more || len(got.paths) != len(a.paths) ||
			(len(a.paths) > 0 && !reflect.DeepEqual(got.paths, a.paths)) {
			t.Errorf("round trip of %+v: %+v %v", a, got, ok)
		}
	}
	good := encodeChanged(nil, changedAnswer{max: 2, paths: []string{"ab", "c"}})
	bad := map[string][]byte{
		"empty":          nil,
		"version":        append([]byte{9}, good[1:]...),
		"zero max":       {changedVersion, 0, 0, 0},
		"more 2":         {changedVersion, 2, 2, 0},
		"more than max":  encodeChanged(nil, changedAnswer{max: 1, paths: []string{"a", "b"}}),
		"empty path":     {changedVersion, 2, 0, 1, 0},
		"truncated":      good[:len(good)-1],
		"left over":      append(append([]byte{}, good...), 'x'),
		"length too big": {changedVersion, 2, 0, 1, 9, 'a'},
	}
	for name, v := range bad {
		if _, ok := decodeChanged(v); ok {
			t.Errorf("%s: decoded", name)
		}
	}
}

// FuzzChangedValue: any value decodes or not without panicking, and what
// decodes encodes to a value that decodes to the same answer.
func FuzzChangedValue(f *testing.F) {
	f.Add(encodeChanged(nil, changedAnswer{max: 3, paths: []string{"src/x/one.ts", "a.txt"}}))
	f.Add([]byte{changedVersion, 1, 1, 0})
	f.Fuzz(func(t *testing.T, v []byte) {
		a, ok := decodeChanged(v)
		if !ok {
			return
		}
		got, ok := decodeChanged(encodeChanged(nil, a))
		if !ok || !reflect.DeepEqual(got, a) {
			t.Fatalf("%x decodes to %+v, which encodes to a value that decodes to %+v (%v)", v, a, got, ok)
		}
	})
}
