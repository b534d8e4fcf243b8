package gitobj

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// rawTree builds a tree object's content from mode/name pairs in the order
// given; entry i gets the hash with every byte i+1.
func rawTree(entries ...string) []byte {
	var raw []byte
	for i := 0; i+1 < len(entries); i += 2 {
		raw = append(raw, entries[i]+" "+entries[i+1]+"\x00"...)
		var h plumbing.Hash
		for j := range h {
			h[j] = byte(i/2 + 1)
		}
		raw = append(raw, h[:]...)
	}
	return raw
}

func hashOf(b byte) plumbing.Hash {
	var h plumbing.Hash
	for j := range h {
		h[j] = b
	}
	return h
}

func TestTreeIndexFind(t *testing.T) {
	// git order: a folder sorts as if its name ended in '/', so "foo.c"
	// ('.' < '/') comes before the folder "foo", and "foo0" after it.
	sorted := rawTree("100644", "a", "100644", "foo-bar", "100644", "foo.c", "40000", "foo", "100644", "foo0", "160000", "mod", "120000", "z")
	unsorted := rawTree("100644", "b", "100644", "a", "100644", "b")
	truncated := append(rawTree("100644", "a"), "100644 b\x00short"...)
	tests := []struct {
		name       string
		raw        []byte
		want       string
		ok         bool
		mode       filemode.FileMode
		hash       byte
		wantSorted bool
	}{
		{"first", sorted, "a", true, filemode.Regular, 1, true},
		{"before a folder of the same prefix", sorted, "foo.c", true, filemode.Regular, 3, true},
		{"folder", sorted, "foo", true, filemode.Dir, 4, true},
		{"after the folder", sorted, "foo0", true, filemode.Regular, 5, true},
		{"submodule", sorted, "mod", true, filemode.Submodule, 6, true},
		{"last", sorted, "z", true, filemode.Symlink, 7, true},
		{"absent", sorted, "foo/", false, 0, 0, true},
		{"absent prefix", sorted, "fo", false, 0, 0, true},
		{"empty name", sorted, "", false, 0, 0, true},
		{"unsorted: the last duplicate counts", unsorted, "b", true, filemode.Regular, 3, false},
		{"unsorted: found by a scan", unsorted, "a", true, filemode.Regular, 2, false},
		{"truncated last entry ignored", truncated, "b", false, 0, 0, true},
		{"empty tree", nil, "a", false, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx := NewTreeIndex(tt.raw)
			if idx.Sorted != tt.wantSorted {
				t.Errorf("sorted = %v, want %v", idx.Sorted, tt.wantSorted)
			}
			e, ok := idx.Find(tt.want)
			if ok != tt.ok {
				t.Fatalf("find(%q) ok = %v, want %v", tt.want, ok, tt.ok)
			}
			if ok && (e.Mode != tt.mode || e.Hash != hashOf(tt.hash)) {
				t.Errorf("find(%q) = %v %s, want %v %s", tt.want, e.Mode, e.Hash, tt.mode, hashOf(tt.hash))
			}
		})
	}
}

// TestScanTreeMerge checks the merging scan against a look-up per entry, on
// trees in git's order and out of it, with names a folder's '/' reorders.
func TestScanTreeMerge(t *testing.T) {
	sorted := rawTree("100644", "a", "100644", "foo-bar", "100644", "foo.c", "40000", "foo", "100644", "foo0", "160000", "mod", "120000", "z")
	tests := []struct {
		name  string
		raw   []byte
		paths []string
	}{
		{"sorted", sorted, []string{"foo", "foo.c", "z", "missing", "foo0/x"}},
		{"folder and file of one name", rawTree("100644", "foo", "100644", "foo.c", "40000", "foo"), []string{"foo", "foo.c"}},
		{"unsorted", rawTree("100644", "b", "100644", "a", "100644", "b"), []string{"a", "b"}},
		{"duplicate", rawTree("100644", "a", "100644", "a"), []string{"a"}},
		{"truncated", append(rawTree("100644", "a"), "100644 b\x00short"...), []string{"a", "b"}},
		{"empty", nil, []string{"a"}},
		{"no wanted name", sorted, []string{"zz"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkScanTree(t, tt.raw, tt.paths)
		})
	}
}

// TestScanTreeMergeRandom compares the two scans on random trees: sorted,
// shuffled, with duplicates, over names whose order a folder's '/' changes.
func TestScanTreeMergeRandom(t *testing.T) {
	names := []string{"a", "a.b", "a-b", "a0", "ab", "b", "a/", "c.d", "c"}
	modes := []string{"100644", "40000", "100755", "120000", "160000"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		type ent struct {
			mode, name string
		}
		var ents []ent
		for j := rng.IntN(8); j > 0; j-- {
			n := names[rng.IntN(len(names)-3)]
			ents = append(ents, ent{modes[rng.IntN(len(modes))], n})
		}
		if rng.IntN(2) == 0 {
			sort.SliceStable(ents, func(a, b int) bool {
				return CompareNames([]byte(ents[a].name), IsDirMode([]byte(ents[a].mode)), []byte(ents[b].name), IsDirMode([]byte(ents[b].mode))) < 0
			})
		}
		var flat []string
		for _, e := range ents {
			flat = append(flat, e.mode, e.name)
		}
		var paths []string
		for _, n := range names {
			if rng.IntN(2) == 0 {
				paths = append(paths, n)
			}
		}
		checkScanTree(t, rawTree(flat...), paths)
	}
}

