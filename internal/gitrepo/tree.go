package gitrepo

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// pathTree looks paths up in one tree, loading only the subtrees on the
// paths asked for and remembering each folder it loaded.
type pathTree struct {
	s    *treeIndexCache
	root plumbing.Hash
	dirs map[string]*treeIndex // folder path → tree; nil when absent or not a folder
}

func newPathTree(s *treeIndexCache, root plumbing.Hash) *pathTree {
	return &pathTree{s: s, root: root, dirs: make(map[string]*treeIndex)}
}

// dir returns the tree of the folder at slash path p ("" for the root), or
// nil when there is no such folder.
func (t *pathTree) dir(p string) (*treeIndex, error) {
	if d, ok := t.dirs[p]; ok {
		return d, nil
	}
	var d *treeIndex
	if p == "" {
		var err error
		if d, err = t.s.get(t.root); err != nil {
			return nil, fmt.Errorf("read root tree %s: %w", t.root, err)
		}
	} else {
		parent, name := splitPath(p)
		pt, err := t.dir(parent)
		if err != nil {
			return nil, err
		}
		if e, ok := pt.find(name); ok && e.mode == filemode.Dir {
			if d, err = t.s.get(e.hash); err != nil {
				return nil, fmt.Errorf("read tree of %s: %w", p, err)
			}
		}
	}
	t.dirs[p] = d
	return d, nil
}

// entry returns the tree entry at slash path p, or nil when there is none.
func (t *pathTree) entry(p string) (*object.TreeEntry, error) {
	p = path.Clean(p)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p) {
		return nil, nil
	}
	parent, name := splitPath(p)
	d, err := t.dir(parent)
	if err != nil {
		return nil, err
	}
	e, ok := d.find(name)
	if !ok {
		return nil, nil
	}
	return &object.TreeEntry{Name: name, Mode: e.mode, Hash: e.hash}, nil
}

