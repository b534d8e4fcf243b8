package gitrepo

import (
	"errors"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/orchestrate-dev/orchestrate/internal/gitcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// errStaleDescription says a nested description of the history cache did
// not decode, after part of its commit's answer was given.
var errStaleDescription = errors.New("a history cache description does not decode")

// changedAt is changed for commit l's tree and its parent's, parentTree
// (hasParent: the walk follows l's first parent; else parentTree is zero,
// at the start of the history or a shallow boundary). With the history
// cache it uses, and records, the description of the two trees (see
// histcache.go).
func (c *treeCache) changedAt(l links, parentTree plumbing.Hash, hasParent bool, trie *gitobj.Trie) ([]string, error) {
	h := c.hist
	if h == nil || !hasParent {
		return c.changed(l.tree, parentTree, trie)
	}
	raw := h.description(l)
	var out []string
	node, learned, err := c.diffRec(l.tree, parentTree, trie.Root, &out, raw)
	if errors.Is(err, errStaleDescription) {
		// a nested description did not decode: the commit again, from its
		// trees, and what is learned replaces the value
		h.pairMisses++
		out = out[:0]
		if c.parents != nil {
			*c.parents = (*c.parents)[:0]
		}
		node, learned, err = c.diffRec(l.tree, parentTree, trie.Root, &out, nil)
	}
	if err != nil {
		return nil, err
	}
	if learned {
		h.addDiff(l, node)
	}
	return out, nil
}

// diffRec is diff with the history cache: raw, when not nil, is the
// description of trees a and b read from it (gitcache.EncodePair). It returns the
// pair's description, and learned when it holds something raw did not (a
// description where there was none, or one that did not decode, or a
// folder described that was not): the caller records it.
func (c *treeCache) diffRec(a, b plumbing.Hash, n *gitobj.TrieNode, out *[]string, raw []byte) (*gitcache.Pair, bool, error) {
	if a == b {
		return nil, false, nil
	}
	if a.IsZero() || b.IsZero() {
		return nil, false, c.diff(a, b, n, out) // all names differ: nothing to describe
	}
	if raw != nil {
		node, ok, err := c.diffDescribed(n, out, raw)
		if ok || err != nil {
			return node, node != nil, err
		}
		c.hist.pairMisses++ // did not decode: read the trees
	}
	sa, err := c.tree(a, n, nil)
	if err != nil {
		return nil, false, err
	}
	sb, err := c.tree(b, n, sa)
	if err != nil {
		return nil, false, err
	}
	var node *gitcache.Pair
	if dp := c.derived; dp.a == sa && dp.b == sb && dp.d != nil {
		node = &gitcache.Pair{D: dp.d} // what derive found (diffFromDerive)
	} else if ia, ib := sa.Index(), sb.Index(); ia != nil && ib != nil {
		if d := gitobj.DiffForCache(ia, ib); d != nil {
			node = &gitcache.Pair{D: d}
		}
	}
	for i, child := range n.Kids {
		var ea, eb gitobj.RawEntry // absent: filemode.Empty, neither blob nor folder
		if i < len(sa.Ents) {
			ea = sa.Ents[i]
		}
		if i < len(sb.Ents) {
			eb = sb.Ents[i]
		}
		if ea == eb {
			continue // neither changed nor a folder pair to compare (diffRec of equal hashes learns nothing)
		}
		name := n.Names[i]
		if child.Leaf && (ea.Blob() != eb.Blob() || ea.Dir() != eb.Dir()) {
			c.changedPath(out, child, eb)
		}
		if len(child.Names) > 0 {
			sub, learned, err := c.diffRec(ea.Dir(), eb.Dir(), child, out, nil)
			if err != nil {
				return nil, false, err
			}
			if learned && node != nil {
				for x, dn := range node.D.Names {
					if dn == name {
						node.SetSub(x, sub)
						break
					}
				}
			}
		}
	}
	return node, node != nil, nil
}

// diffDescribed is diff for a pair of trees raw describes: only the names
// n wants are looked at, in trie order as diff gives them, and a folder's
// pair is descended into through its nested description when there is
// one. ok is false when raw's level does not decode (nothing was done).
// node, when not nil, is raw's level decoded with what was learned below
// it.
func (c *treeCache) diffDescribed(n *gitobj.TrieNode, out *[]string, raw []byte) (node *gitcache.Pair, ok bool, err error) {
	type hit struct {
		child  *gitobj.TrieNode
		i      int // the name's index in raw
		ea, eb gitobj.RawEntry
		sub    []byte
	}
	var buf [4]hit
	hits := buf[:0]
	rd := gitcache.NewPairReader(raw)
	for i := 0; ; i++ {
		name, ea, eb, sub, ok := rd.Next()
		if !ok {
			break
		}
		if child, want := n.Children[string(name)]; want {
			hits = append(hits, hit{child, i, ea, eb, sub})
		}
	}
	if !rd.Done() {
		return nil, false, nil
	}
	c.hist.pairHits++
	if len(hits) > 1 {
		sort.Slice(hits, func(x, y int) bool { return hits[x].child.Pos < hits[y].child.Pos })
	}
	for _, h := range hits {
		if h.sub != nil {
			// two different folder trees, described below: the path
			// changed, and so may paths inside
			if h.child.Leaf {
				c.changedPath(out, h.child, h.eb) // a folder, its hash not kept
			}
			if len(h.child.Names) == 0 {
				continue
			}
			sub, ok, err := c.diffDescribed(h.child, out, h.sub)
			switch {
			case err != nil:
				return nil, true, err
			case !ok:
				return nil, true, errStaleDescription // out holds part of the answer: start over
			}
			if sub != nil {
				if node == nil {
					if node, err = gitcache.DecodeLevel(raw); err != nil {
						return nil, true, errStaleDescription // cannot happen: the level was just read whole
					}
				}
				node.SetSub(h.i, sub)
			}
			continue
		}
		if h.child.Leaf && (h.ea.Blob() != h.eb.Blob() || h.ea.Dir() != h.eb.Dir()) {
			c.changedPath(out, h.child, h.eb)
		}
		if len(h.child.Names) == 0 {
			continue
		}
		sub, learned, err := c.diffRec(h.ea.Dir(), h.eb.Dir(), h.child, out, nil)
		if err != nil {
			return nil, true, err
		}
		if learned {
			if node == nil {
				if node, err = gitcache.DecodeLevel(raw); err != nil {
					return nil, true, errStaleDescription // cannot happen: the level was just read whole
				}
			}
			node.SetSub(h.i, sub)
		}
	}
	return node, true, nil
}
