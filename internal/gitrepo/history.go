package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/orchestrate-dev/orchestrate/internal/gitcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// CommitsTouching walks HEAD's first-parent chain back to base (excluded)
// and returns, for each of paths that some commit changed (its content
// differs from the commit's first parent, or it was added or deleted), those
// commits, newest first, at most limit per path (limit <= 0: no limit).
// Paths no commit changed are absent from the map. Only the entries on the
// given paths are compared, and a folder whose tree is the same in both
// commits is not descended into.
//
// The commits reported for a path are those of its net change since base:
// walking back, a path is no longer followed from the first commit where it
// is as in base (same file, same folder tree, or absent in both) — older
// commits cannot be part of what changed since base. So a path changed and
// then changed back has no commits, and one edited, restored, then edited
// again has only the commits since the restore. When base is not on the
// chain (base still names a commit) the walk runs to the first commit or
// the shallow boundary (a root or boundary commit counts as adding what it
// holds), with the same rule. The walk stops once no path is followed: every
// path is as in base, or has limit commits.
//
// When base names a commit the walk does not reach because the history is
// cut short first (a shallow boundary, or a missing parent, comes before it
// while some path is still followed), the commits that changed those paths
// cannot all be known: the error wraps ErrHistoryMissing, and the map holds
// what the walk found (the cut commit counted as adding what it holds).
func (r *Repo) CommitsTouching(base Commit, paths []string, limit int) (map[string][]Commit, error) {
	out := make(map[string][]Commit)
	if len(paths) == 0 {
		return out, nil
	}
	c, err := r.walkHead()
	if err != nil {
		return nil, err
	}
	stop, hasStop := fullHash(base.Hash)
	key, memo := r.walkAsked(gitcache.WalkTouching, c, stop, limit, paths)
	if memo {
		if got, ok := r.walkAnswer(key, paths); ok {
			return got, nil
		}
	}
	trie := gitobj.NewTrie(paths)
	r.want = trie
	defer func() { r.want = nil; r.ahead.Halt(); r.trees.Offer(nil) }() // what only the walk read
	following := trie.Paths
	var cur, want map[string]gitobj.RawEntry // the paths' entries in c and in base
	if hasStop && c.hash != stop {
		if want, err = r.entriesAt(stop, following); err != nil {
			return nil, err
		}
		if cur, err = r.entriesOf(c.tree, following); err != nil {
			return nil, err
		}
	}
	// drop stops following those of paths now as in base or with limit
	// commits. The trie shrinks only once half of its paths are gone: a
	// smaller trie compares fewer entries, but a new one starts with a cold
	// tree cache, and rebuilding it per dropped path was quadratic (250
	// changed paths of 5,000).
	gone := map[string]bool{}
	live := len(following)
	drop := func(paths []string) {
		for _, p := range paths {
			if gone[p] {
				continue
			}
			if (want != nil && sameEntry(cur[p], want[p])) || (limit > 0 && len(out[p]) >= limit) {
				gone[p] = true
				live--
			}
		}
		if live > 0 && live*2 <= len(trie.Paths) {
			rest := make([]string, 0, live)
			for _, p := range trie.Paths {
				if !gone[p] {
					rest = append(rest, p)
				}
			}
			trie = gitobj.NewTrie(rest)
			r.want = trie
		}
	}
	drop(following)
	cache := r.walkCache()
	ended := true // the walk ends on its own (see walkmemo.go)
	for live > 0 && (!hasStop || c.hash != stop) {
		p, ok, err := r.parentLinks(c)
		if err != nil {
			return nil, err
		}
		parentTree := plumbing.ZeroHash
		if ok {
			parentTree = p.tree
		}
		changed, err := cache.changedAt(c, parentTree, ok, trie)
		if err != nil {
			return nil, fmt.Errorf("compare %s with its parent: %w", c.hash.String()[:7], err)
		}
		if len(gone) > 0 && len(changed) > 0 {
			kept := make([]string, 0, len(changed))
			for _, path := range changed {
				if !gone[path] {
					kept = append(kept, path)
				}
			}
			changed = kept
		}
		if len(changed) > 0 {
			info, err := r.commitInfo(c.hash)
			if err != nil {
				return nil, err
			}
			for _, path := range changed {
				out[path] = append(out[path], info)
			}
		}
		if !ok {
			ended = c.parent.IsZero() // a root, not a boundary or a missing parent
			break
		}
		if len(changed) > 0 {
			if want != nil { // only the changed paths have another entry in the parent
				pe, err := r.entriesOf(parentTree, changed)
				if err != nil {
					return nil, err
				}
				for _, path := range changed {
					cur[path] = pe[path]
				}
			}
			drop(changed)
		}
		cache.next()
		c = p
	}
	if memo && ended {
		r.recordWalk(key, paths, out)
	}
	if !ended && hasStop && live > 0 {
		return out, fmt.Errorf("the first-parent history from HEAD ends at %s (shallow boundary or missing parent) before it reaches %s: %w",
			c.hash.String()[:7], stop.String()[:7], ErrHistoryMissing)
	}
	return out, nil
}

