package gitrepo

import (
	"fmt"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/orchestrate-dev/orchestrate/internal/gitcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// pathTree looks paths up in one tree, loading only the subtrees on the
// paths asked for and remembering each folder it loaded.
type pathTree struct {
	s    *gitobj.TreeIndexCache
	memo *gitcache.Paths // when not nil, the path table look-ups go through
	root plumbing.Hash
	dirs map[string]*gitobj.TreeIndex // folder path → tree; nil when absent or not a folder
	// known is the folders looked up through the path table (see
	// entryKept)
	known map[string]gitcache.PathEntry
}

// pathTree returns the look-ups by path in tree root, through r's path
// table when it has one (see internal/gitcache's paths.go).
func (r *Repo) pathTree(root plumbing.Hash) *pathTree {
	return &pathTree{s: r.trees, memo: r.memo, root: root, dirs: make(map[string]*gitobj.TreeIndex)}
}

// dir returns the tree of the folder at slash path p ("" for the root), or
// nil when there is no such folder.
func (t *pathTree) dir(p string) (*gitobj.TreeIndex, error) {
	if d, ok := t.dirs[p]; ok {
		return d, nil
	}
	var d *gitobj.TreeIndex
	if p == "" {
		var err error
		if d, err = t.s.GetLazy(t.root); err != nil {
			return nil, fmt.Errorf("read root tree %s: %w", t.root, err)
		}
	} else {
		parent, name := splitPath(p)
		pt, err := t.dir(parent)
		if err != nil {
			return nil, err
		}
		if e, ok := pt.Find(name); ok && e.Mode == filemode.Dir {
			if d, err = t.s.GetLazy(e.Hash); err != nil {
				return nil, fmt.Errorf("read tree of %s: %w", p, err)
			}
		}
	}
	t.dirs[p] = d
	return d, nil
}

// entry returns the tree entry at slash path p, or nil when there is none.
// With a path table (see internal/gitcache's paths.go) the answer comes from it when it has
// one, and is recorded in it otherwise.
func (t *pathTree) entry(p string) (*object.TreeEntry, error) {
	return t.entryKept(p, false)
}

// entryKept is entry that, when keep is set, remembers the answer for the
// next look-up of p (a folder asked about for each of its files).
func (t *pathTree) entryKept(p string, keep bool) (*object.TreeEntry, error) {
	p = path.Clean(p)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p) {
		return nil, nil
	}
	m := t.memo
	if m == nil {
		return t.read(p)
	}
	me, ok := t.known[p]
	if !ok {
		k := gitcache.PathKey(t.root, p)
		if me, _, ok = m.Get(k); !ok {
			e, err := t.read(p)
			if err != nil {
				return nil, err
			}
			if e != nil {
				me = gitcache.PathEntry{E: gitobj.RawEntry{Mode: e.Mode, Hash: e.Hash}, OK: true}
			}
			m.Add(k, me)
		}
		if keep {
			if t.known == nil {
				t.known = map[string]gitcache.PathEntry{}
			}
			t.known[p] = me
		}
	}
	if !me.OK {
		return nil, nil
	}
	_, name := splitPath(p)
	return &object.TreeEntry{Name: name, Mode: me.E.Mode, Hash: me.E.Hash}, nil
}

// read is entry for a clean path, from the trees.
func (t *pathTree) read(p string) (*object.TreeEntry, error) {
	parent, name := splitPath(p)
	d, err := t.dir(parent)
	if err != nil {
		return nil, err
	}
	e, ok := d.Find(name)
	if !ok {
		return nil, nil
	}
	return &object.TreeEntry{Name: name, Mode: e.Mode, Hash: e.Hash}, nil
}

// blob returns the blob hash at slash path p, or the zero hash when there is
// no file there.
func (t *pathTree) blob(p string) (plumbing.Hash, error) {
	e, err := t.entry(p)
	if err != nil || e == nil || !gitobj.IsBlob(e.Mode) {
		return plumbing.ZeroHash, err
	}
	return e.Hash, nil
}

func splitPath(p string) (dir, name string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+1:]
}

// treeCache keeps the trees loaded while walking a chain of commits (the
// entries of the names the trie wants only); the trees themselves come from
// the Repo's index cache.
type treeCache struct {
	s         *gitobj.TreeIndexCache
	cur, prev map[treeKey]*gitobj.Scanned
	last      map[*gitobj.TrieNode]lastTree // per node, the last tree scanned (see tree)
	moved     []int32                       // derive's scratch
	pairs     *pairCache                    // when not nil, the differences of tree pairs, kept across walks
	hist      *histCache                    // when not nil, the history cache (see diffRec)
	derived   derivedPair                   // with hist, the last derive's differences
	parents   *[]gitobj.RawEntry            // when not nil, gets each changed path's entry in b (see changedPath)
}

