package gitrepo

import (
	"sort"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// maxCachedPairs bounds the tree pairs whose differences a Repo keeps (a
// few names each): the walks of one run for workflows of different base
// commits compare the same trees of each commit and its parent.
const maxCachedPairs = 1 << 13

// maxSeenPairs bounds the pairs a Repo remembers having met once: a pair is
// described only when met a second time, so a single walk over a long
// history (met once each) describes nothing.
const maxSeenPairs = 1 << 12

// pairCache keeps the differences of the tree pairs the walks compared. A
// nil *pairDiff stands for a pair it cannot describe (a malformed tree).
type pairCache struct {
	m    map[[2]plumbing.Hash]*gitobj.PairDiff
	seen map[[2]plumbing.Hash]struct{} // pairs met once, not described
}

// get returns the differences of trees a and b (neither zero), or nil when
// the pair is not described: met for the first time, a malformed tree, a
// read error (the caller's own walk reports it), or the cache full.
func (p *pairCache) get(s *gitobj.TreeIndexCache, a, b plumbing.Hash) *gitobj.PairDiff {
	k := [2]plumbing.Hash{a, b}
	if d, ok := p.m[k]; ok {
		return d
	}
	if len(p.m) >= maxCachedPairs {
		return nil
	}
	if _, again := p.seen[k]; !again {
		if p.seen == nil {
			p.seen = make(map[[2]plumbing.Hash]struct{})
		}
		if len(p.seen) < maxSeenPairs {
			p.seen[k] = struct{}{}
		}
		return nil
	}
	delete(p.seen, k)
	ta, err := s.Get(a)
	if err != nil {
		return nil
	}
	tb, err := s.Get(b)
	if err != nil {
		return nil
	}
	d := gitobj.DiffIndexes(ta, tb)
	if p.m == nil {
		p.m = make(map[[2]plumbing.Hash]*gitobj.PairDiff)
	}
	p.m[k] = d
	return d
}

// diffPair is diff for trees whose differences d describes: only the
// names that differ are looked at, in trie order as diff gives them.
func (c *treeCache) diffPair(d *gitobj.PairDiff, n *gitobj.TrieNode, out *[]string) error {
	var at []int // indexes in d of the wanted names, by trie position
	for i, name := range d.Names {
		if _, ok := n.Children[name]; ok {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return nil
	}
	sort.Slice(at, func(x, y int) bool { return n.Children[d.Names[at[x]]].Pos < n.Children[d.Names[at[y]]].Pos })
	for _, i := range at {
		child := n.Children[d.Names[i]]
		if err := c.visit(child, d.A[i], d.B[i], out); err != nil {
			return err
		}
	}
	return nil
}
