package gitrepo

import (
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

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
// answer needs is not in this clone.
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
	}
	d := pathsDiff{r: r, max: max}
	if err := d.diff(parentTree, l.tree, ""); err != nil {
		return nil, false, fmt.Errorf("changed paths of %s: %w", c.Hash[:7], err)
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
}

// diff adds the files that differ between trees a and b (either may be
// zero: an empty tree) under the folder prefix.
func (d *pathsDiff) diff(a, b plumbing.Hash, prefix string) error {
	if a == b || d.more {
		return nil
	}
	ea, err := d.entries(a)
	if err != nil {
		return err
	}
	eb, err := d.entries(b)
	if err != nil {
		return err
	}
	if d.more {
		return nil
	}
	// names in b's order, then those only in a
	names := make([]string, 0, len(eb.names)+len(ea.names))
	names = append(names, eb.names...)
	for _, n := range ea.names {
		if _, ok := eb.m[n]; !ok {
			names = append(names, n)
		}
	}
	for _, name := range names {
		x, y := ea.m[name], eb.m[name]
		full := name
		if prefix != "" {
			full = prefix + "/" + name
		}
		if nonDir(x) != nonDir(y) && !d.add(full) {
			return nil
		}
		if x.Dir() != y.Dir() {
			if err := d.diff(x.Dir(), y.Dir(), full); err != nil {
				return err
			}
			if d.more {
				return nil
			}
		}
	}
	return nil
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

// entries reads tree h (zero: empty); past maxChangedTrees it sets more.
func (d *pathsDiff) entries(h plumbing.Hash) (treeEntries, error) {
	if h.IsZero() {
		return treeEntries{}, nil
	}
	if d.trees >= maxChangedTrees {
		d.more = true
		return treeEntries{}, nil
	}
	d.trees++
	t, err := d.r.trees.Get(h)
	if err != nil {
		return treeEntries{}, missingObject(err)
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
	return out, nil
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
	var key [walkKeySize]byte
	return r.lastChange(l, paths, maxCommits, key, false)
}