// walkCache returns the tree cache of a new history walk. From the Repo's
// second walk on (the walks for many workflows, most of them over the same
// chain from HEAD), it shares the Repo's tree pair differences: each
// commit's trees are compared with its parent's once, and a walk then looks
// only at the names that differ. A single walk compares each pair once and
// keeps nothing.
func (r *Repo) walkCache() *treeCache {
	c := newTreeCache(r.trees)
	c.hist = r.hist()
	if r.walks++; r.walks > 1 && c.hist == nil {
		c.pairs = &r.pairs // with the history cache, what walks learn is kept there
	}
	return c
}

// entriesAt returns the entries of paths in commit h's tree; nil (no early
// stop) when h cannot be read.
func (r *Repo) entriesAt(h plumbing.Hash, paths []string) (map[string]gitobj.RawEntry, error) {
	l, err := r.readLinks(h)
	if err != nil {
		return nil, nil // not a commit here: the walk runs as far as it can
	}
	return r.entriesOf(l.tree, paths)
}

// entriesOf returns the entries of paths in tree h (absent: the zero entry).
func (r *Repo) entriesOf(h plumbing.Hash, paths []string) (map[string]gitobj.RawEntry, error) {
	out := make(map[string]gitobj.RawEntry, len(paths))
	if h.IsZero() {
		return out, nil
	}
	t := r.pathTree(h)
	for _, p := range paths {
		e, err := t.entry(p)
		if err != nil {
			return nil, fmt.Errorf("read %s in tree %s: %w", p, h.String()[:7], err)
		}
		if e != nil {
			out[p] = gitobj.RawEntry{Mode: e.Mode, Hash: e.Hash}
		}
	}
	return out, nil
}

// sameEntry reports whether two entries of a path are the same as far as a
// walk can tell a change: the same file or the same folder tree.
func sameEntry(a, b gitobj.RawEntry) bool {
	return a.Blob() == b.Blob() && a.Dir() == b.Dir()
}

// LastChange returns, for each path, the newest commit on HEAD's first-parent
// chain that changed it (added, edited or deleted it), looking at most
// maxCommits commits back (maxCommits <= 0: no bound). Paths not changed
// within the bound — or when the repository has no commits — are absent. It
// gives the "last update" time of a file without reading its history in full.
func (r *Repo) LastChange(paths []string, maxCommits int) map[string]Commit {
	out := make(map[string]Commit)
	if len(paths) == 0 {
		return out
	}
	c, err := r.walkHead()
	if err != nil {
		return out
	}
	key, memo := r.walkAsked(gitcache.WalkLast, c, plumbing.ZeroHash, maxCommits, paths)
	if memo {
		if got, ok := r.walkAnswer(key, paths); ok {
			for p, cs := range got {
				if len(cs) != 1 {
					return r.lastChange(c, paths, maxCommits, key, false)
				}
				out[p] = cs[0]
			}
			return out
		}
	}
	return r.lastChange(c, paths, maxCommits, key, memo)
}

