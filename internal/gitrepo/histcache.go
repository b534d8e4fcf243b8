package gitrepo

// The history cache: what the history walks (CommitsTouching, LastChange,
// and so LastCommitted and Removal) derive from git objects, kept across
// runs in the user's cache folder (internal/diskcache; never in a
// repository) so that a later run over the same history reads no commit
// and no tree it has compared before.
//
// One table, git-commits-<repo>, keyed by a commit's hash: per commit,
// its tree, its first parent and the description of what differs between
// their trees (internal/gitcache's commits.go holds the encoding). A walk
// that finds a commit there reads neither the commit nor any tree it has a
// description for: it looks only at the names its paths want. A
// description lists every differing name of its pair, so a walk for other
// paths can use it, and descends into a folder not described by reading
// the two trees, then records the richer description.
//
// The shallow boundary is not in it: parentLinks checks r.shallow on every
// step, as without the cache, and a commit whose parent the walk does not
// follow (a boundary, a missing parent) compares its tree with nothing
// without the description.
//
// Why it is sound: a commit's links and the differences of two trees are
// functions of the objects' content, which git names by its hash. The
// repository's object store (or commit-graph) could lie about an object's
// content, and an entry derived from a lie would be false for a genuine
// object of that hash; so, with the cache on, every commit whose links are
// recorded and every tree read is checked against its hash, and a run that
// met one object that is not what its name says saves nothing (verify.go).
// The table is also per repository: <repo> is a digest of the absolute
// path of the repository's git folder and of that folder's device, inode
// and birth time, and an entry one repository derived is not read for
// another (a clone elsewhere, or a repository created again at the same
// path, starts with an empty cache); the table's MAC covers its name
// (internal/diskcache), so a table copied over another's is not read. Values are decoded as untrusted input
// (gitcache.DecodeCommit, gitcache.PairReader): a value, or a nested description, that does
// not decode is a miss, and the walk reads the objects as without the
// cache. Only what a walk derived without error from well-formed trees is
// recorded; SaveCache writes what this run added in one Write. The table is
// read on the first walk only, never by a run that walks no history.

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/orchestrate-dev/orchestrate/internal/gitcache"
)

// errUnverified is SaveCache's answer when an object a walk read was not
// what its name says: nothing was written (see verify.go).
var errUnverified = errors.New("an object read was not what its hash names: nothing kept")

// histCache is a Repo's view of the history table: what was read at the
// first walk, and what this run added.
type histCache struct {
	// t's values this run are what it derived, by commit (newer than the
	// table's, and read before it), or the links read from the repository
	// with no description derived (LinksOnly, encoded by SaveCache).
	t *gitcache.Commits
	// the look-ups of a commit that found a value that decodes, and the
	// others; the descriptions used and those that did not decode
	linkHits, linkMisses, pairHits, pairMisses int
}

// hist returns the history table, read on the first call; nil when the
// cache is off or the repository cannot be named.
func (r *Repo) hist() *histCache {
	if r.histTried {
		return r.histc
	}
	r.histTried = true
	if r.packs == nil || r.packs.FS == nil {
		return nil
	}
	t := gitcache.NewCommits(r.disk, r.packs.FS.Root())
	if !t.Open() {
		return nil
	}
	r.histc = &histCache{t: t}
	return r.histc
}

// SaveCache writes to the cache (UseCache) what this run's walks derived
// that it did not hold yet, in one Write; nothing when no walk ran or
// nothing is new. A cache that is off or cannot be written is skipped; the
// error only says why (for a debug log).
func (r *Repo) SaveCache() error {
	if r.verify.Failed() {
		// an object read was not what its name says: nothing this run
		// derived is kept (see verify.go)
		r.objs.Drop()
		r.memo.Drop()
		r.wmemo.Drop()
		r.cmemo.Drop()
	}
	if err := r.objs.Save(); err != nil {
		return fmt.Errorf("save the object cache: %w", err)
	}
	if err := r.memo.Save(); err != nil {
		return fmt.Errorf("save the path cache: %w", err)
	}
	if err := r.wmemo.Save(); err != nil {
		return fmt.Errorf("save the walk cache: %w", err)
	}
	if err := r.cmemo.Save(); err != nil {
		return fmt.Errorf("save the changed-paths cache: %w", err)
	}
	if err := r.wtHashes.Save(); err != nil {
		return fmt.Errorf("save the work-tree hash cache: %w", err)
	}
	h := r.histc
	if h == nil || h.t.Pending() == 0 {
		return nil
	}
	if r.verify.Failed() {
		h.t.Drop()
		return errUnverified
	}
	if err := h.t.Save(); err != nil {
		return fmt.Errorf("save the history cache: %w", err)
	}
	return nil
}

// cachedLinks returns commit c's links from what this run derived or the
// table; ok is false on a miss (absent, or a value that does not decode).
func (h *histCache) cachedLinks(c plumbing.Hash) (links, bool) {
	e, fresh, ok := h.t.Get(c)
	var l links
	switch {
	case ok && fresh && e.LinksOnly:
		l = links{hash: c, tree: e.Links.Tree, parent: e.Links.Parent}
	case ok:
		l, _, ok = decodeCommit(c, e.Enc)
	}
	if ok {
		h.linkHits++
	} else {
		h.linkMisses++
	}
	return l, ok
}

// addLinks records l (read from the repository) for SaveCache.
func (h *histCache) addLinks(l links) {
	h.t.Add(l.hash, gitcache.CommitValue{Links: l.cached(), LinksOnly: true})
}

// addDiff records the description of commit l's tree and its first
// parent's for SaveCache.
func (h *histCache) addDiff(l links, d *gitcache.Pair) {
	h.t.Put(l.hash, gitcache.CommitValue{Enc: gitcache.EncodeCommit(l.cached(), d)})
}

// cached is what the history table records of l.
func (l links) cached() gitcache.Links { return gitcache.Links{Tree: l.tree, Parent: l.parent} }

// decodeCommit decodes commit c's value (gitcache.DecodeCommit).
func decodeCommit(c plumbing.Hash, v []byte) (links, []byte, bool) {
	g, diff, ok := gitcache.DecodeCommit(v)
	if !ok {
		return links{}, nil, false
	}
	return links{hash: c, tree: g.Tree, parent: g.Parent}, diff, true
}

// description returns the description of commit l's tree and its
// parent's that this run derived or the table holds; nil when none.
func (h *histCache) description(l links) []byte {
	e, fresh, ok := h.t.Get(l.hash)
	v := e.Enc
	if ok && fresh && e.LinksOnly {
		v, ok = h.t.Saved(l.hash)
	}
	if !ok {
		return nil
	}
	got, diff, ok := decodeCommit(l.hash, v)
	if !ok || got != l {
		return nil // not the links the walk follows
	}
	return diff
}
