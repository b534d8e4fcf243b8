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
	// known is the folders looked up through the path table (see
	// entryKept)
	known map[string]memoEntry
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
		if d, err = t.s.getLazy(t.root); err != nil {
			return nil, fmt.Errorf("read root tree %s: %w", t.root, err)
		}
	} else {
		parent, name := splitPath(p)
		pt, err := t.dir(parent)
		if err != nil {
			return nil, err
		}
		if e, ok := pt.find(name); ok && e.mode == filemode.Dir {
			if d, err = t.s.getLazy(e.hash); err != nil {
				return nil, fmt.Errorf("read tree of %s: %w", p, err)
			}
		}
	}
	t.dirs[p] = d
	return d, nil
}

// entry returns the tree entry at slash path p, or nil when there is none.
// With a path table (see pathmemo.go) the answer comes from it when it has
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
	m := t.s.memo
	if m == nil {
		return t.read(p)
	}
	me, ok := t.known[p]
	if !ok {
		k := pathKey(t.root, p)
		if me, _, ok = m.Get(k); !ok {
			e, err := t.read(p)
			if err != nil {
				return nil, err
			}
			if e != nil {
				me = memoEntry{rawEntry{e.Mode, e.Hash}, true}
			}
			m.Add(k, me)
		}
		if keep {
			if t.known == nil {
				t.known = map[string]memoEntry{}
			}
			t.known[p] = me
		}
	}
	if !me.ok {
		return nil, nil
	}
	_, name := splitPath(p)
	return &object.TreeEntry{Name: name, Mode: me.e.mode, Hash: me.e.hash}, nil
}

// read is entry for a clean path, from the trees.
func (t *pathTree) read(p string) (*object.TreeEntry, error) {
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
	cur, prev map[treeKey]*scanned
	moved     []int32     // derive's scratch
	pairs     *pairCache  // when not nil, the differences of tree pairs, kept across walks
	hist      *histCache  // when not nil, the history cache (see diffRec)
	derived   derivedPair // with hist, the last derive's differences
}

// scanned is what the walk knows of one tree for one trie node: the entries
// wanted, and — when the tree is in git's order and names each wanted name
// once — its raw content, where each entry starts and which entry each
// wanted one is, so that its parent's tree (most often the same bytes but
// for an entry or two) is derived from it without a scan of every entry.
type scanned struct {
	ents []rawEntry // in the order of n.names; absent: filemode.Empty
	raw  []byte     // the tree's content
	offs []uint32   // where each entry starts in raw; nil: not derivable from
	at   []int32    // per name, the index of its entry, or -1
	idx  *treeIndex // the tree's index when the Repo's cache held it
	// parsed and gone are, when derive gave the tree, the indexes of its
	// entries it did not find in near's, and of near's it did not find in
	// it.
	parsed, gone []int32
}

// derivedPair is what differs between the last tree derive gave (b) and
// the one it was derived from (a), for the history cache.
type derivedPair struct {
	a, b *scanned
	d    *pairDiff
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
	return &treeCache{s: s, cur: map[treeKey]*scanned{}, prev: map[treeKey]*scanned{}}
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
func (c *treeCache) tree(h plumbing.Hash, n *trieNode, near *scanned) (*scanned, error) {
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
		if idx != nil {
			t = &scanned{ents: make([]rawEntry, len(n.names)), idx: idx}
			for i, name := range n.names {
				if e, ok := idx.find(name); ok {
					t.ents[i] = e
				}
			}
		} else if t = derive(near, raw, n, &c.moved); t == nil {
			t = scanFull(raw, n)
		} else if c.hist != nil {
			c.derived = derivedPair{near, t, diffFromDerive(near, t)}
		}
	}
	c.cur[k] = t
	return t, nil
}

// scanFull scans every entry of raw for the names n wants.
func scanFull(raw []byte, n *trieNode) *scanned {
	t := &scanned{ents: make([]rawEntry, len(n.names))}
	if scanTree(raw, n, t.ents, &t.offs, &t.at) {
		t.raw = raw
	} else {
		t.offs, t.at = nil, nil
	}
	return t
}

// scanTree puts in t the entries of the raw tree that n wants, at their
// child's pos (the last one of a name given twice). The entries of a tree are
// in git's order, as are n.keys: the two are merged, without a look-up per
// entry. A tree out of order (malformed) is scanned again with look-ups.
// When offs and at are not nil it records where each entry starts and the
// entry of each wanted name, and reports whether they describe the tree (in
// order, each wanted name once, no truncated entry).
func scanTree(raw []byte, n *trieNode, t []rawEntry, offs *[]uint32, at *[]int32) bool {
	ok := offs != nil && len(raw) < 1<<31
	if ok {
		*offs = make([]uint32, 0, len(raw)/32+1)
		*at = make([]int32, len(t))
		for i := range *at {
			(*at)[i] = -1
		}
	}
	keys := n.keys
	var prev []byte
	prevDir := false
	for rest := raw; len(rest) > 0; {
		sp := entrySpace(rest)
		if sp < 0 {
			return false
		}
		nul := nameEnd0(rest[sp+1:])
		if nul < 0 || sp+1+nul+21 > len(rest) {
			return false
		}
		name := rest[sp+1 : sp+1+nul]
		dir := isDirMode(rest[:sp])
		if prev != nil && compareNames(prev, prevDir, name, dir) >= 0 {
			clear(t)
			scanTreeLookup(raw, n, t)
			return false
		}
		prev, prevDir = name, dir
		if ok {
			*offs = append(*offs, uint32(len(raw)-len(rest)))
		}
		for len(keys) > 0 && compareNames(keys[0].name, keys[0].dir, name, dir) < 0 {
			keys = keys[1:]
		}
		if len(keys) > 0 && keys[0].dir == dir && bytes.Equal(keys[0].name, name) {
			t[keys[0].pos] = parseEntry(rest[:sp], rest[sp+1+nul+1:sp+1+nul+21])
			if ok {
				if (*at)[keys[0].pos] >= 0 {
					ok = false // a file and a folder of one name
				}
				(*at)[keys[0].pos] = int32(len(*offs) - 1)
			}
			keys = keys[1:]
		}
		rest = rest[sp+1+nul+21:]
	}
	return ok
}

