package gitobj

// What two trees hold differently (PairDiff), found by a merge of their
// entries (DiffIndexes, DiffForCache) or from what Derive found while
// deriving one from the other (DiffFromDerive).

import (
	"bytes"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// PairDiff is what two trees hold differently: the names whose entries
// differ (in either kind), with the entry of each name in either tree (A,
// B) as a look-up by name gives it.
type PairDiff struct {
	Names []string
	A, B  []RawEntry
}

// DiffIndexes merges the entries of two well-formed trees, skipping runs
// of identical entries in chunks (one byte comparison each); nil when
// either is malformed.
func DiffIndexes(ta, tb *TreeIndex) *PairDiff {
	if !ta.WellFormed() || !tb.WellFormed() {
		return nil
	}
	d := &PairDiff{}
	seen := map[string]bool{}
	eachDiffering(ta, tb, func(t *TreeIndex, i int, _ bool) bool {
		_, name, _ := t.At(i)
		if seen[string(name)] {
			return true
		}
		n := string(name)
		seen[n] = true
		ea, _ := ta.Find(n)
		eb, _ := tb.Find(n)
		d.Names = append(d.Names, n)
		d.A = append(d.A, ea)
		d.B = append(d.B, eb)
		return true
	})
	return d
}

// eachDiffering merges the entries of the well-formed trees ta and tb in
// git's order, skipping runs of identical entries in chunks (one byte
// comparison each), and calls f with each entry the other tree does not
// hold as it is (an entry of ta when inA; both, a's first, for a name of
// one kind in both). It stops at the first f that returns false, and
// reports whether none did.
func eachDiffering(ta, tb *TreeIndex, f func(t *TreeIndex, i int, inA bool) bool) bool {
	na, nb := len(ta.Offs), len(tb.Offs)
	i, j := 0, 0
	for i < na || j < nb {
		for k := 64; k > 0 && i < na && j < nb; {
			k = min(k, na-i, nb-j)
			sa, ea := int(ta.Offs[i]), ta.End(i+k-1)
			sb, eb := int(tb.Offs[j]), tb.End(j+k-1)
			if ea-sa == eb-sb && bytes.Equal(ta.Raw[sa:ea], tb.Raw[sb:eb]) {
				i, j = i+k, j+k
				continue
			}
			k /= 2
		}
		switch {
		case i >= na && j >= nb:
		case i >= na:
			if !f(tb, j, false) {
				return false
			}
			j++
		case j >= nb:
			if !f(ta, i, true) {
				return false
			}
			i++
		default:
			ma, an, _ := ta.At(i)
			mb, bn, _ := tb.At(j)
			switch c := CompareNames(an, IsDirMode(ma), bn, IsDirMode(mb)); {
			case c < 0:
				if !f(ta, i, true) {
					return false
				}
				i++
			case c > 0:
				if !f(tb, j, false) {
					return false
				}
				j++
			default: // the same name and kind, another mode or hash
				if !f(ta, i, true) || !f(tb, j, false) {
					return false
				}
				i, j = i+1, j+1
			}
		}
	}
	return true
}

// pairBuilder collects a PairDiff entry by entry, each name once with its
// entry on either side, without a look-up per name.
type pairBuilder struct {
	d     *PairDiff
	index map[string]int // name → its index in d, once d has many
}

// add records entry i of t (of the first tree when inA) as the entry of its
// name on that side; false when t holds the name twice (a file and a
// folder of one name, which git never writes: the caller falls back).
func (b *pairBuilder) add(t *TreeIndex, i int, inA bool) bool {
	mode, name, h := t.At(i)
	if t.HasTwin(i, name, IsDirMode(mode)) {
		return false
	}
	m, _ := filemode.New(string(mode))
	e := RawEntry{Mode: m}
	copy(e.Hash[:], t.Raw[h:h+20])
	d := b.d
	k, ok := -1, false
	if b.index != nil {
		k, ok = b.index[string(name)]
	} else {
		for x := len(d.Names) - 1; x >= 0 && !ok; x-- {
			k, ok = x, d.Names[x] == string(name)
		}
	}
	if !ok {
		k = len(d.Names)
		d.Names = append(d.Names, string(name))
		d.A = append(d.A, RawEntry{})
		d.B = append(d.B, RawEntry{})
		switch {
		case b.index != nil:
			b.index[d.Names[k]] = k
		case len(d.Names) > 16: // many names: a map rather than a scan each
			b.index = make(map[string]int, 2*len(d.Names))
			for x, n := range d.Names {
				b.index[n] = x
			}
		}
	}
	if inA {
		d.A[k] = e
	} else {
		d.B[k] = e
	}
	return true
}

// DiffForCache returns what DiffIndexes returns for two trees, without a
// look-up per differing name: the merge of their entries gives each
// differing entry where it stands. It holds when no differing name is in
// either tree twice (a file and a folder of one name, which git never
// writes); when one is, it falls back to DiffIndexes. nil when either tree
// is malformed.
func DiffForCache(ta, tb *TreeIndex) *PairDiff {
	if !ta.WellFormed() || !tb.WellFormed() {
		return nil
	}
	b := pairBuilder{d: &PairDiff{}}
	if !eachDiffering(ta, tb, b.add) {
		return DiffIndexes(ta, tb)
	}
	return b.d
}

// Index returns s's tree as an index when s holds it whole: the Repo's
// index, or the raw content and entry offsets a scan or derive recorded
// (those are in git's strict order, each entry whole, to the end).
func (s *Scanned) Index() *TreeIndex {
	switch {
	case s == nil:
		return nil
	case s.idx != nil:
		return s.idx
	case s.offs != nil:
		return &TreeIndex{Raw: s.raw, Offs: s.offs, Sorted: true}
	}
	return nil
}

// DiffFromDerive returns what DiffForCache returns for near's tree and
// t's, which Derive gave from near: the entries that differ are among
// those Derive did not find in the other tree (t.gone, t.parsed), with no
// merge of the two trees. Derive may parse an entry equal to one of
// near's it skipped over; such a name, met on both sides with equal
// entries, is dropped. Trees with a file and a folder of one differing
// name fall back to DiffForCache.
func DiffFromDerive(near, t *Scanned) *PairDiff {
	ta, tb := near.Index(), t.Index()
	if ta == nil || tb == nil {
		return nil
	}
	n := len(t.gone) + len(t.parsed)
	ents := make([]RawEntry, 2*n)
	b := pairBuilder{d: &PairDiff{Names: make([]string, 0, n), A: ents[:0:n], B: ents[n : n : 2*n]}}
	for _, i := range t.gone {
		if !b.add(ta, int(i), true) {
			return DiffForCache(ta, tb)
		}
	}
	for _, bi := range t.parsed {
		if !b.add(tb, int(bi), false) {
			return DiffForCache(ta, tb)
		}
	}
	// drop the names equal on both sides
	d := b.d
	w := 0
	for x := range d.Names {
		if d.A[x] == d.B[x] {
			continue
		}
		d.Names[w], d.A[w], d.B[w] = d.Names[x], d.A[x], d.B[x]
		w++
	}
	d.Names, d.A, d.B = d.Names[:w], d.A[:w], d.B[:w]
	return d
}
