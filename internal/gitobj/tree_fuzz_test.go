package gitobj

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// linearFind is the reference look-up of a tree: a scan of every whole
// entry, the last one of the name counting.
func linearFind(raw []byte, name string) (e RawEntry, ok bool) {
	for len(raw) > 0 {
		sp := bytes.IndexByte(raw, ' ')
		if sp < 0 {
			break
		}
		nul := bytes.IndexByte(raw[sp+1:], 0)
		if nul < 0 || sp+1+nul+21 > len(raw) {
			break
		}
		if string(raw[sp+1:sp+1+nul]) == name {
			e, ok = ParseEntry(raw[:sp], raw[sp+1+nul+1:sp+1+nul+21]), true
		}
		raw = raw[sp+1+nul+21:]
	}
	return e, ok
}

// fuzzTrees are well-formed and malformed trees for the tree targets' seeds.
func fuzzTrees() [][]byte {
	sorted := rawTree("100644", "a", "100644", "foo-bar", "100644", "foo.c", "40000", "foo", "100644", "foo0", "160000", "mod", "120000", "z")
	out := [][]byte{
		sorted,
		rawTree("100644", "a", "100644", "foo.c", "40000", "foo", "100644", "foo0"),
		rawTree("100644", "foo", "40000", "foo"), // a file and a folder of one name
		rawTree("100644", "b", "100644", "a", "100644", "b"),
		rawTree("40000", "a", "100755", "b", "040000", "c"),
		nil,
	}
	for n := 1; n < len(sorted); n += 9 {
		out = append(out, sorted[:n])
	}
	return out
}

// FuzzTreeIndex: a tree index's find agrees with a linear scan of the same
// bytes (unsorted trees, duplicate names and truncated entries included),
// and so does the walk's merge scan (scanFull) for that name.
func FuzzTreeIndex(f *testing.F) {
	for _, raw := range fuzzTrees() {
		for _, name := range []string{"a", "foo", "foo.c", "b", "z", "absent"} {
			f.Add(raw, name)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte, name string) {
		if len(raw) > 4096 || strings.Contains(name, "/") {
			return
		}
		idx := NewTreeIndex(raw)
		got, ok := idx.Find(name)
		want, wok := linearFind(raw, name)
		if name == "" {
			want, wok = RawEntry{}, false
		}
		if ok != wok || got != want {
			t.Fatalf("find(%q) = %v %v, a linear scan %v %v (sorted %v)", name, got, ok, want, wok, idx.Sorted)
		}
		// a lazy index: scanned for the first name, indexed for the next
		lazy := lazyTreeIndex(raw)
		for i := 0; i < 3; i++ {
			if got, ok := lazy.Find(name); ok != wok || got != want {
				t.Fatalf("lazy find %d (%q) = %v %v, a linear scan %v %v", i, name, got, ok, want, wok)
			}
		}
		if name == "" || name == "." || name == ".." {
			return
		}
		n := NewTrie([]string{name}).Root
		s := ScanFull(raw, n)
		if len(s.Ents) != 1 || s.Ents[0] != want {
			t.Fatalf("scanFull for %q = %v, a linear scan %v %v", name, s.Ents, want, wok)
		}
		if !wok && s.Ents[0].Mode != filemode.Empty {
			t.Fatalf("scanFull found an absent %q", name)
		}
	})
}

// FuzzDerive: where derive answers for a tree from its neighbour's scan,
// the answer is a fresh scan's (the wanted entries, and where each entry
// starts when the fresh scan can say), and each entry is what the tree's
// index finds.
func FuzzDerive(f *testing.F) {
	trees := fuzzTrees()
	for i, a := range trees {
		for _, b := range trees {
			f.Add(a, b, "a,foo,z,b")
		}
		f.Add(a, append(append([]byte(nil), a...), rawTree("100644", "zz")...), "zz,foo")
		f.Add(a, bytes.Replace(a, []byte("foo0"), []byte("foo1"), 1), "foo0,foo1,mod")
		f.Add(a, trees[(i+1)%len(trees)], "foo.c,foo-bar")
	}
	f.Fuzz(func(t *testing.T, a, b []byte, names string) {
		if len(a) > 4096 || len(b) > 4096 || len(names) > 200 {
			return
		}
		paths := strings.Split(names, ",")
		if len(paths) > 8 {
			return
		}
		n := NewTrie(paths).Root
		near := ScanFull(a, n)
		var scratch []int32
		got := Derive(near, b, n, &scratch)
		if got == nil {
			return
		}
		if near.offs == nil {
			t.Fatal("derived from a tree that was not derivable")
		}
		fresh := ScanFull(b, n)
		if !reflect.DeepEqual(got.Ents, fresh.Ents) {
			t.Fatalf("derive = %v, a fresh scan %v", got.Ents, fresh.Ents)
		}
		if fresh.offs != nil && (!reflect.DeepEqual(got.offs, fresh.offs) || !reflect.DeepEqual(got.at, fresh.at)) {
			t.Fatalf("derive offsets %v at %v, a fresh scan %v at %v", got.offs, got.at, fresh.offs, fresh.at)
		}
		idx := NewTreeIndex(b)
		for i, name := range n.Names {
			if e, _ := idx.Find(name); e != got.Ents[i] {
				t.Fatalf("derive gives %q as %v, the index %v", name, got.Ents[i], e)
			}
		}
	})
}