func checkScanTree(t *testing.T, raw []byte, paths []string) {
	t.Helper()
	n := NewTrie(paths).Root
	got, want := make([]RawEntry, len(n.Names)), make([]RawEntry, len(n.Names))
	scanTree(raw, n, got, nil, nil)
	scanTreeLookup(raw, n, want)
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("tree %q, names %q: entry %d = %v, want %v", raw, n.Names, i, got[i], want[i])
		}
	}
}

// BenchmarkScanTree scans a 500-entry folder tree (like src/ in the
// benchmark repositories) for 18 wanted names.
func BenchmarkScanTree(b *testing.B) {
	var flat []string
	for i := 0; i < 500; i++ {
		flat = append(flat, "40000", fmt.Sprintf("pkg%03d", i))
	}
	raw := rawTree(flat...)
	var paths []string
	for i := 0; i < 18; i++ {
		paths = append(paths, fmt.Sprintf("pkg%03d/x", i*17))
	}
	n := NewTrie(paths).Root
	t := make([]RawEntry, len(n.Names))
	b.ReportAllocs()
	for b.Loop() {
		scanTree(raw, n, t, nil, nil)
	}
}

// TestDeriveMatchesScan derives random trees from random near ones (an entry
// changed, added, removed, renamed; out of order; truncated) and checks the
// result against a full scan.
func TestDeriveMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	names := []string{"a", "a.b", "a-b", "a0", "ab", "b", "c.d", "c", "d", "e", "pkg001", "pkg002", "pkg010"}
	modes := []string{"100644", "40000", "100755", "120000"}
	type ent struct {
		mode, name string
		h          byte
	}
	build := func(ents []ent) []byte {
		var raw []byte
		for _, e := range ents {
			raw = append(raw, e.mode+" "+e.name+"\x00"...)
			for k := 0; k < 20; k++ {
				raw = append(raw, e.h)
			}
		}
		return raw
	}
	sortEnts := func(ents []ent) {
		sort.SliceStable(ents, func(a, b int) bool {
			return CompareNames([]byte(ents[a].name), IsDirMode([]byte(ents[a].mode)), []byte(ents[b].name), IsDirMode([]byte(ents[b].mode))) < 0
		})
	}
	derived := 0
	var scratch []int32
	for i := 0; i < 3000; i++ {
		var ents []ent
		seen := map[string]bool{}
		for j := rng.IntN(12); j > 0; j-- {
			e := ent{modes[rng.IntN(len(modes))], names[rng.IntN(len(names))], byte(rng.IntN(4))}
			if !seen[e.name] || rng.IntN(10) == 0 {
				seen[e.name] = true
				ents = append(ents, e)
			}
		}
		sortEnts(ents)
		var paths []string
		for _, nm := range names {
			if rng.IntN(3) == 0 {
				paths = append(paths, nm)
			}
		}
		n := NewTrie(paths).Root
		near := ScanFull(build(ents), n)
		for step := 0; step < 4; step++ {
			next := append([]ent(nil), ents...)
			switch k := rng.IntN(7); {
			case k == 0 && len(next) > 0:
				next[rng.IntN(len(next))].h ^= 7
			case k == 1:
				next = append(next, ent{modes[rng.IntN(len(modes))], names[rng.IntN(len(names))], 9})
				sortEnts(next)
			case k == 2 && len(next) > 0:
				x := rng.IntN(len(next))
				next = append(next[:x], next[x+1:]...)
			case k == 3 && len(next) > 0:
				next[rng.IntN(len(next))].name = names[rng.IntN(len(names))]
				sortEnts(next)
			case k == 4 && len(next) > 1:
				x := rng.IntN(len(next) - 1)
				next[x], next[x+1] = next[x+1], next[x]
			}
			raw := build(next)
			if rng.IntN(20) == 0 && len(raw) > 0 {
				raw = raw[:rng.IntN(len(raw))]
			}
			want := ScanFull(raw, n)
			got := Derive(near, raw, n, &scratch)
			if got != nil {
				derived++
				if !reflect.DeepEqual(got.Ents, want.Ents) {
					t.Fatalf("near %q\nraw %q\nnames %q: derived %v, scanned %v", near.raw, raw, n.Names, got.Ents, want.Ents)
				}
				if want.offs == nil || !reflect.DeepEqual(got.offs, want.offs) || !reflect.DeepEqual(got.at, want.at) {
					t.Fatalf("near %q\nraw %q\nnames %q: derived offs %v at %v, scanned %v %v", near.raw, raw, n.Names, got.offs, got.at, want.offs, want.at)
				}
				near = got
			} else {
				near = want
			}
			ents = next
		}
	}
	if derived < 1000 {
		t.Errorf("only %d trees derived", derived)
	}
}
