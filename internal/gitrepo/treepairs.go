package gitrepo

import (
	"bytes"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
)

// maxCachedPairs bounds the tree pairs whose differences a Repo keeps (a
// few names each): the walks of one run for workflows of different base
// commits compare the same trees of each commit and its parent.
const maxCachedPairs = 1 << 13

// maxSeenPairs bounds the pairs a Repo remembers having met once: a pair is
// described only when met a second time, so a single walk over a long
// history (met once each) describes nothing.
const maxSeenPairs = 1 << 12

// pairDiff is what two trees hold differently: the names whose entries
// differ (in either kind), with the entry of each name in either tree as a
// look-up by name gives it.
type pairDiff struct {
	names  []string
	ea, eb []rawEntry
}

// pairCache keeps the differences of the tree pairs the walks compared. A
// nil *pairDiff stands for a pair it cannot describe (a malformed tree).
type pairCache struct {
	m    map[[2]plumbing.Hash]*pairDiff
	seen map[[2]plumbing.Hash]struct{} // pairs met once, not described
}

// get returns the differences of trees a and b (neither zero), or nil when
// the pair is not described: met for the first time, a malformed tree, a
// read error (the caller's own walk reports it), or the cache full.
func (p *pairCache) get(s *treeIndexCache, a, b plumbing.Hash) *pairDiff {
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
	ta, err := s.get(a)
	if err != nil {
		return nil
	}
	tb, err := s.get(b)
	if err != nil {
		return nil
	}
	d := diffIndexes(ta, tb)
	if p.m == nil {
		p.m = make(map[[2]plumbing.Hash]*pairDiff)
	}
	p.m[k] = d
	return d
}

// wellFormed reports whether t is in git's strict order and its entries
// fill its content to the end.
func (t *treeIndex) wellFormed() bool {
	if !t.sorted {
		return false
	}
	if len(t.offs) == 0 {
		return len(t.raw) == 0
	}
	_, _, h := t.at(len(t.offs) - 1)
	return h+20 == len(t.raw)
}

// end returns where entry i of t ends.
func (t *treeIndex) end(i int) int {
	if i+1 < len(t.offs) {
		return int(t.offs[i+1])
	}
	return len(t.raw)
}

// diffIndexes merges the entries of two well-formed trees, skipping runs
// of identical entries in chunks (one byte comparison each); nil when
// either is malformed.
func diffIndexes(ta, tb *treeIndex) *pairDiff {
	if !ta.wellFormed() || !tb.wellFormed() {
		return nil
	}
	d := &pairDiff{}
	seen := map[string]bool{}
	add := func(name []byte) {
		if seen[string(name)] {
			return
		}
		n := string(name)
		seen[n] = true
		ea, _ := ta.find(n)
		eb, _ := tb.find(n)
		d.names = append(d.names, n)
		d.ea = append(d.ea, ea)
		d.eb = append(d.eb, eb)
	}
	na, nb := len(ta.offs), len(tb.offs)
	i, j := 0, 0
	for i < na || j < nb {
		for k := 64; k > 0 && i < na && j < nb; {
			k = min(k, na-i, nb-j)
			sa, ea := int(ta.offs[i]), ta.end(i+k-1)
			sb, eb := int(tb.offs[j]), tb.end(j+k-1)
			if ea-sa == eb-sb && bytes.Equal(ta.raw[sa:ea], tb.raw[sb:eb]) {
				i, j = i+k, j+k
				continue
			}
			k /= 2
		}
		switch {
		case i >= na && j >= nb:
		case i >= na:
			_, name, _ := tb.at(j)
			add(name)
			j++
		case j >= nb:
			_, name, _ := ta.at(i)
			add(name)
			i++
		default:
			ma, an, _ := ta.at(i)
			mb, bn, _ := tb.at(j)
			c := compareNames(an, isDirMode(ma), bn, isDirMode(mb))
			switch {
			case c < 0:
				add(an)
				i++
			case c > 0:
				add(bn)
				j++
			default: // the same name and kind, another mode or hash
				add(an)
				i, j = i+1, j+1
			}
		}
	}
	return d
}

// diffPair is diff for trees whose differences d describes: only the
// names that differ are looked at, in trie order as diff gives them.
func (c *treeCache) diffPair(d *pairDiff, n *trieNode, out *[]string) error {
	var at []int // indexes in d of the wanted names, by trie position
	for i, name := range d.names {
		if _, ok := n.children[name]; ok {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return nil
	}
	sort.Slice(at, func(x, y int) bool { return n.children[d.names[at[x]]].pos < n.children[d.names[at[y]]].pos })
	for _, i := range at {
		child := n.children[d.names[i]]
		ea, eb := d.ea[i], d.eb[i]
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
