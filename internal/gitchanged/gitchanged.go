// Package gitchanged answers which files differ between two git trees
// (gitrepo's ChangedPaths: the files one commit changed against its first
// parent), descending only into the folders whose trees differ, so the cost
// follows what changed, never the size of the tree. Two plain trees (git's
// strict order, known modes, no name twice) are merged in one pass;
// anything else is compared by maps of its entries, which the tests hold
// the merge to. It reads trees only through Trees and keeps nothing but
// what a Plain remembers.
package gitchanged

import (
	"bytes"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// MaxTrees bounds the trees Diff reads for one answer: past it, the answer
// is cut short (more is set).
const MaxTrees = 2000

// Trees reads a tree by hash, indexed (gitobj.TreeIndexCache does).
type Trees interface {
	Get(h plumbing.Hash) (*gitobj.TreeIndex, error)
}

// Diff returns the slash paths of the files that differ between trees a
// and b (either may be zero: an empty tree; added, edited or deleted, a
// file turned into a folder counting as both), in b's tree order then
// those only in a, at most max of them; more is set when there are more,
// or past MaxTrees trees. A folder whose tree is the same in both is not
// descended into. plain (may be nil) remembers which trees are plain
// across calls. The error is the one reading a tree returned, as is (more
// is then set too).
func Diff(src Trees, plain *Plain, a, b plumbing.Hash, max int) (paths []string, more bool, err error) {
	d := pathsDiff{src: src, plain: plain, max: max}
	err = d.diff(a, b, "")
	return d.out, d.more, err
}

// pathsDiff is one Diff walk.
type pathsDiff struct {
	src   Trees
	plain *Plain
	max   int
	trees int
	out   []string
	more  bool
	err   error // what stopped a descent (more is then set too)
	// mapsOnly compares every tree pair with maps (tests: the reference
	// diffPlain must agree with).
	mapsOnly bool
}

// diff adds the files that differ between trees a and b (either may be
// zero: an empty tree) under the folder prefix.
func (d *pathsDiff) diff(a, b plumbing.Hash, prefix string) error {
	if a == b || d.more {
		return nil
	}
	ta, err := d.tree(a)
	if err != nil {
		return err
	}
	tb, err := d.tree(b)
	if err != nil {
		return err
	}
	if d.more {
		return nil
	}
	if !d.mapsOnly && d.plain.is(a, ta) && d.plain.is(b, tb) {
		return d.diffPlain(ta, tb, prefix)
	}
	ea, eb := mapEntries(ta), mapEntries(tb)
	// names in b's order, then those only in a
	names := make([]string, 0, len(eb.names)+len(ea.names))
	names = append(names, eb.names...)
	for _, n := range ea.names {
		if _, ok := eb.m[n]; !ok {
			names = append(names, n)
		}
	}
	for _, name := range names {
		if !d.pair(ea.m[name], eb.m[name], prefix, name) {
			return d.err
		}
	}
	return nil
}

// pair adds what differs between entries x (in the first tree) and y (in
// the second) of the name under the folder prefix; false once d.more is
// set.
func (d *pathsDiff) pair(x, y gitobj.RawEntry, prefix, name string) bool {
	if x == y {
		return true
	}
	full := name
	if prefix != "" {
		full = prefix + "/" + name
	}
	if nonDir(x) != nonDir(y) && !d.add(full) {
		return false
	}
	if x.Dir() != y.Dir() {
		if err := d.diff(x.Dir(), y.Dir(), full); err != nil {
			d.err = err
			d.more = true
			return false
		}
		if d.more {
			return false
		}
	}
	return true
}

// diffPlain is diff for two plain trees (see plainTree; nil: empty): the
// same names in the same order (b's, then those only in a), found by one
// merge of the two sorted trees instead of maps of every entry (a name
// that changed kind, file to folder or back, sorts elsewhere in the other
// tree: it is found there by a binary search), and an entry whose bytes
// are the same in both skipped without being parsed (most of a folder a
// commit changed a file of).
func (d *pathsDiff) diffPlain(ta, tb *gitobj.TreeIndex, prefix string) error {
	na, nb := entryCount(ta), entryCount(tb)
	var aOnly []int // a's entries without an entry of their name and kind in b
	i := 0
	for j := range nb {
		mode, name, hashAt := tb.At(j)
		dir := gitobj.IsDirMode(mode)
		c := 1
		for i < na {
			amode, aname, _ := ta.At(i)
			if c = gitobj.CompareNames(aname, gitobj.IsDirMode(amode), name, dir); c >= 0 {
				break
			}
			aOnly = append(aOnly, i)
			i++
		}
		var x gitobj.RawEntry
		switch {
		case i < na && c == 0:
			amode, _, aHashAt := ta.At(i)
			i++
			if bytes.Equal(amode, mode) && bytes.Equal(ta.Raw[aHashAt:aHashAt+20], tb.Raw[hashAt:hashAt+20]) {
				continue
			}
			x = gitobj.ParseEntry(amode, ta.Raw[aHashAt:aHashAt+20])
		default:
			if k := findEntry(ta, name); k >= 0 { // the name, of the other kind
				amode, _, aHashAt := ta.At(k)
				x = gitobj.ParseEntry(amode, ta.Raw[aHashAt:aHashAt+20])
			}
		}
		if !d.pair(x, gitobj.ParseEntry(mode, tb.Raw[hashAt:hashAt+20]), prefix, string(name)) {
			return d.err
		}
	}
	for ; i < na; i++ {
		aOnly = append(aOnly, i)
	}
	for _, k := range aOnly {
		mode, name, hashAt := ta.At(k)
		if findEntry(tb, name) >= 0 {
			continue // b has the name as the other kind: compared above
		}
		if !d.pair(gitobj.ParseEntry(mode, ta.Raw[hashAt:hashAt+20]), gitobj.RawEntry{}, prefix, string(name)) {
			return d.err
		}
	}
	return nil
}

// entryCount is the number of t's entries (nil: none).
func entryCount(t *gitobj.TreeIndex) int {
	if t == nil {
		return 0
	}
	return len(t.Offs)
}

// findEntry is the index of the entry called name in the plain tree t, -1
// when there is none (t nil: none).
func findEntry(t *gitobj.TreeIndex, name []byte) int {
	if t == nil {
		return -1
	}
	for _, dir := range [2]bool{true, false} {
		i := sort.Search(len(t.Offs), func(i int) bool {
			mode, n, _ := t.At(i)
			return gitobj.CompareNames(n, gitobj.IsDirMode(mode), name, dir) >= 0
		})
		if i < len(t.Offs) {
			if mode, n, _ := t.At(i); bytes.Equal(n, name) && gitobj.IsDirMode(mode) == dir {
				return i
			}
		}
	}
	return -1
}

// maxPlainTrees bounds the trees a Plain remembers (past it, it starts
// over).
const maxPlainTrees = 1 << 16

// Plain remembers which trees Diff may compare without maps (see is). The
// zero Plain is ready; it is not safe for concurrent use.
type Plain struct {
	m map[plumbing.Hash]bool
}

// is reports whether tree t (read as h; nil: the empty tree) can be
// compared by diffPlain: its entries in git's strict order, every mode one
// filemode.New accepts, and no name twice (a file and a folder of one
// name). Such a tree's entries by name (mapEntries) are exactly its
// entries, so diffPlain finds by binary search what diff's maps hold. The
// answer is remembered by h (a tree's content is its hash's).
func (p *Plain) is(h plumbing.Hash, t *gitobj.TreeIndex) bool {
	if t == nil {
		return true
	}
	if p == nil {
		return plainTree(t)
	}
	if ok, known := p.m[h]; known {
		return ok
	}
	ok := plainTree(t)
	if p.m == nil || len(p.m) >= maxPlainTrees {
		p.m = make(map[plumbing.Hash]bool)
	}
	p.m[h] = ok
	return ok
}

// plainTree is Plain.is without the memo (t not nil).
func plainTree(t *gitobj.TreeIndex) bool {
	ok := t.Sorted
	for i := 0; ok && i < len(t.Offs); i++ {
		mode, name, _ := t.At(i)
		ok = validMode(mode) && !t.HasTwin(i, name, gitobj.IsDirMode(mode))
	}
	return ok
}

// validMode reports whether filemode.New accepts a tree entry's mode
// bytes (git's own modes without a call).
func validMode(mode []byte) bool {
	switch string(mode) {
	case "100644", "100755", "40000", "120000", "160000":
		return true
	}
	_, err := filemode.New(string(mode))
	return err == nil
}

// nonDir is e when it is a file, a symlink or a submodule; the zero entry
// for a folder or an absent name.
func nonDir(e gitobj.RawEntry) gitobj.RawEntry {
	if e.Mode == filemode.Dir || e.Mode == filemode.Empty {
		return gitobj.RawEntry{}
	}
	return e
}

// add records a changed path; false once max is passed.
func (d *pathsDiff) add(p string) bool {
	if len(d.out) >= d.max {
		d.more = true
		return false
	}
	d.out = append(d.out, p)
	return true
}

// treeEntries are a tree's entries by name, and the names in order.
type treeEntries struct {
	names []string
	m     map[string]gitobj.RawEntry
}

// tree reads tree h (zero: empty, nil); past MaxTrees it sets more.
func (d *pathsDiff) tree(h plumbing.Hash) (*gitobj.TreeIndex, error) {
	if h.IsZero() {
		return nil, nil
	}
	if d.trees >= MaxTrees {
		d.more = true
		return nil, nil
	}
	d.trees++
	t, err := d.src.Get(h)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// mapEntries are t's entries by name (nil: none); an entry whose mode is
// not one filemode.New accepts is left out, and of a name twice (a
// malformed tree) the last counts.
func mapEntries(t *gitobj.TreeIndex) treeEntries {
	if t == nil {
		return treeEntries{}
	}
	out := treeEntries{names: make([]string, 0, len(t.Offs)), m: make(map[string]gitobj.RawEntry, len(t.Offs))}
	for i := range t.Offs {
		mode, name, hashAt := t.At(i)
		m, err := filemode.New(string(mode))
		if err != nil || hashAt+20 > len(t.Raw) {
			continue
		}
		var hh plumbing.Hash
		copy(hh[:], t.Raw[hashAt:hashAt+20])
		n := string(name)
		if _, dup := out.m[n]; !dup {
			out.names = append(out.names, n)
		}
		out.m[n] = gitobj.RawEntry{Mode: m, Hash: hh} // a name twice (malformed): the last counts
	}
	return out
}
