package gitobj

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// scanIndexReference is ScanIndex as it was before it merged the wanted
// names with a well-formed tree: a look-up (Find) per name, nothing
// recorded to derive from (TestScanIndexAsReference,
// FuzzScanIndexAsReference).
func scanIndexReference(idx *TreeIndex, n *TrieNode) *Scanned {
	t := &Scanned{Ents: make([]RawEntry, len(n.Names)), idx: idx}
	for i, name := range n.Names {
		if e, ok := idx.Find(name); ok {
			t.Ents[i] = e
		}
	}
	return t
}

// checkScanIndex compares ScanIndex on raw with the reference: the same
// entries; when it recorded offsets, ScanFull's own offsets and places;
// and a tree derived from it is the one derived from ScanFull's scan.
func checkScanIndex(t *testing.T, raw, next []byte, n *TrieNode) (merged bool) {
	t.Helper()
	got := ScanIndex(NewTreeIndex(raw), n)
	want := scanIndexReference(NewTreeIndex(raw), n)
	if !reflect.DeepEqual(got.Ents, want.Ents) {
		t.Fatalf("ScanIndex(%q) = %v, the reference %v", raw, got.Ents, want.Ents)
	}
	if got.offs == nil {
		if got.at != nil || got.raw != nil {
			t.Fatalf("ScanIndex(%q): places without offsets", raw)
		}
		return false
	}
	full := ScanFull(raw, n)
	if full.offs == nil || !slices.Equal(got.offs, full.offs) || !reflect.DeepEqual(got.at, full.at) {
		t.Fatalf("ScanIndex(%q) offsets %v at %v, ScanFull's %v at %v", raw, got.offs, got.at, full.offs, full.at)
	}
	if !reflect.DeepEqual(got.Ents, full.Ents) {
		t.Fatalf("ScanIndex(%q) = %v, ScanFull %v", raw, got.Ents, full.Ents)
	}
	offs := slices.Clone(got.offs)
	var s1, s2 []int32
	d1, d2 := Derive(got, next, n, &s1), Derive(full, next, n, &s2)
	if !sameDerivedOver(d1, d2) {
		t.Fatalf("derived from ScanIndex(%q): %+v, from ScanFull %+v", raw, d1, d2)
	}
	if !slices.Equal(offs, got.offs) {
		t.Fatal("the index's offsets were written")
	}
	return true
}

// sameDerivedOver is sameDerived for answers derived from two scans of
// the same bytes (their offsets may be shared with either).
func sameDerivedOver(a, b *Scanned) bool {
	if a == nil || b == nil {
		return a == b
	}
	return reflect.DeepEqual(a.Ents, b.Ents) && reflect.DeepEqual(a.at, b.at) &&
		slices.Equal(a.offs, b.offs) && (a.offs == nil) == (b.offs == nil) &&
		slices.Equal(a.parsed, b.parsed) && slices.Equal(a.gone, b.gone) &&
		len(a.raw) == len(b.raw)
}

// TestScanIndexAsReference: on random trees (names sorting around '.',
// '-', '/', a file and a folder of one name, hostile modes, out of order,
// cut short or given junk) with few or many wanted names, ScanIndex gives
// the reference's entries, and what it records to derive from is ScanFull's.
func TestScanIndexAsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 11))
	var names []string
	for i := 0; i < 80; i++ {
		names = append(names, fmt.Sprintf("f%02d", i))
	}
	names = append(names, "a", "a.b", "a-b", "a0", "a/", "pkg", "pkg.go", "pkg-x", "pkg0", "z", "é")
	modes := []string{"100644", "100755", "40000", "40000", "040000", "120000", "160000", "1", "4000"}
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
	merged := 0
	for i := 0; i < 3000; i++ {
		var ents []ent
		for j := rng.IntN(120); j > 0; j-- {
			ents = append(ents, ent{modes[rng.IntN(len(modes))], names[rng.IntN(len(names))], byte(rng.IntN(200))})
		}
		if rng.IntN(10) != 0 {
			sort.SliceStable(ents, func(a, b int) bool {
				return CompareNames([]byte(ents[a].name), IsDirMode([]byte(ents[a].mode)), []byte(ents[b].name), IsDirMode([]byte(ents[b].mode))) < 0
			})
			if rng.IntN(4) != 0 {
				ents = slices.CompactFunc(ents, func(a, b ent) bool { return a.name == b.name })
			}
		}
		raw := build(ents)
		switch rng.IntN(20) {
		case 0:
			raw = raw[:rng.IntN(len(raw)+1)]
		case 1:
			raw = append(raw, "junk"...)
		}
		next := slices.Clone(raw)
		if len(next) > 30 {
			next[rng.IntN(len(next))]++
		}
		var paths []string
		every := 1 + rng.IntN(30)
		for _, nm := range names {
			if rng.IntN(every) == 0 {
				paths = append(paths, nm, nm+"/x")
			}
		}
		if checkScanIndex(t, raw, next, NewTrie(paths).Root) {
			merged++
		}
	}
	if merged < 500 {
		t.Errorf("only %d trees merged: too few to tell", merged)
	}
}

// FuzzScanIndexAsReference: on any bytes, ScanIndex gives the reference's
// entries and, when it records them, ScanFull's offsets.
func FuzzScanIndexAsReference(f *testing.F) {
	for _, raw := range fuzzTrees() {
		f.Add(raw, "a,foo,foo.c,foo-bar,foo0,mod,z,b")
		f.Add(raw, "foo")
	}
	f.Fuzz(func(t *testing.T, raw []byte, names string) {
		if len(raw) > 4096 || len(names) > 200 {
			return
		}
		paths := strings.Split(names, ",")
		if len(paths) > 16 {
			return
		}
		next := append(slices.Clone(raw), rawTree("100644", "zz")...)
		checkScanIndex(t, raw, next, NewTrie(paths).Root)
	})
}