// derive returns the wanted entries of the raw tree from near's, when near
// was derivable: runs of entries equal in both are skipped in chunks (one
// byte comparison each), and only the entries that differ are parsed. It
// returns nil when it cannot tell (the caller scans instead).
func derive(near *scanned, raw []byte, n *trieNode, scratch *[]int32) *scanned {
	if near == nil || near.offs == nil || len(raw) >= 1<<31 {
		return nil
	}
	a, offs := near.raw, near.offs
	end := func(i int) int { // where entry i of a ends
		if i+1 < len(offs) {
			return int(offs[i+1])
		}
		return len(a)
	}
	t := &scanned{ents: make([]rawEntry, len(n.names)), raw: raw, at: make([]int32, len(n.names)),
		offs: make([]uint32, 0, len(offs)+4)}
	for i := range t.at {
		t.at[i] = -1
	}
	if cap(*scratch) < len(offs) {
		*scratch = make([]int32, len(offs))
	}
	moved := (*scratch)[:len(offs)] // the index in raw of each entry of a, or -1
	for i := range moved {
		moved[i] = -1
	}
	var parsed []int32 // indexes in raw of the entries parsed
	var gone []int32   // indexes in a of the entries not found in raw
	prevParsed := false
	i, x := 0, 0 // the next entry of a, the next offset in raw
	for i < len(offs) || x < len(raw) {
		// Skip the longest run of a's entries found as they are in raw,
		// in chunks halved on a mismatch.
		for k := 64; k > 0 && i < len(offs); {
			k = min(k, len(offs)-i)
			s, e := int(offs[i]), end(i+k-1)
			if x+e-s > len(raw) || !bytes.Equal(a[s:e], raw[x:x+e-s]) {
				k /= 2
				continue
			}
			if prevParsed && len(t.offs) > 0 && !inOrder(raw, int(t.offs[len(t.offs)-1]), x) {
				return nil
			}
			for j := i; j < i+k; j++ {
				moved[j] = int32(len(t.offs))
				t.offs = append(t.offs, uint32(int(offs[j])-s+x))
			}
			i, x, prevParsed = i+k, x+e-s, false
		}
		if x >= len(raw) {
			break // a's entries from i on are gone
		}
		// raw's entry at x is not a's entry i: parse it.
		e := raw[x:]
		sp := entrySpace(e)
		if sp < 0 {
			return nil
		}
		nul := nameEnd0(e[sp+1:])
		if nul < 0 || sp+1+nul+21 > len(e) {
			return nil
		}
		if len(t.offs) > 0 && !inOrder(raw, int(t.offs[len(t.offs)-1]), x) {
			return nil
		}
		name, dir := e[sp+1:sp+1+nul], isDirMode(e[:sp])
		// a's entries that sort before it are gone from raw; one of its
		// name and kind is replaced.
		for i < len(offs) {
			an, ad := entryName(a[offs[i]:])
			c := compareNames(an, ad, name, dir)
			if c > 0 {
				break
			}
			gone = append(gone, int32(i))
			i++
			if c == 0 {
				break
			}
		}
		parsed = append(parsed, int32(len(t.offs)))
		t.offs = append(t.offs, uint32(x))
		x += sp + 1 + nul + 21
		prevParsed = true
	}
	for ; i < len(offs); i++ {
		gone = append(gone, int32(i))
	}
	for pos, ia := range near.at {
		if ia >= 0 && moved[ia] >= 0 {
			t.ents[pos], t.at[pos] = near.ents[pos], moved[ia]
		}
	}
	t.parsed, t.gone = parsed, gone
	for _, bi := range parsed {
		e := raw[t.offs[bi]:]
		name, _ := entryName(e)
		child, want := n.children[string(name)]
		if !want {
			continue
		}
		if t.at[child.pos] >= 0 {
			return nil // a file and a folder of one name: scan
		}
		sp := entrySpace(e)
		t.ents[child.pos] = parseEntry(e[:sp], e[sp+1+len(name)+1:sp+1+len(name)+21])
		t.at[child.pos] = bi
	}
	return t
}

// inOrder reports whether the entry of raw at offset p sorts strictly
// before the one at q (both well formed).
func inOrder(raw []byte, p, q int) bool {
	pn, pd := entryName(raw[p:])
	qn, qd := entryName(raw[q:])
	return compareNames(pn, pd, qn, qd) < 0
}

// entryName returns the name of the well-formed entry that starts e, and
// whether it is a folder.
func entryName(e []byte) ([]byte, bool) {
	sp := entrySpace(e)
	nul := nameEnd0(e[sp+1:])
	return e[sp+1 : sp+1+nul], isDirMode(e[:sp])
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
	var ta, tb []rawEntry
	if sa != nil {
		ta = sa.ents
	}
	if sb != nil {
		tb = sb.ents
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
