package gitobj

import (
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"sort"
	"strings"
	"testing"
)

// referenceTrie is NewTrie as it was before its single-pass build (a map
// of children grown per folder, a map of the paths seen): the trie it
// builds is the one NewTrie must build.
func referenceTrie(paths []string) *Trie {
	t := &Trie{Root: &TrieNode{}}
	seen := make(map[string]bool, len(paths))
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		t.Paths = append(t.Paths, p)
		clean := path.Clean(p)
		if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || path.IsAbs(clean) {
			continue
		}
		n := t.Root
		for _, part := range strings.Split(clean, "/") {
			child := n.Children[part]
			if child == nil {
				if n.Children == nil {
					n.Children = make(map[string]*TrieNode)
				}
				child = &TrieNode{}
				n.Children[part] = child
				n.Names = append(n.Names, part)
			}
			n = child
		}
		n.Leaf, n.Path = true, p
	}
	var sortNames func(*TrieNode)
	sortNames = func(n *TrieNode) {
		sort.Strings(n.Names)
		n.keys = make([]trieKey, 0, 2*len(n.Names))
		n.Kids = make([]*TrieNode, len(n.Names))
		for i, name := range n.Names {
			n.Kids[i] = n.Children[name]
			n.Kids[i].Pos = i
			n.keys = append(n.keys, trieKey{[]byte(name), false, i}, trieKey{[]byte(name), true, i})
		}
		sort.Slice(n.keys, func(i, j int) bool {
			a, b := n.keys[i], n.keys[j]
			return CompareNames(a.name, a.dir, b.name, b.dir) < 0
		})
		for _, c := range n.Children {
			sortNames(c)
		}
	}
	sortNames(t.Root)
	return t
}

// sameTrie reports where two tries differ ("" when they do not).
func sameTrie(got, want *TrieNode, at string) string {
	switch {
	case got.Leaf != want.Leaf || got.Path != want.Path || got.Pos != want.Pos:
		return fmt.Sprintf("%s: leaf %v %q pos %d, want %v %q %d", at, got.Leaf, got.Path, got.Pos, want.Leaf, want.Path, want.Pos)
	case !slices.Equal(got.Names, want.Names):
		return fmt.Sprintf("%s: names %q, want %q", at, got.Names, want.Names)
	case len(got.Kids) != len(want.Kids) || len(got.Children) != len(want.Children) || len(got.keys) != len(want.keys):
		return fmt.Sprintf("%s: %d kids, %d children, %d keys, want %d, %d, %d", at, len(got.Kids), len(got.Children), len(got.keys), len(want.Kids), len(want.Children), len(want.keys))
	}
	for i, k := range got.keys {
		w := want.keys[i]
		if string(k.name) != string(w.name) || k.dir != w.dir || k.Pos != w.Pos {
			return fmt.Sprintf("%s: key %d %q/%v/%d, want %q/%v/%d", at, i, k.name, k.dir, k.Pos, w.name, w.dir, w.Pos)
		}
	}
	for i, name := range got.Names {
		if got.Children[name] != got.Kids[i] {
			return fmt.Sprintf("%s: Children[%q] is not Kids[%d]", at, name, i)
		}
		if d := sameTrie(got.Kids[i], want.Kids[i], at+"/"+name); d != "" {
			return d
		}
	}
	return ""
}

// TestNewTrieAsBefore: NewTrie builds the trie the reference does for
// sorted and unsorted paths, repeated ones, paths that do not clean to a
// relative one, a name that is both a file and a folder, names that sort
// apart from their folder's ('x', 'x-1', 'x/y'), folders of many children
// met out of order, and the bench's shape of 5,000 paths.
func TestNewTrieAsBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	parts := []string{"a", "b", "x", "x-1", "x.go", "x0", "src", "pkg", ".", "..", "", "é", "a b"}
	random := func(n int) []string {
		var out []string
		for range n {
			var segs []string
			for range 1 + rng.IntN(4) {
				segs = append(segs, parts[rng.IntN(len(parts))])
			}
			p := strings.Join(segs, "/")
			if rng.IntN(10) == 0 {
				p = "/" + p
			}
			out = append(out, p)
		}
		return out
	}
	var wide []string // a folder of many children, met out of order
	for i := range 40 {
		wide = append(wide, fmt.Sprintf("w/f%02d", (i*17)%40), fmt.Sprintf("w/f%02d/g", (i*7)%40))
	}
	var bench []string
	for i := range 4000 {
		bench = append(bench, fmt.Sprintf("src/pkg%03d/sub%02d/file%05d.go", (i*7919)%500, i%10, i*13%100000))
	}
	cases := [][]string{nil, {""}, {"."}, {"a", "a"}, {"x", "x-1", "x/y", "x.go", "x/z", "x"}, {"x/y", "x", "x-1/z"}, wide, bench}
	for range 300 {
		cases = append(cases, random(1+rng.IntN(30)))
	}
	for i, ps := range cases {
		for _, order := range []string{"as given", "sorted"} {
			in := slices.Clone(ps)
			if order == "sorted" {
				slices.Sort(in)
			}
			got, want := NewTrie(in), referenceTrie(in)
			if !slices.Equal(got.Paths, want.Paths) {
				t.Fatalf("case %d %s: paths %q, want %q", i, order, got.Paths, want.Paths)
			}
			if d := sameTrie(got.Root, want.Root, ""); d != "" {
				t.Fatalf("case %d %s (%q): %s", i, order, in, d)
			}
		}
	}
}

// BenchmarkNewTrie builds the trie of the bench's workflow shape: 4,000
// referenced files in a 100,000-file tree and 1,000 stories, sorted, as
// the run's union walk asks.
func BenchmarkNewTrie(b *testing.B) {
	var ps []string
	for i := range 4000 {
		ps = append(ps, fmt.Sprintf("src/pkg%03d/sub%02d/file%05d.go", (i*7919)%500, i%10, i*13%100000))
	}
	for i := range 1000 {
		ps = append(ps, fmt.Sprintf("docs/stories/story-%04d.md", i))
	}
	slices.Sort(ps)
	b.ReportAllocs()
	for b.Loop() {
		NewTrie(ps)
	}
}
