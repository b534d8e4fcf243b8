package gitrepo

import (
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/orchestrate-dev/orchestrate/internal/gitcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitchanged"
)

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
	return r.changedPaths(c, max, false)
}

// changedPaths is ChangedPaths; with upgrade, an answer kept in the table
// replaces a cut one this run kept under a smaller bound (see
// ChangedPathsFirst), where ChangedPaths keeps the first bound asked.
func (r *Repo) changedPaths(c Commit, max int, upgrade bool) (paths []string, more bool, err error) {
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
	out, more, err := gitchanged.Diff(r.trees, &r.plainTrees, parentTree, l.tree, max)
	if err != nil {
		return nil, false, fmt.Errorf("changed paths of %s: %w", c.Hash[:7], missingObject(err))
	}
	if ok && r.cmemo.Open() {
		a := gitcache.ChangedAnswer{Max: max, More: more, Paths: out}
		if !r.cmemo.Add(h, a) && upgrade {
			if kept, fresh, _ := r.cmemo.Get(h); fresh && kept.More && kept.Max < max && len(kept.Paths) == kept.Max {
				r.cmemo.Put(h, a) // this run's cut answer: the full one says more
			}
		}
	}
	return out, more, nil
}

// ChangedPathsFirst is ChangedPaths(c, max) asked for its first few paths:
// paths and more are ChangedPaths(c, first)'s answer (first < max), which
// reads only the trees on the way to those paths; full is set when that is
// ChangedPaths(c, max)'s answer as well — the commit changed at most first
// files (more not set), or an error stopped the difference (ChangedPaths(c,
// max) stops at the same tree, its answer the same). Otherwise paths, in
// order, are the first of ChangedPaths(c, max)'s own paths (the difference
// walks the trees in the same order whatever its bound, only stopping
// sooner), and there are more: a caller that needs no more than a path
// among the first (validate: one file that is not the workflow's own)
// asks nothing else. first >= max (or first <= 0) is ChangedPaths(c, max)
// (full), which then replaces in the table a cut answer this run kept.
//
// With the cache on, a full answer is read from and kept in the
// changed-paths table as ChangedPaths keeps it (bound max), and a cut one
// under the bound first with more set (what ChangedPaths(c, first) would
// keep): the table holds one answer per commit, the full one replacing a
// cut one.
func (r *Repo) ChangedPathsFirst(c Commit, max, first int) (paths []string, more, full bool, err error) {
	if max <= 0 {
		max = 100
	}
	if first <= 0 || first >= max {
		paths, more, err = r.changedPaths(c, max, true)
		return paths, more, true, err
	}
	h, ok := fullHash(c.Hash)
	if !ok {
		paths, more, err = r.ChangedPaths(c, max) // its error
		return paths, more, true, err
	}
	l, err := r.readLinks(h)
	if err != nil {
		return nil, false, true, fmt.Errorf("changed paths of %s: %w", c.Hash[:7], err)
	}
	parentTree := plumbing.ZeroHash
	p, ok, err := r.parentLinks(l)
	if err != nil {
		return nil, false, true, fmt.Errorf("changed paths of %s: %w", c.Hash[:7], err)
	}
	if ok {
		parentTree = p.tree
		if a, hit := r.changedFirstHit(h, max, first); hit {
			return a.Paths, a.More, a.Max == max, nil
		}
	}
	out, more, err := gitchanged.Diff(r.trees, &r.plainTrees, parentTree, l.tree, first)
	if err != nil {
		return nil, false, true, fmt.Errorf("changed paths of %s: %w", c.Hash[:7], missingObject(err))
	}
	full = !more // at most first paths, none left out: ChangedPaths(c, max)'s own answer
	if ok && r.cmemo.Open() {
		bound := first
		if full {
			bound = max
		}
		r.cmemo.Add(h, gitcache.ChangedAnswer{Max: bound, More: more, Paths: out})
	}
	return out, more, full, nil
}

// changedFirstHit is changedHit for ChangedPathsFirst: the table's answer
// for commit h when it was asked with bound max (a full answer) or with
// bound first and cut (more set: its first paths); ok is false on a miss.
func (r *Repo) changedFirstHit(h plumbing.Hash, max, first int) (gitcache.ChangedAnswer, bool) {
	if !r.cmemo.Open() {
		return gitcache.ChangedAnswer{}, false
	}
	a, fresh, ok := r.cmemo.Get(h)
	if ok && a.Max != max && (a.Max != first || !a.More || len(a.Paths) != first) {
		if !fresh {
			r.cmemo.Unhit() // asked with another bound: a miss
		}
		return gitcache.ChangedAnswer{}, false
	}
	return a, ok
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
