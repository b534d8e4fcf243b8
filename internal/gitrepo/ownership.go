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
// answer against a parent that was read is kept (internal/gitcache's changed.go).
func (r *Repo) ChangedPaths(c Commit, max int) (paths []string, more bool, err error) {
	paths, more, _, err = r.changed(c, max, max, false)
	return paths, more, err
}

// ChangedPathsFirst is ChangedPaths(c, max) asked for its first paths:
// paths and more are ChangedPaths(c, first)'s answer, which reads only the
// trees on the way to them; full is set when that is ChangedPaths(c,
// max)'s answer too (at most first files changed, or an error: the
// difference stops at the same tree whatever its bound). Otherwise paths
// are the first of ChangedPaths(c, max)'s (the difference walks the trees
// in one order whatever its bound), more following: a caller that needs
// only a path among them (validate: one not the workflow's own) reads no
// more. first >= max (or <= 0) is ChangedPaths(c, max), its answer
// replacing in the table a cut one of the run. With the cache on, a cut
// answer is kept in the changed-paths table under bound first, more set
// (ChangedPaths(c, first)'s), a full one under max.
func (r *Repo) ChangedPathsFirst(c Commit, max, first int) (paths []string, more, full bool, err error) {
	return r.changed(c, max, first, true)
}

// changed is ChangedPathsFirst; without upgrade (ChangedPaths), a full
// answer does not replace in the table a cut one of the run.
func (r *Repo) changed(c Commit, max, first int, upgrade bool) (paths []string, more, full bool, err error) {
	if max <= 0 {
		max = 100
	}
	if first <= 0 || first > max {
		first = max
	}
	h, ok := fullHash(c.Hash)
	if !ok {
		return nil, false, true, fmt.Errorf("changed paths: %q is not a full commit hash", c.Hash)
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
		if a, hit := gitcache.ChangedFirstHit(r.cmemo, h, max, first); hit {
			return a.Paths, a.More, a.Max == max, nil
		}
	}
	out, more, err := gitchanged.Diff(r.trees, &r.plainTrees, parentTree, l.tree, first)
	if err != nil {
		return nil, false, true, fmt.Errorf("changed paths of %s: %w", c.Hash[:7], missingObject(err))
	}
	full = first == max || !more // none left out past first: ChangedPaths(c, max)'s own answer
	if ok {
		gitcache.ChangedRecord(r.cmemo, h, out, more, max, first, full, upgrade)
	}
	return out, more, full, nil
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
