package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

// walkCounts returns the walk table's hits and misses of o's repositories
// and the keys they added, then saves them.
func walkCounts(t *testing.T, o *cachedOpener) (hits, misses int, keys [][walkKeySize]byte) {
	t.Helper()
	for _, r := range o.repos {
		if m := r.wmemo; m != nil {
			hits += m.Stats().Hits
			misses += m.Stats().Misses
			keys = append(keys, m.Keys()...)
		}
	}
	o.save(t)
	return hits, misses, keys
}

// TestWalkTableMatchesReference runs the reference comparison cold (the
// walk table is written) then warm (every walk answered from it), with the
// same answers.
func TestWalkTableMatchesReference(t *testing.T) {
	for seed := int64(1); seed <= 2; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			h := buildRefHistory(t, seed)
			o := &cachedOpener{dir: h.dir, c: diskcache.New(t.TempDir()), walks: true}
			h.check(t, o.open)
			if hits, misses, keys := walkCounts(t, o); hits != 0 || misses == 0 || len(keys) == 0 {
				t.Errorf("cold run: %d hits, %d misses, %d answers", hits, misses, len(keys))
			}
			h.check(t, o.open)
			if hits, misses, keys := walkCounts(t, o); hits == 0 || misses != 0 || len(keys) != 0 {
				t.Errorf("warm run: %d hits, %d misses, %d answers added", hits, misses, len(keys))
			}
		})
	}
}

// TestWalkTableShallowLater checks that answers recorded before the
// repository became shallow are not used after: the boundary is in the
// key.
func TestWalkTableShallowLater(t *testing.T) {
	h := buildRefHistory(t, 7)
	o := &cachedOpener{dir: h.dir, c: diskcache.New(t.TempDir()), walks: true}
	h.check(t, o.open)
	o.save(t)
	boundary := h.chain[len(h.chain)/2]
	must(t, os.WriteFile(filepath.Join(h.dir, ".git", "shallow"), []byte(boundary+"\n"), 0o644))
	for run := 0; run < 2; run++ { // the second run could use what the first recorded
		cached, plain := o.open(t), open(t, h.dir)
		if got, want := hashesOf(cached.LastChange(h.asked, 0)), hashesOf(plain.LastChange(h.asked, 0)); !reflect.DeepEqual(got, want) {
			t.Errorf("run %d: LastChange: cached %v\nwant %v", run, got, want)
		}
		for _, b := range []int{0, 1, len(h.chain) / 3, len(h.chain) / 2, len(h.chain) - 2} {
			for _, limit := range []int{0, 1} {
				// a base beyond the boundary: ErrHistoryMissing from both
				got, gerr := cached.CommitsTouching(Commit{Hash: h.chain[b]}, h.asked, limit)
				want, werr := plain.CommitsTouching(Commit{Hash: h.chain[b]}, h.asked, limit)
				if !errors.Is(gerr, ErrHistoryMissing) && gerr != nil || fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Errorf("CommitsTouching(base %d, limit %d): errors %v, want %v", b, limit, gerr, werr)
				}
				if !reflect.DeepEqual(hashMap(got), hashMap(want)) {
					t.Errorf("run %d: CommitsTouching(base %d, limit %d): cached %v\nwant %v", run, b, limit, hashMap(got), hashMap(want))
				}
			}
		}
		o.save(t)
	}
}

// TestWalkTableBadValuesMiss plants, under every answer a warm run looks
// up, values that do not decode or name a commit that is not there: each
// is a miss, and the answers are the reference's.
func TestWalkTableBadValuesMiss(t *testing.T) {
	h := buildRefHistory(t, 8)
	c := diskcache.New(t.TempDir())
	o := &cachedOpener{dir: h.dir, c: c, walks: true}
	h.check(t, o.open)
	name := func() string { return o.repos[0].wmemo.Name() }()
	_, _, keys := walkCounts(t, o)
	missing := bytes.Repeat([]byte{0xab}, 20)
	for i, v := range [][]byte{
		{0},          // an index without a count
		{0, 0},       // no commit
		{0, 1},       // a commit cut short
		{0, 1, 0, 0}, // a commit cut short
		{200, 1},     // an index out of range (and cut short)
		append([]byte{0, 1}, make([]byte, 20)...),                                     // a zero hash
		append(append([]byte{1, 1}, missing...), append([]byte{0, 1}, missing...)...), // indexes not increasing
		append([]byte{0, 1}, missing...),                                              // a commit that is not there
		append(append([]byte{0, 1}, missing...), 7),                                   // something left over
	} {
		t.Run(fmt.Sprint("value ", i), func(t *testing.T) {
			bad := diskcache.New(t.TempDir())
			b := diskcache.NewBuilder(walkKeySize)
			for _, k := range keys {
				b.Add(k[:], v)
			}
			must(t, bad.Write(name, nil, b))
			o := &cachedOpener{dir: h.dir, c: bad, walks: true}
			h.check(t, o.open)
			if hits, misses, _ := walkCounts(t, o); hits != 0 || misses == 0 {
				t.Errorf("%d hits, %d misses", hits, misses)
			}
		})
	}
}

// FuzzDecodeWalk checks that any value decodes without a panic, and that
// encodeWalk's values decode back.
func FuzzDecodeWalk(f *testing.F) {
	f.Add([]byte{}, uint8(3), uint8(2))
	f.Add(append([]byte{0, 1}, bytes.Repeat([]byte{1}, 20)...), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, v []byte, npaths, ncommits uint8) {
		paths := make([]string, int(npaths%16))
		for i := range paths {
			paths[i] = fmt.Sprint("p", i%5) // some duplicates
		}
		if out, ok := decodeWalk(v, paths); ok {
			for p, hs := range out {
				if len(hs) == 0 {
					t.Fatalf("%q: no commit for %s", v, p)
				}
			}
		}
		want := map[string][]plumbing.Hash{}
		for i, p := range paths {
			if i%2 == 0 {
				continue
			}
			for j := 0; j <= int(ncommits%4); j++ {
				var h plumbing.Hash
				h[0], h[1] = byte(i+1), byte(j)
				want[p] = append(want[p], h)
			}
		}
		got, ok := decodeWalk(encodeWalk(paths, want), paths)
		if !ok || !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("round trip of %v: %v %v", want, got, ok)
		}
	})
}
