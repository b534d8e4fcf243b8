package gitobj

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// wantSet answers as the map does at every step, whatever the order of
// the paths asked about: sorted with repeats (an index's stages), sorted
// but for one path, shuffled, with shared prefixes, empty and high bytes.
func TestWantSetMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 7))
	alphabet := []string{"", "a", "a/", "a/b", "a-b", "a/b/c", "b", "\xff", "a\x00", "docs/x.md", "docs/x.md/y", "docs/x", "z"}
	word := func() string {
		s := ""
		for k := rng.IntN(3); k >= 0; k-- {
			s += alphabet[rng.IntN(len(alphabet))]
		}
		return s
	}
	for round := 0; round < 3000; round++ {
		m := map[string]bool{}
		for k := rng.IntN(12); k > 0; k-- {
			m[word()] = rng.IntN(8) != 0 // a false value is not wanted
		}
		names := make([]string, rng.IntN(30))
		for i := range names {
			if i > 0 && rng.IntN(4) == 0 {
				names[i] = names[i-1] // a stage of the same path
			} else {
				names[i] = word()
			}
		}
		switch round % 3 {
		case 0:
			slices.Sort(names)
		case 1:
			slices.Sort(names)
			if len(names) > 1 { // one path out of order
				i, j := rng.IntN(len(names)), rng.IntN(len(names))
				names[i], names[j] = names[j], names[i]
			}
		}
		s := newWantSet(m)
		for i, n := range names {
			if got, want := s.has([]byte(n)), m[n]; got != want {
				t.Fatalf("round %d: set %v, paths %q: %q (at %d) wanted %v, the map says %v", round, m, names, n, i, got, want)
			}
		}
	}
}

// An index read through the merge keeps what the map keeps, heads too,
// with its entries in git's order and out of it.
func TestParseIndexWantOrder(t *testing.T) {
	sorted := []fuzzIndexEntry{
		{name: "a", mode: 0o100644}, {name: "a-b", mode: 0o100644}, {name: "a/b", mode: 0o120000},
		{name: "a/c", mode: 0o100644}, {name: "b", mode: 0o100644, flags: 0x1000}, {name: "b", mode: 0o100644, flags: 0x2000},
		{name: "c", mode: 0o100644}, {name: "d/e", mode: 0o100644},
	}
	want := map[string]bool{"a-b": true, "a/b": true, "a/c": true, "b": true, "c": true, "d/e": true, "zz": true}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		entries := slices.Clone(sorted)
		if round > 0 {
			i, j := rng.IntN(len(entries)), rng.IntN(len(entries))
			entries[i], entries[j] = entries[j], entries[i]
		}
		sc := indexScratch{heads: map[string]plumbing.Hash{}}
		b := fuzzIndex(2, entries, nil)
		got, _ := parseIndexBytes(b, want, 10, 0, &sc)
		if ref := parseIndexBuffer(b, want, 10, 0); !reflect.DeepEqual(got, ref) {
			t.Fatalf("entries %v: %v, the map's %v", entries, got, ref)
		}
		heads := map[string]plumbing.Hash{}
		for i, e := range entries {
			if want[e.name] && (e.mode == 0o100644 || e.mode == 0o120000) && e.flags&0x3000 == 0 {
				heads[e.name] = plumbing.Hash(slices.Repeat([]byte{byte(i + 1)}, 20))
			}
		}
		if fmt.Sprint(sc.heads) != fmt.Sprint(heads) || !sc.noTree {
			t.Fatalf("entries %v: heads %v (no tree %v), the map's %v", entries, sc.heads, sc.noTree, heads)
		}
	}
}

// BenchmarkParseIndexWant reads an index of 100,000 entries for 4,000 of
// its paths (the specs bench repository's shape).
func BenchmarkParseIndexWant(b *testing.B) {
	var entries []fuzzIndexEntry
	want := map[string]bool{}
	for i := 0; i < 100000; i++ {
		name := fmt.Sprintf("docs/specs/area-%03d/topic-%02d/spec-%05d.md", i/1000, i/100%10, i)
		entries = append(entries, fuzzIndexEntry{name: name, mode: 0o100644})
		if i%25 == 0 {
			want[name] = true
		}
	}
	ix := fuzzIndex(2, entries, nil)
	b.ResetTimer()
	for range b.N {
		sc := indexScratch{heads: map[string]plumbing.Hash{}}
		if out, _ := parseIndexBytes(ix, want, 10, 0, &sc); len(out) != len(want) {
			b.Fatalf("%d entries", len(out))
		}
	}
}

// worthReading: the index is scanned from MinIndexPaths paths on, when it
// holds at most indexBytesPerPath bytes a path: the bench's specs shape
// (2,276 paths, a 12.4 MB index) reads it, a workflow of 300 files in a
// 10 MB index hashes them.
func TestIndexWorthReading(t *testing.T) {
	for _, tt := range []struct {
		size     int64
		compared int
		want     bool
	}{
		{12_420_070, 2276, true},
		{10 << 20, 300, false},
		{10 << 20, 640, true},
		{1 << 10, MinIndexPaths - 1, false},
		{1 << 10, MinIndexPaths, true},
		{int64(MinIndexPaths) * indexBytesPerPath, MinIndexPaths, true},
		{int64(MinIndexPaths)*indexBytesPerPath + 1, MinIndexPaths, false},
	} {
		if got := worthReading(tt.size, tt.compared); got != tt.want {
			t.Errorf("worthReading(%d bytes, %d paths) = %v, want %v", tt.size, tt.compared, got, tt.want)
		}
	}
}
