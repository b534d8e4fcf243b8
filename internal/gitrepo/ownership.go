package gitrepo

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/orchestrate-dev/orchestrate/internal/gitcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// maxChangedTrees bounds the trees ChangedPaths reads for one commit: past
// it, the answer is cut short (more is set).
const maxChangedTrees = 2000

// ChangedPaths returns the slash paths of the files commit c changed
// against its first parent (added, edited or deleted; a file turned into a
// folder counts as both), in tree order, at most max of them (max <= 0:
// 100); more is set when there are more, or when the commit's trees are too
// many to read. A folder whose tree is the same in both commits is not
// descended into, so the cost follows what the commit changed, never the
// size of the tree. A commit without a parent here (a root, a shallow
// boundary, a missing parent) counts as adding every file it holds. It
// answers whether a commit touched only the files a workflow owns
// (validate's progress rule); an error wrapping ErrHistoryMissing or
// plumbing.ErrObjectNotFound (see MissingHistory) means an object the
// answer needs is not in this clone. With the cache on (UseCache), an
// answer against a parent that was read is kept (changedmemo.go).
func (r *Repo) ChangedPaths(c Commit, max int) (paths []string, more bool, err error) {
	if max <= 0 {
		max = 100
	}
	h, ok := fullHash(c.Hash)
	if !ok {
		return nil, false, fmt.Errorf("changed paths: %q is not a full commit hash", c.Hash)
	}
	l, err := r.readLinks(h)
	if err != nil {
		return nil, false, fmt.Errorf("changed paths of %s: %w", c.Hash[:7], err)
	}
	parentTree := plumbing.ZeroHash
	p, ok, err := r.parentLinks(l)
	if err != nil {
		return nil, false, fmt.Errorf("changed paths of %s: %w", c.Hash[:7], err)
	}
	if ok {
		parentTree = p.tree
		if a, hit := r.changedHit(h, max); hit {
			return a.Paths, a.More, nil
		}
	}
	d := pathsDiff{r: r, max: max}
	if err := d.diff(parentTree, l.tree, ""); err != nil {
		return nil, false, fmt.Errorf("changed paths of %s: %w", c.Hash[:7], err)
	}
	if ok && r.cmemo.Open() {
		r.cmemo.Add(h, gitcache.ChangedAnswer{Max: max, More: d.more, Paths: d.out})
	}
	return d.out, d.more, nil
}

// pathsDiff is one ChangedPaths walk.
type pathsDiff struct {
	r     *Repo
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
	if !d.mapsOnly && d.r.plainTree(a, ta) && d.r.plainTree(b, tb) {
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

// maxPlainTrees bounds the trees plainTree remembers (past it, it starts
// over).
const maxPlainTrees = 1 << 16

// plainTree reports whether tree t (read as h; nil: the empty tree) can be
// compared by diffPlain: its entries in git's strict order, every mode one
// filemode.New accepts, and no name twice (a file and a folder of one
// name). Such a tree's entries by name (mapEntries) are exactly its
// entries, so diffPlain finds by binary search what diff's maps hold. The
// answer is remembered by h (a tree's content is its hash's).
func (r *Repo) plainTree(h plumbing.Hash, t *gitobj.TreeIndex) bool {
	if t == nil {
		return true
	}
	if ok, known := r.plainTrees[h]; known {
		return ok
	}
	ok := t.Sorted
	for i := 0; ok && i < len(t.Offs); i++ {
		mode, name, _ := t.At(i)
		ok = validMode(mode) && !t.HasTwin(i, name, gitobj.IsDirMode(mode))
	}
	if r.plainTrees == nil || len(r.plainTrees) >= maxPlainTrees {
		r.plainTrees = make(map[plumbing.Hash]bool)
	}
	r.plainTrees[h] = ok
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

// tree reads tree h (zero: empty, nil); past maxChangedTrees it sets more.
func (d *pathsDiff) tree(h plumbing.Hash) (*gitobj.TreeIndex, error) {
	if h.IsZero() {
		return nil, nil
	}
	if d.trees >= maxChangedTrees {
		d.more = true
		return nil, nil
	}
	d.trees++
	t, err := d.r.trees.Get(h)
	if err != nil {
		return nil, missingObject(err)
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

// LastChangeAt is LastChange walking back from commit c instead of HEAD:
// for each path, the newest commit at or before c on its first-parent
// chain that changed it, looking at most maxCommits commits back. It tells
// who last wrote a workflow's own files when it was interrupted (c being
// the interruption commit). Paths not changed within the bound, or an
// unknown c, give no entry.
func (r *Repo) LastChangeAt(c Commit, paths []string, maxCommits int) map[string]Commit {
	h, ok := fullHash(c.Hash)
	if !ok || len(paths) == 0 {
		return map[string]Commit{}
	}
	l, err := r.readLinks(h)
	if err != nil {
		return map[string]Commit{}
	}
	var key [gitcache.WalkKeySize]byte
	return r.lastChange(l, paths, maxCommits, key, false)
}