// changedPath gives child's path as changed, eb its entry in the second
// tree compared (b: the parent's), as far as a history cache description
// keeps it (a folder's hash is not kept).
func (c *treeCache) changedPath(out *[]string, child *gitobj.TrieNode, eb gitobj.RawEntry) {
	*out = append(*out, child.Path)
	if c.parents != nil {
		*c.parents = append(*c.parents, eb)
	}
}

// derivedPair is what differs between the last tree derive gave (b) and
// the one it was derived from (a), for the history cache.
type derivedPair struct {
	a, b *gitobj.Scanned
	d    *gitobj.PairDiff
}

type lastTree struct {
	h plumbing.Hash
	t *gitobj.Scanned
}

type treeKey struct {
	h plumbing.Hash
	n *gitobj.TrieNode
}

func newTreeCache(s *gitobj.TreeIndexCache) *treeCache {
	return &treeCache{s: s, cur: map[treeKey]*gitobj.Scanned{}, prev: map[treeKey]*gitobj.Scanned{}, last: map[*gitobj.TrieNode]lastTree{}}
}

// next moves the walk one commit back: the trees of the commit before are
// dropped (their map is reused, not reallocated).
func (c *treeCache) next() {
	c.prev, c.cur = c.cur, c.prev
	clear(c.cur)
	c.derived = derivedPair{}
}

// tree returns the entries of tree h that n wants, in the order of n.names
// (an absent entry has the mode filemode.Empty). near, when not nil, is a
// tree scanned for n that h likely resembles (its child commit's).
func (c *treeCache) tree(h plumbing.Hash, n *gitobj.TrieNode, near *gitobj.Scanned) (*gitobj.Scanned, error) {
	if h.IsZero() {
		return nil, nil
	}
	k := treeKey{h, n}
	if t, ok := c.cur[k]; ok {
		return t, nil
	}
	t, ok := c.prev[k]
	if l := c.last[n]; !ok && l.h == h {
		// a folder's tree is the one its last change left: the walk
		// reaches the folder at each of its changes
		t, ok = l.t, true
	}
	if !ok {
		idx, raw, err := c.s.Lookup(h)
		if err != nil {
			return nil, err
		}
		if idx != nil {
			t = gitobj.ScanIndex(idx, n)
		} else if t = gitobj.Derive(near, raw, n, &c.moved); t == nil {
			t = gitobj.ScanFull(raw, n)
		} else if c.hist != nil {
			c.derived = derivedPair{near, t, gitobj.DiffFromDerive(near, t)}
		}
	}
	c.cur[k] = t
	c.last[n] = lastTree{h, t}
	return t, nil
}

// changed returns the paths of the trie whose blob differs between the trees
// a and b (either may be the zero hash, an empty tree), in trie order.
func (c *treeCache) changed(a, b plumbing.Hash, trie *gitobj.Trie) ([]string, error) {
	var out []string
	err := c.diff(a, b, trie.Root, &out)
	return out, err
}

func (c *treeCache) diff(a, b plumbing.Hash, n *gitobj.TrieNode, out *[]string) error {
	if a == b {
		return nil
	}
	if c.pairs != nil && !a.IsZero() && !b.IsZero() {
		if d := c.pairs.get(c.s, a, b); d != nil {
			return c.diffPair(d, n, out)
		}
	}
	sa, err := c.tree(a, n, nil)
	if err != nil {
		return err
	}
	sb, err := c.tree(b, n, sa)
	if err != nil {
		return err
	}
	var ta, tb []gitobj.RawEntry
	if sa != nil {
		ta = sa.Ents
	}
	if sb != nil {
		tb = sb.Ents
	}
	for i, child := range n.Kids {
		var ea, eb gitobj.RawEntry // absent: filemode.Empty, neither blob nor folder
		if i < len(ta) {
			ea = ta[i]
		}
		if i < len(tb) {
			eb = tb[i]
		}
		if ea == eb {
			continue // visit finds nothing: neither changed nor a folder to compare
		}
		if err := c.visit(child, ea, eb, out); err != nil {
			return err
		}
	}
	return nil
}

// visit is diff's step for one wanted name: child's path changed when its
// entries ea (the commit's) and eb (the parent's) differ — a file, or, a
// folder, anything inside it (its tree hash) — then the folders below it
// compared.
func (c *treeCache) visit(child *gitobj.TrieNode, ea, eb gitobj.RawEntry, out *[]string) error {
	if child.Leaf && (ea.Blob() != eb.Blob() || ea.Dir() != eb.Dir()) {
		c.changedPath(out, child, eb)
	}
	if len(child.Names) > 0 {
		return c.diff(ea.Dir(), eb.Dir(), child, out)
	}
	return nil
}
