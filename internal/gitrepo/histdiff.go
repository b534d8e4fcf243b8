package gitrepo

import (
	"bytes"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// diffForCache returns what diffIndexes returns for two trees, without a
// look-up per differing name: the merge of their entries gives each
// differing entry where it stands. It holds when no differing name is in
// either tree twice (a file and a folder of one name, which git never
// writes); when one is, it falls back to diffIndexes. nil when either tree
// is malformed.
func diffForCache(ta, tb *treeIndex) *pairDiff {
	if !ta.wellFormed() || !tb.wellFormed() {
		return nil
	}
	d := &pairDiff{}
	twin := false
	var index map[string]int // name → its index in d, once d has many
	// add records entry i of t (a when inA) as the entry of its name on
	// that side.
	add := func(t *treeIndex, i int, inA bool) {
		mode, name, h := t.at(i)
		if t.hasTwin(i, name, isDirMode(mode)) {
			twin = true
			return
		}
		m, _ := filemode.New(string(mode))
		e := rawEntry{mode: m}
		copy(e.hash[:], t.raw[h:h+20])
		k, ok := -1, false
		if index != nil {
			k, ok = index[string(name)]
		} else {
			for x := len(d.names) - 1; x >= 0 && !ok; x-- {
				k, ok = x, d.names[x] == string(name)
			}
		}
		if !ok {
			k = len(d.names)
			d.names = append(d.names, string(name))
			d.ea = append(d.ea, rawEntry{})
			d.eb = append(d.eb, rawEntry{})
			switch {
			case index != nil:
				index[d.names[k]] = k
			case len(d.names) > 16: // many names: a map rather than a scan each
				index = make(map[string]int, 2*len(d.names))
				for x, n := range d.names {
					index[n] = x
				}
			}
		}
		if inA {
			d.ea[k] = e
		} else {
			d.eb[k] = e
		}
	}
	na, nb := len(ta.offs), len(tb.offs)
	i, j := 0, 0
	for (i < na || j < nb) && !twin {
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
			add(tb, j, false)
			j++
		case j >= nb:
			add(ta, i, true)
			i++
		default:
			ma, an, _ := ta.at(i)
			mb, bn, _ := tb.at(j)
			switch c := compareNames(an, isDirMode(ma), bn, isDirMode(mb)); {
			case c < 0:
				add(ta, i, true)
				i++
			case c > 0:
				add(tb, j, false)
				j++
			default: // the same name and kind, another mode or hash
				add(ta, i, true)
				add(tb, j, false)
				i, j = i+1, j+1
			}
		}
	}
	if twin {
		return diffIndexes(ta, tb)
	}
	return d
}

// hasTwin reports whether the well-formed tree t holds, besides its entry
// i (name, a folder when dir), an entry of the same name of the other
// kind. A folder sorts as its name followed by '/': between a file and a
// folder of one name there are only names that extend it with a byte
// before '/'.
func (t *treeIndex) hasTwin(i int, name []byte, dir bool) bool {
	step := 1
	if dir {
		step = -1
	}
	for x := i + step; x >= 0 && x < len(t.offs); x += step {
		mode, n, _ := t.at(x)
		if !bytes.HasPrefix(n, name) {
			return false
		}
		if len(n) == len(name) {
			return isDirMode(mode) != dir
		}
		if n[len(name)] >= '/' {
			return false
		}
	}
	return false
}

// index returns s's tree as an index when s holds it whole: the Repo's
// index, or the raw content and entry offsets a scan or derive recorded
// (those are in git's strict order, each entry whole, to the end).
func (s *scanned) index() *treeIndex {
	switch {
	case s == nil:
		return nil
	case s.idx != nil:
		return s.idx
	case s.offs != nil:
		return &treeIndex{raw: s.raw, offs: s.offs, sorted: true}
	}
	return nil
}

// diffFromDerive returns what diffForCache returns for near's tree and
// t's, which derive gave from near: the entries that differ are among
// those derive did not find in the other tree (t.gone, t.parsed), with no
// merge of the two trees. derive may parse an entry
// equal to one of near's it skipped over; such a name, met on both sides
// with equal entries, is dropped. Trees with a file and a folder of one
// differing name fall back to diffForCache.
func diffFromDerive(near, t *scanned) *pairDiff {
	ta, tb := near.index(), t.index()
	if ta == nil || tb == nil {
		return nil
	}
	n := len(t.gone) + len(t.parsed)
	ents := make([]rawEntry, 2*n)
	d := &pairDiff{names: make([]string, 0, n), ea: ents[:0:n], eb: ents[n : n : 2*n]}
	var index map[string]int
	add := func(tr *treeIndex, i int, inA bool) bool {
		mode, name, h := tr.at(i)
		if tr.hasTwin(i, name, isDirMode(mode)) {
			return false
		}
		m, _ := filemode.New(string(mode))
		e := rawEntry{mode: m}
		copy(e.hash[:], tr.raw[h:h+20])
		k, ok := -1, false
		if index != nil {
			k, ok = index[string(name)]
		} else {
			for x := len(d.names) - 1; x >= 0 && !ok; x-- {
				k, ok = x, d.names[x] == string(name)
			}
		}
		if !ok {
			k = len(d.names)
			d.names = append(d.names, string(name))
			d.ea = append(d.ea, rawEntry{})
			d.eb = append(d.eb, rawEntry{})
			switch {
			case index != nil:
				index[d.names[k]] = k
			case len(d.names) > 16:
				index = make(map[string]int, 2*len(d.names))
				for x, n := range d.names {
					index[n] = x
				}
			}
		}
		if inA {
			d.ea[k] = e
		} else {
			d.eb[k] = e
		}
		return true
	}
	for _, i := range t.gone {
		if !add(ta, int(i), true) {
			return diffForCache(ta, tb)
		}
	}
	for _, bi := range t.parsed {
		if !add(tb, int(bi), false) {
			return diffForCache(ta, tb)
		}
	}
	// drop the names equal on both sides
	w := 0
	for x := range d.names {
		if d.ea[x] == d.eb[x] {
			continue
		}
		d.names[w], d.ea[w], d.eb[w] = d.names[x], d.ea[x], d.eb[x]
		w++
	}
	d.names, d.ea, d.eb = d.names[:w], d.ea[:w], d.eb[:w]
	return d
}