// lastChange is LastChange's walk from c, its answer recorded under key
// when memo is set and it ends on its own.
func (r *Repo) lastChange(c links, paths []string, maxCommits int, key [gitcache.WalkKeySize]byte, memo bool) map[string]Commit {
	out := make(map[string]Commit)
	trie := gitobj.NewTrie(paths)
	r.want = trie
	defer func() { r.want = nil; r.ahead.Halt(); r.trees.Offer(nil) }()
	live := len(trie.Paths) // paths without their commit yet
	cache := r.walkCache()
	ended := true // the walk ends on its own (see walkmemo.go)
	for n := 0; maxCommits <= 0 || n < maxCommits; n++ {
		p, ok, err := r.parentLinks(c)
		if err != nil {
			return out
		}
		parentTree := plumbing.ZeroHash
		if ok {
			parentTree = p.tree
		}
		changed, err := cache.changedAt(c, parentTree, ok, trie)
		if err != nil && ok && MissingHistory(err) {
			// The parent's trees are not here (a partial clone without
			// trees): the history ends at c, which adds what it holds
			// (HistoryCut says so of c).
			ok = false
			changed, err = cache.changedAt(c, plumbing.ZeroHash, false, trie)
		}
		if err != nil {
			return out
		}
		if len(changed) > 0 {
			var info Commit
			for _, path := range changed {
				if _, done := out[path]; done {
					continue // a newer commit changed it
				}
				if info.IsZero() {
					if info, err = r.commitInfo(c.hash); err != nil {
						return out
					}
				}
				out[path] = info
				live--
			}
			if live == 0 {
				break
			}
			// shrink the trie once half of it is done (see CommitsTouching)
			if live*2 <= len(trie.Paths) {
				rest := make([]string, 0, live)
				for _, path := range trie.Paths {
					if _, done := out[path]; !done {
						rest = append(rest, path)
					}
				}
				trie = gitobj.NewTrie(rest)
				r.want = trie
			}
		}
		if !ok {
			ended = c.parent.IsZero() // a root, not a boundary or a missing parent
			break
		}
		cache.next()
		c = p
	}
	if memo && ended {
		all := make(map[string][]Commit, len(out))
		for p, c := range out {
			all[p] = []Commit{c}
		}
		r.recordWalk(key, paths, all)
	}
	return out
}

// ReadAt returns the content of the file at the slash path p in commit c.
// A path absent from c gives an error wrapping os.ErrNotExist; a folder or a
// submodule, or a blob over MaxReadSize, gives an error. When an object it
// needs is not in the repository (a partial clone: git clone --filter=…)
// the error wraps ErrHistoryMissing: the object is never fetched.
func (r *Repo) ReadAt(c Commit, p string) ([]byte, error) {
	t, err := r.treeOf(c.Hash)
	if err != nil {
		return nil, missingObject(err)
	}
	e, err := t.entry(p)
	if err != nil {
		return nil, missingObject(fmt.Errorf("read %s at %s: %w", p, c.Short, err))
	}
	if e == nil {
		return nil, fmt.Errorf("read %s at %s: %w", p, c.Short, os.ErrNotExist)
	}
	return r.readFileEntry(c, p, e.Mode, e.Hash)
}

// readFileEntry is the end of ReadAt (and of History.ReadAt) for the entry
// of mode and hash found at p in c's tree: a file's bytes, from the blob
// table or read and verified.
func (r *Repo) readFileEntry(c Commit, p string, mode filemode.FileMode, hash plumbing.Hash) ([]byte, error) {
	if !gitobj.IsBlob(mode) {
		return nil, fmt.Errorf("read %s at %s: not a file (mode %s)", p, c.Short, mode)
	}
	if data, ok := r.objs.Get(plumbing.BlobObject, hash); ok {
		return bytes.Clone(data), nil // the table's bytes are not the caller's to change
	}
	data, err := r.readBlob(hash)
	if err != nil {
		return nil, missingObject(fmt.Errorf("read %s at %s: %w", p, c.Short, err))
	}
	r.verify.Check(plumbing.BlobObject, hash, data) // what a run derives from it may be kept (Verified)
	r.objs.Add(plumbing.BlobObject, hash, data)
	return data, nil
}

// missingObject wraps ErrHistoryMissing around err when it says an object
// is not in the repository.
func missingObject(err error) error {
	if err != nil && errors.Is(err, plumbing.ErrObjectNotFound) && !errors.Is(err, ErrHistoryMissing) {
		return fmt.Errorf("%w: %w", ErrHistoryMissing, err)
	}
	return err
}