// blob returns the blob hash at slash path p, or the zero hash when there is
// no file there.
func (t *pathTree) blob(p string) (plumbing.Hash, error) {
	e, err := t.entry(p)
	if err != nil || e == nil || !isBlob(e.Mode) {
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

// pathTrie is the set of paths CommitsTouching and LastChange follow,
// arranged by folder.
type pathTrie struct {
	paths []string // as given, deduplicated
	root  *trieNode
}

type trieNode struct {
	names    []string // children, sorted
	children map[string]*trieNode
	keys     []trieKey // each child name as a file and as a folder, in git's tree order
	path     string    // the full path when a wanted path ends here
	leaf     bool
	pos      int // the index of its name in its parent's names
}

// trieKey is a child's name as a tree entry of either kind would sort it.
type trieKey struct {
	name []byte
	dir  bool
	pos  int
}

func newPathTrie(paths []string) *pathTrie {
	t := &pathTrie{root: &trieNode{}}
	seen := make(map[string]bool, len(paths))
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		t.paths = append(t.paths, p)
		clean := path.Clean(p)
		if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || path.IsAbs(clean) {
			continue
		}
		n := t.root
		for _, part := range strings.Split(clean, "/") {
			child := n.children[part]
			if child == nil {
				if n.children == nil {
					n.children = make(map[string]*trieNode)
				}
				child = &trieNode{}
				n.children[part] = child
				n.names = append(n.names, part)
			}
			n = child
		}
		n.leaf, n.path = true, p
	}
	var sortNames func(*trieNode)
	sortNames = func(n *trieNode) {
		sort.Strings(n.names)
		n.keys = make([]trieKey, 0, 2*len(n.names))
		for i, name := range n.names {
			n.children[name].pos = i
			n.keys = append(n.keys, trieKey{[]byte(name), false, i}, trieKey{[]byte(name), true, i})
		}
		sort.Slice(n.keys, func(i, j int) bool {
			a, b := n.keys[i], n.keys[j]
			return compareNames(a.name, a.dir, b.name, b.dir) < 0
		})
		for _, c := range n.children {
			sortNames(c)
		}
	}
	sortNames(t.root)
	return t
}

// treeCache keeps the trees loaded while walking a chain of commits (the
// entries of the names the trie wants only); the trees themselves come from
// the Repo's index cache.
type treeCache struct {
	s         *treeIndexCache
	cur, prev map[treeKey][]rawEntry
}

type treeKey struct {
	h plumbing.Hash
	n *trieNode
}

type rawEntry struct {
	mode filemode.FileMode
	hash plumbing.Hash
}

func newTreeCache(s *treeIndexCache) *treeCache {
	return &treeCache{s: s, cur: map[treeKey][]rawEntry{}, prev: map[treeKey][]rawEntry{}}
}

// next moves the walk one commit back: the trees of the commit before are
// dropped (their map is reused, not reallocated).
func (c *treeCache) next() {
	c.prev, c.cur = c.cur, c.prev
	clear(c.cur)
}

// tree returns the entries of tree h that n wants, in the order of n.names
// (an absent entry has the mode filemode.Empty).
func (c *treeCache) tree(h plumbing.Hash, n *trieNode) ([]rawEntry, error) {
	if h.IsZero() {
		return nil, nil
	}
	k := treeKey{h, n}
	if t, ok := c.cur[k]; ok {
		return t, nil
	}
	t, ok := c.prev[k]
	if !ok {
		idx, raw, err := c.s.lookup(h)
		if err != nil {
			return nil, err
		}
		t = make([]rawEntry, len(n.names))
		if idx != nil {
			for i, name := range n.names {
				if e, ok := idx.find(name); ok {
					t[i] = e
				}
			}
		} else {
			scanTree(raw, n, t)
		}
	}
	c.cur[k] = t
	return t, nil
}

// scanTree puts in t the entries of the raw tree that n wants, at their
// child's pos (the last one of a name given twice). The entries of a tree are
// in git's order, as are n.keys: the two are merged, without a look-up per
// entry. A tree out of order (malformed) is scanned again with look-ups.
func scanTree(raw []byte, n *trieNode, t []rawEntry) {
	keys := n.keys
	var prev []byte
	prevDir := false
	for rest := raw; len(rest) > 0; {
		sp := entrySpace(rest)
		if sp < 0 {
			break
		}
		nul := nameEnd0(rest[sp+1:])
		if nul < 0 || sp+1+nul+21 > len(rest) {
			break
		}
		name := rest[sp+1 : sp+1+nul]
		dir := isDirMode(rest[:sp])
		if prev != nil && compareNames(prev, prevDir, name, dir) >= 0 {
			clear(t)
			scanTreeLookup(raw, n, t)
			return
		}
		prev, prevDir = name, dir
		for len(keys) > 0 && compareNames(keys[0].name, keys[0].dir, name, dir) < 0 {
			keys = keys[1:]
		}
		if len(keys) > 0 && keys[0].dir == dir && bytes.Equal(keys[0].name, name) {
			t[keys[0].pos] = parseEntry(rest[:sp], rest[sp+1+nul+1:sp+1+nul+21])
			keys = keys[1:]
		}
		rest = rest[sp+1+nul+21:]
	}
}

// entrySpace returns the index of the first space in e (the end of an
// entry's mode, five or six digits), or -1; a byte loop, as modes are short.
func entrySpace(e []byte) int {
	for i, c := range e {
		if c == ' ' {
			return i
		}
	}
	return -1
}

// nameEnd0 returns the index of the first NUL in b, or -1; a byte loop, as
// names are short.
func nameEnd0(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

// scanTreeLookup is scanTree for a tree in any order: a look-up per entry.
func scanTreeLookup(raw []byte, n *trieNode, t []rawEntry) {
	for len(raw) > 0 {
		sp := bytes.IndexByte(raw, ' ')
		if sp < 0 {
			break
		}
		nul := bytes.IndexByte(raw[sp+1:], 0)
		if nul < 0 || sp+1+nul+21 > len(raw) {
			break
		}
		name := raw[sp+1 : sp+1+nul]
		if child, want := n.children[string(name)]; want {
			t[child.pos] = parseEntry(raw[:sp], raw[sp+1+nul+1:sp+1+nul+21])
		}
		raw = raw[sp+1+nul+21:]
	}
}

// parseEntry builds an entry from its mode bytes and 20-byte hash.
func parseEntry(mode, hash []byte) rawEntry {
	m, _ := filemode.New(string(mode))
	var hh plumbing.Hash
	copy(hh[:], hash)
	return rawEntry{m, hh}
}

// changed returns the paths of the trie whose blob differs between the trees
// a and b (either may be the zero hash, an empty tree), in trie order.
func (c *treeCache) changed(a, b plumbing.Hash, trie *pathTrie) ([]string, error) {
	var out []string
	err := c.diff(a, b, trie.root, &out)
	return out, err
}

func (c *treeCache) diff(a, b plumbing.Hash, n *trieNode, out *[]string) error {
	if a == b {
		return nil
	}
	ta, err := c.tree(a, n)
	if err != nil {
		return err
	}
	tb, err := c.tree(b, n)
	if err != nil {
		return err
	}
	for i, name := range n.names {
		child := n.children[name]
		var ea, eb rawEntry // absent: filemode.Empty, neither blob nor folder
		if i < len(ta) {
			ea = ta[i]
		}
		if i < len(tb) {
			eb = tb[i]
		}
		// A wanted path changes when its file does, or — a folder — when
		// anything inside it does (its tree hash).
		if child.leaf && (ea.blob() != eb.blob() || ea.dir() != eb.dir()) {
			*out = append(*out, child.path)
		}
		if len(child.names) > 0 {
			if err := c.diff(ea.dir(), eb.dir(), child, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// blob is the entry's blob hash, zero when it is not a file.
func (e rawEntry) blob() plumbing.Hash {
	if !isBlob(e.mode) {
		return plumbing.ZeroHash
	}
	return e.hash
}

// dir is the entry's tree hash, zero when it is not a folder.
func (e rawEntry) dir() plumbing.Hash {
	if e.mode != filemode.Dir {
		return plumbing.ZeroHash
	}
	return e.hash
}

// objectBytes returns obj's content, without a copy when the pack reader
// read it.
func objectBytes(obj plumbing.EncodedObject) ([]byte, error) {
	if po, ok := obj.(*packedObject); ok {
		return po.data, nil
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(rd)
	if cerr := rd.Close(); err == nil {
		err = cerr
	}
	return raw, err
}
