package gitobj

import "github.com/go-git/go-git/v5/plumbing"

// A history walk without a commit-graph compares each commit's trees with
// its parent's along the paths it follows (its Trie): on 20,000 commits
// most of a cold walk. A ChainReader given the walk's trie (StartChain,
// Want) reads those trees ahead of the walk with its fork of the store: for
// each commit its root tree (read by the commit reader, the less busy one)
// and, below a tree small enough to scan (aheadScanMax), the trie's folders
// whose tree is not the one met there in the commit before. The walk hands
// them to its TreeIndexCache (Offer), which gives them rather than read
// them again; the walk still parses and compares every tree itself.
//
// Why the answers are the same: a tree read ahead is read by the same
// reader from the same packs, under the hash the walk asks for, and a
// Lookup verifies it as one it read itself (the cache on). What the reader
// cannot read it does not hand over: the walk reads it and meets what it
// would have met. A tree read ahead and not asked for is dropped.

// AheadTree is a tree read ahead of a walk: its hash and raw content.
type AheadTree struct {
	Hash plumbing.Hash
	Raw  []byte
}

const (
	// aheadScanMax is the longest tree the reader scans for the trie's
	// folders below it: a small tree (a repository's root) costs next to
	// nothing to scan; a large one (a folder of 500 packages) costs about
	// what the walk's own scan does, and its folders are left to the walk.
	aheadScanMax = 4 << 10
	// aheadItemBytes bounds the trees read ahead for one commit (and so,
	// with ChainAhead, what waits for the walk).
	aheadItemBytes = 256 << 10
	// aheadItems is how many commits' trees read ahead wait for the walk
	// (the commits' links are read up to ChainAhead ahead).
	aheadItems = 16
)

// treeAhead is a chain reader's tree reading: the trie it reads for, and
// the tree met last at each of its nodes.
type treeAhead struct {
	trie  *Trie
	known map[*TrieNode]plumbing.Hash
}

// readTreeRaw reads tree h with s; ok is false when it cannot (the walk
// then reads it, and meets the error itself).
func readTreeRaw(s *Store, h plumbing.Hash) ([]byte, bool) {
	obj, err := s.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, false
	}
	raw, err := ObjectBytes(obj)
	return raw, err == nil
}

// read reads, with s, the trees of the commit whose root tree is root that
// a walk along trie compares with its child commit's (the one read
// before): those not met at their place then; rootRaw, when not nil, is
// root's content, read by the chain's commit reader (the tree reader is the
// busier one). nil when there is no trie.
func (t *treeAhead) read(s *Store, trie *Trie, root plumbing.Hash, rootRaw []byte) []AheadTree {
	if s == nil || trie == nil || trie.Root == nil || root.IsZero() {
		return nil
	}
	if trie != t.trie {
		t.trie, t.known = trie, map[*TrieNode]plumbing.Hash{}
	}
	var out []AheadTree
	size := 0
	var visit func(n *TrieNode, h plumbing.Hash)
	visit = func(n *TrieNode, h plumbing.Hash) {
		if t.known[n] == h || size >= aheadItemBytes {
			return // the same tree as the child commit's: the walk does not read it
		}
		t.known[n] = h
		raw, ok := rootRaw, rootRaw != nil && n == trie.Root
		if !ok {
			if raw, ok = readTreeRaw(s, h); !ok {
				return
			}
		}
		out = append(out, AheadTree{Hash: h, Raw: raw})
		size += len(raw)
		if len(raw) > aheadScanMax {
			return
		}
		type sub struct {
			n *TrieNode
			h plumbing.Hash
		}
		var subs []sub
		eachEntry(raw, func(mode, name, hash []byte) {
			if c := n.Children[string(name)]; c != nil && len(c.Names) > 0 && IsDirMode(mode) {
				subs = append(subs, sub{c, plumbing.Hash(hash)})
			}
		})
		for _, x := range subs {
			visit(x.n, x.h)
		}
	}
	visit(trie.Root, root)
	return out
}

// Offer hands c the trees read ahead for the commit a walk compares next
// (ChainItem.Trees): a Lookup of one of them takes it rather than read it.
// Each Offer replaces the trees of the one before.
func (c *TreeIndexCache) Offer(trees []AheadTree) {
	c.mu.Lock()
	c.ahead = trees
	c.mu.Unlock()
}

// offered returns the raw content of tree h when it was offered; c.mu is
// held.
func (c *TreeIndexCache) offered(h plumbing.Hash) ([]byte, bool) {
	for _, t := range c.ahead {
		if t.Hash == h {
			return t.Raw, true
		}
	}
	return nil, false
}