// readBlob reads blob h from the repository: an error when it is over
// MaxReadSize.
func (r *Repo) readBlob(h plumbing.Hash) ([]byte, error) {
	// From the pack reader when small enough (go-git's own look-up would
	// load the whole pack index into memory first).
	var obj plumbing.EncodedObject
	var err error
	if r.packs != nil {
		obj, err = r.packs.SmallObject(plumbing.BlobObject, h, MaxReadSize)
	} else {
		obj, err = r.objects.EncodedObject(plumbing.BlobObject, h)
	}
	if err != nil {
		return nil, err
	}
	blob, err := object.DecodeBlob(obj)
	if err != nil {
		return nil, err
	}
	if blob.Size > MaxReadSize {
		return nil, fmt.Errorf("%d bytes, over the %d-byte limit", blob.Size, MaxReadSize)
	}
	rd, err := blob.Reader()
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(rd, MaxReadSize+1))
	if cerr := rd.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return data, nil
}

// toCommit converts a go-git commit: When is the committer time in UTC and
// Subject the first line of the message.
func toCommit(c *object.Commit) Commit {
	h := c.Hash.String()
	subject, _, _ := strings.Cut(c.Message, "\n")
	return Commit{
		Hash:    h,
		Short:   h[:7],
		Author:  c.Author.Name,
		Email:   c.Author.Email,
		When:    c.Committer.When.UTC(),
		Subject: strings.TrimSpace(subject),
	}
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func hashString(h plumbing.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}

// links is what the history walk reads of a commit: its tree and first
// parent, parsed from the raw object without decoding the rest.
type links struct {
	hash, tree plumbing.Hash
	parent     plumbing.Hash // zero for a root commit
}

// walkHead returns the HEAD history walks start from: resolved at the
// Repo's first walk and kept for the others (the 200 walks of a status
// resolved HEAD 200 times, 12 ms), so that every walk of a command is over
// the same history, as every Compare given an Index is about its HEAD. An
// error is not kept.
func (r *Repo) walkHead() (links, error) {
	if r.headKnown {
		return r.head, nil
	}
	l, err := r.headLinks()
	if err == nil {
		r.head, r.headKnown = l, true
	}
	return l, err
}

// headLinks returns HEAD's links.
func (r *Repo) headLinks() (links, error) {
	ref, err := r.repo.Head()
	if err != nil {
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			return links{}, fmt.Errorf("HEAD has no commits: %w", ErrNoCommit)
		}
		return links{}, fmt.Errorf("resolve HEAD: %w", err)
	}
	l, err := r.readLinks(ref.Hash())
	if err != nil {
		return links{}, fmt.Errorf("read HEAD commit %s: %w", ref.Hash(), err)
	}
	return l, nil
}

// parentLinks returns c's first parent; ok is false at the start of the
// history, at a shallow boundary, or when the parent object is missing (as
// firstParent).
func (r *Repo) parentLinks(c links) (p links, ok bool, err error) {
	if c.parent.IsZero() || r.shallow[c.hash] {
		return links{}, false, nil
	}
	p, err = r.readLinksOf(c.parent, true)
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return links{}, false, nil
		}
		return links{}, false, fmt.Errorf("read parent of %s: %w", c.hash.String()[:7], err)
	}
	return p, true, nil
}

// maxCachedLinks bounds the commits whose links a Repo keeps (about 100
// bytes each): the walks of one run for workflows of different base commits
// read the same chain from HEAD, each commit inflated once.
const maxCachedLinks = 1 << 16

// maxCachedInfos bounds the commits whose description a Repo keeps.
const maxCachedInfos = 1 << 12

// readLinks returns the tree and first parent of commit h: remembered, in
// the history cache, or read from the header lines (only the commit's first bytes when they hold
// them). Only what was read without error is remembered.
func (r *Repo) readLinks(h plumbing.Hash) (links, error) { return r.readLinksOf(h, false) }

