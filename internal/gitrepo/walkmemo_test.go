package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitcache"
)

// walkCounts returns the walk table's hits and misses of o's repositories
// and the keys they added, then saves them.
func walkCounts(t *testing.T, o *cachedOpener) (hits, misses int, keys [][gitcache.WalkKeySize]byte) {
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
	t.Parallel()
	for seed := int64(1); seed <= 2; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			h := sharedRefHistory(t, seed)
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
	t.Parallel()
	h := copyRefHistory(t, 3) // made shallow below
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
	t.Parallel()
	h := sharedRefHistory(t, 2)
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
			t.Parallel()
			bad := diskcache.New(t.TempDir())
			b := diskcache.NewBuilder(gitcache.WalkKeySize)
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