// readLinksOf is readLinks; chain says a walk reads h's first parent next
// (parentLinks), so that a commit read from the packs starts reading the
// chain ahead (see linkahead.go).
func (r *Repo) readLinksOf(h plumbing.Hash, chain bool) (links, error) {
	if l, ok := r.linkCache[h]; ok {
		if chain && r.want != nil { // for the trees read ahead (aheadItem)
			r.aheadItem(h, true, r.hist() != nil && r.verify.Enabled())
		}
		return l, nil
	}
	hc := r.hist()
	l, ok := links{}, false
	if hc != nil {
		l, ok = hc.cachedLinks(h)
	}
	if !ok {
		var err error
		verified := hc != nil && r.verify.Enabled()
		switch l, ok = r.aheadLinks(h, chain, verified); {
		case ok:
		case verified:
			l, err = r.readLinksVerified(h)
		default:
			l, err = r.readLinksUncached(h)
		}
		if err != nil {
			return links{}, err
		}
		if hc != nil {
			hc.addLinks(l)
		}
	}
	if r.linkCache == nil {
		r.linkCache = make(map[plumbing.Hash]links)
	}
	if len(r.linkCache) < maxCachedLinks {
		r.linkCache[h] = l
	}
	return l, nil
}

// readLinksUncached reads the header lines of commit h: from the
// commit-graph when it holds h, else only the commit's first bytes when they
// hold the tree and parent lines.
func (r *Repo) readLinksUncached(h plumbing.Hash) (links, error) {
	if l, ok := r.graphLinks(h); ok {
		return l, nil
	}
	raw, whole, err := r.packs.CommitPrefix(h, gitobj.CommitPrefixLen)
	if err != nil {
		return links{}, err
	}
	if l, done, err := parseLinks(h, raw, whole); done || err != nil {
		return l, err
	}
	if raw, whole, err = r.packs.CommitPrefix(h, gitobj.MaxCommitHeader); err != nil {
		return links{}, err
	}
	l, done, err := parseLinks(h, raw, whole)
	if !done && err == nil {
		err = fmt.Errorf("commit %s: header over %d bytes", h.String()[:7], gitobj.MaxCommitHeader)
	}
	return l, err
}

// parseLinks parses the tree and first parent lines of commit h from raw
// (see gitobj.ParseLinks).
func parseLinks(h plumbing.Hash, raw []byte, whole bool) (links, bool, error) {
	l, done, err := gitobj.ParseLinks(h, raw, whole)
	return links{hash: l.Commit, tree: l.Tree, parent: l.Parent}, done, err
}

// commitInfo decodes commit h in full, once per Repo (up to
// maxCachedInfos commits).
func (r *Repo) commitInfo(h plumbing.Hash) (Commit, error) {
	if c, ok := r.infoCache[h]; ok {
		return c, nil
	}
	c, err := r.readCommit(h)
	if err != nil {
		return Commit{}, fmt.Errorf("read commit %s: %w", h.String()[:7], err)
	}
	info := toCommit(c)
	if r.infoCache == nil {
		r.infoCache = make(map[plumbing.Hash]Commit)
	}
	if len(r.infoCache) < maxCachedInfos {
		r.infoCache[h] = info
	}
	return info, nil
}

// fullHash parses a full lower-case hex hash; ok is false for anything else.
func fullHash(s string) (plumbing.Hash, bool) {
	if len(s) != 2*len(plumbing.ZeroHash) || !isHex(s) {
		return plumbing.ZeroHash, false
	}
	return plumbing.NewHash(s), true
}

// CommitGraph returns the repository's commit-graph, opened on first use;
// nil when there is none, it is not one this reader takes, or the clone is
// shallow (git does not use one there either).
func (r *Repo) commitGraph() *gitobj.CommitGraph {
	if !r.graphTried {
		r.graphTried = true
		if r.packs != nil && r.storage != nil && len(r.shallow) == 0 {
			r.graph = gitobj.OpenCommitGraph(r.packs.FS)
		}
	}
	return r.graph
}

// graphLinks returns the links of commit h when the commit-graph holds
// it (see commitGraph.links).
func (r *Repo) graphLinks(h plumbing.Hash) (links, bool) {
	tree, parent, ok := r.commitGraph().Links(h)
	if !ok {
		return links{}, false
	}
	return links{hash: h, tree: tree, parent: parent}, true
}
