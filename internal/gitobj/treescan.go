package gitobj

// Trees scanned for the names a walk wants: the wanted paths arranged by
// folder (Trie), the entries of one tree for one folder of them (Scanned:
// a merge of the tree's entries with the wanted names, both in git's
// order), and a tree derived from a similar one (its child commit's)
// without a scan of every entry (Derive).

import (
	"bytes"
	"math/bits"
	"path"
	"slices"
	"sort"
	"strings"
)

// Trie is the set of paths CommitsTouching and LastChange follow,
// arranged by folder.
type Trie struct {
	Paths []string // as given, deduplicated
	Root  *TrieNode
}

type TrieNode struct {
	Names    []string // children, sorted
	Children map[string]*TrieNode
	Kids     []*TrieNode // Children in the order of Names (Kids[i] is Children[Names[i]])
	keys     []trieKey   // each child name as a file and as a folder, in git's tree order
	Path     string      // the full path when a wanted path ends here
	Leaf     bool
	Pos      int // the index of its name in its parent's names
}

// trieKey is a child's name as a tree entry of either kind would sort it.
type trieKey struct {
	name []byte
	dir  bool
	Pos  int
}

// NewTrie arranges paths by folder. A run's union of referenced files
// (5,000 paths, sorted) is built in one pass with few allocations and few
// map operations: sorted paths are told apart from the one before, a
// folder's children are looked up among those it has (the last one added
// first, a map only for a folder of many), the nodes, child lists and
// names' bytes come from arenas sized once, and each folder's map of
// children is made at its final size.
func NewTrie(paths []string) *Trie {
	t := &Trie{Root: &TrieNode{}, Paths: make([]string, 0, len(paths))}
	sorted := slices.IsSorted(paths)
	var seen map[string]struct{}
	if !sorted {
		seen = make(map[string]struct{}, len(paths))
	}
	var slab []TrieNode // nodes, allocated a chunk at a time
	many := map[*TrieNode]map[string]*TrieNode{}
	nodes, nameBytes := 0, 0
	child := func(n *TrieNode, part string) *TrieNode {
		if k := len(n.Names); k > 0 && n.Names[k-1] == part {
			return n.Kids[k-1]
		}
		if m := many[n]; m != nil {
			return m[part]
		}
		for i, name := range n.Names {
			if name == part {
				return n.Kids[i]
			}
		}
		return nil
	}
	for i, p := range paths {
		if sorted {
			if i > 0 && paths[i-1] == p {
				continue
			}
		} else if _, dup := seen[p]; dup {
			continue
		} else {
			seen[p] = struct{}{}
		}
		t.Paths = append(t.Paths, p)
		clean := path.Clean(p)
		if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || path.IsAbs(clean) {
			continue
		}
		n := t.Root
		for rest, more := clean, true; more; {
			var part string
			part, rest, more = strings.Cut(rest, "/")
			c := child(n, part)
			if c == nil {
				if len(slab) == 0 {
					slab = make([]TrieNode, min(256, max(16, len(paths))))
				}
				c, slab = &slab[0], slab[1:]
				n.Names, n.Kids = append(n.Names, part), append(n.Kids, c)
				if m := many[n]; m != nil {
					m[part] = c
				} else if len(n.Names) > trieScanKids {
					m = make(map[string]*TrieNode, 2*len(n.Names))
					for i, name := range n.Names {
						m[name] = n.Kids[i]
					}
					many[n] = m
				}
				nodes++
				nameBytes += len(part)
			}
			n = c
		}
		n.Leaf, n.Path = true, p
	}
	// every folder's names sorted, its children in that order, its keys in
	// git's tree order and its map, from arenas of the exact sizes
	kidArena := make([]*TrieNode, nodes)
	strArena := make([]string, nodes)
	keyArena := make([]trieKey, 2*nodes)
	nameArena := make([]byte, nameBytes)
	var order []int // a folder's children by name (used before the next folder's)
	var finish func(n *TrieNode)
	finish = func(n *TrieNode) {
		k := len(n.Names)
		if k == 0 {
			n.Names, n.Kids = nil, nil
			return
		}
		kids, names := kidArena[:k:k], strArena[:k:k]
		kidArena, strArena = kidArena[k:], strArena[k:]
		order = order[:0]
		for i := range k {
			order = append(order, i)
		}
		if !slices.IsSorted(n.Names) {
			slices.SortFunc(order, func(a, b int) int { return strings.Compare(n.Names[a], n.Names[b]) })
		}
		n.keys, keyArena = keyArena[:0:2*k], keyArena[2*k:]
		n.Children = make(map[string]*TrieNode, k)
		for i, o := range order {
			name, c := n.Names[o], n.Kids[o]
			names[i], kids[i], c.Pos = name, c, i
			n.Children[name] = c
			b := nameArena[:len(name):len(name)]
			nameArena = nameArena[len(name):]
			copy(b, name)
			n.keys = append(n.keys, trieKey{b, false, i}, trieKey{b, true, i})
		}
		n.Names, n.Kids = names, kids
		slices.SortFunc(n.keys, func(a, b trieKey) int { return CompareNames(a.name, a.dir, b.name, b.dir) })
		for _, c := range n.Kids {
			finish(c)
		}
	}
	finish(t.Root)
	return t
}

// trieScanKids is the most children NewTrie looks a name up among one by
// one; a folder with more has a map of them while the trie is built.
const trieScanKids = 8

// Scanned is what the walk knows of one tree for one trie node: the entries
// wanted, and — when the tree is in git's order and names each wanted name
// once — its raw content, where each entry starts and which entry each
// wanted one is, so that its parent's tree (most often the same bytes but
// for an entry or two) is derived from it without a scan of every entry.
type Scanned struct {
	Ents []RawEntry // in the order of n.Names; absent: filemode.Empty
	raw  []byte     // the tree's content
	offs []uint32   // where each entry starts in raw; nil: not derivable from
	at   []int32    // per name, the index of its entry, or -1
	idx  *TreeIndex // the tree's index when the Repo's cache held it
	// parsed and gone are, when derive gave the tree, the indexes of its
	// entries it did not find in near's, and of near's it did not find in
	// it.
	parsed, gone []int32
}

// ScanIndex looks the names n wants up in the indexed tree idx. A
// well-formed tree with many names wanted in it is scanned as ScanFull
// scans (a merge with them, both in git's order; in such a tree the one
// entry a look-up finds) rather than searched once per name: the result
// then records what Derive needs to derive its parent's tree from it.
func ScanIndex(idx *TreeIndex, n *TrieNode) *Scanned {
	if !idx.lazy && len(idx.Offs) <= 2*len(n.Names)*bits.Len(uint(len(idx.Offs))) && idx.WellFormed() {
		t := ScanFull(idx.Raw, n)
		t.idx = idx
		return t
	}
	t := &Scanned{Ents: make([]RawEntry, len(n.Names)), idx: idx}
	for i, name := range n.Names {
		if e, ok := idx.Find(name); ok {
			t.Ents[i] = e
		}
	}
	return t
}

// ScanFull scans every entry of raw for the names n wants.
func ScanFull(raw []byte, n *TrieNode) *Scanned {
	t := &Scanned{Ents: make([]RawEntry, len(n.Names))}
	if scanTree(raw, n, t.Ents, &t.offs, &t.at) {
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
func scanTree(raw []byte, n *TrieNode, t []RawEntry, offs *[]uint32, at *[]int32) bool {
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
		sp, nul := entryBounds(rest)
		if sp < 0 {
			return false
		}
		name := rest[sp+1 : sp+1+nul]
		dir := IsDirMode(rest[:sp])
		if prev != nil && CompareNames(prev, prevDir, name, dir) >= 0 {
			clear(t)
			scanTreeLookup(raw, n, t)
			return false
		}
		prev, prevDir = name, dir
		if ok {
			*offs = append(*offs, uint32(len(raw)-len(rest)))
		}
		for len(keys) > 0 && CompareNames(keys[0].name, keys[0].dir, name, dir) < 0 {
			keys = keys[1:]
		}
		if len(keys) > 0 && keys[0].dir == dir && bytes.Equal(keys[0].name, name) {
			t[keys[0].Pos] = ParseEntry(rest[:sp], rest[sp+1+nul+1:sp+1+nul+21])
			if ok {
				if (*at)[keys[0].Pos] >= 0 {
					ok = false // a file and a folder of one name
				}
				(*at)[keys[0].Pos] = int32(len(*offs) - 1)
			}
			keys = keys[1:]
		}
		rest = rest[sp+1+nul+21:]
	}
	return ok
}

// Derive returns the wanted entries of the raw tree from near's, when near
// was derivable: runs of entries equal in both are skipped in chunks (one
// byte comparison each), and only the entries that differ are parsed. It
// returns nil when it cannot tell (the caller scans instead). The runs
// skipped are recorded as runs (in scratch), not entry by entry, and the
// tree's entry offsets are near's own (shared, read-only) for as long as
// they are the same: a folder whose files changed in place (the same
// names, other hashes: most commits) costs no copy of them.
func Derive(near *Scanned, raw []byte, n *TrieNode, scratch *[]int32) *Scanned {
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
	t := &Scanned{Ents: make([]RawEntry, len(n.Names)), raw: raw, at: make([]int32, len(n.Names))}
	for i := range t.at {
		t.at[i] = -1
	}
	o := offsBuilder{near: offs}
	runs := (*scratch)[:0] // triples: a's first entry of a run found in raw, its index in o, the run's length
	var parsed []int32     // indexes in raw of the entries parsed
	var gone []int32       // indexes in a of the entries not found in raw
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
			if prevParsed && o.len() > 0 && !inOrder(raw, int(o.last()), x) {
				*scratch = runs
				return nil
			}
			if r := len(runs); r > 0 && int(runs[r-3]+runs[r-1]) == i && int(runs[r-2]+runs[r-1]) == o.len() {
				runs[r-1] += int32(k) // goes on from the run before
			} else {
				runs = append(runs, int32(i), int32(o.len()), int32(k))
			}
			o.addRun(offs[i:i+k], x-s)
			i, x, prevParsed = i+k, x+e-s, false
		}
		if x >= len(raw) {
			break // a's entries from i on are gone
		}
		// raw's entry at x is not a's entry i: parse it.
		e := raw[x:]
		sp, nul := entryBounds(e)
		if sp < 0 {
			*scratch = runs
			return nil
		}
		if o.len() > 0 && !inOrder(raw, int(o.last()), x) {
			*scratch = runs
			return nil
		}
		name, dir := e[sp+1:sp+1+nul], IsDirMode(e[:sp])
		// a's entries that sort before it are gone from raw; one of its
		// name and kind is replaced.
		for i < len(offs) {
			an, ad := entryName(a[offs[i]:])
			c := CompareNames(an, ad, name, dir)
			if c > 0 {
				break
			}
			gone = append(gone, int32(i))
			i++
			if c == 0 {
				break
			}
		}
		parsed = append(parsed, int32(o.len()))
		o.add(uint32(x))
		x += sp + 1 + nul + 21
		prevParsed = true
	}
	for ; i < len(offs); i++ {
		gone = append(gone, int32(i))
	}
	*scratch = runs
	t.offs = o.slice()
	for pos, ia := range near.at {
		if ia < 0 {
			continue
		}
		// the run holding a's entry ia, if any: the last one starting at or before it
		r := sort.Search(len(runs)/3, func(r int) bool { return runs[3*r] > ia }) - 1
		if r >= 0 && ia < runs[3*r]+runs[3*r+2] {
			t.Ents[pos], t.at[pos] = near.Ents[pos], runs[3*r+1]+ia-runs[3*r]
		}
	}
	t.parsed, t.gone = parsed, gone
	for _, bi := range parsed {
		e := raw[t.offs[bi]:]
		name, _ := entryName(e)
		child, want := n.Children[string(name)]
		if !want {
			continue
		}
		if t.at[child.Pos] >= 0 {
			return nil // a file and a folder of one name: scan
		}
		sp := entrySpace(e)
		t.Ents[child.Pos] = ParseEntry(e[:sp], e[sp+1+len(name)+1:sp+1+len(name)+21])
		t.at[child.Pos] = bi
	}
	return t
}

// offsBuilder builds the entry offsets of a tree Derive gives: while they
// are near's (the same entries at the same places) it only counts them,
// and copies them out at the first that is not.
type offsBuilder struct {
	near []uint32 // the neighbour's offsets, read only
	n    int      // how many of near's are the tree's, while out is nil
	out  []uint32 // the tree's, once they are not near's
}

func (o *offsBuilder) len() int {
	if o.out == nil {
		return o.n
	}
	return len(o.out)
}

// last returns the last offset added (there is one).
func (o *offsBuilder) last() uint32 {
	if o.out == nil {
		return o.near[o.n-1]
	}
	return o.out[len(o.out)-1]
}

// add adds the offset of one entry.
func (o *offsBuilder) add(v uint32) {
	if o.out == nil && o.n < len(o.near) && o.near[o.n] == v {
		o.n++
		return
	}
	o.own()
	o.out = append(o.out, v)
}

// addRun adds the offsets of a's entries run, moved by shift bytes.
func (o *offsBuilder) addRun(run []uint32, shift int) {
	if o.out == nil && shift == 0 && o.n+len(run) <= len(o.near) && len(run) > 0 && &o.near[o.n] == &run[0] {
		o.n += len(run)
		return
	}
	o.own()
	for _, v := range run {
		o.out = append(o.out, uint32(int(v)+shift))
	}
}

// own copies the offsets out of near.
func (o *offsBuilder) own() {
	if o.out == nil {
		o.out = append(make([]uint32, 0, len(o.near)+4), o.near[:o.n]...)
	}
}

// slice returns the offsets: near's own (capacity cut, so that nothing
// is ever appended to them) while they are the same.
func (o *offsBuilder) slice() []uint32 {
	if o.out == nil {
		return o.near[:o.n:o.n]
	}
	return o.out
}

// inOrder reports whether the entry of raw at offset p sorts strictly
// before the one at q (both well formed).
func inOrder(raw []byte, p, q int) bool {
	pn, pd := entryName(raw[p:])
	qn, qd := entryName(raw[q:])
	return CompareNames(pn, pd, qn, qd) < 0
}

// entryName returns the name of the well-formed entry that starts e, and
// whether it is a folder.
func entryName(e []byte) ([]byte, bool) {
	sp := entrySpace(e)
	nul := nameEnd0(e[sp+1:])
	return e[sp+1 : sp+1+nul], IsDirMode(e[:sp])
}

// entryBounds returns where the mode (sp) and the name (nul, counted from
// sp+1) of the entry that starts e end, or sp -1 when e does not start
// with a whole entry (mode, space, name, NUL, 20-byte hash).
func entryBounds(e []byte) (sp, nul int) {
	if sp = entrySpace(e); sp < 0 {
		return -1, 0
	}
	if nul = nameEnd0(e[sp+1:]); nul < 0 || sp+1+nul+21 > len(e) {
		return -1, 0
	}
	return sp, nul
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
func scanTreeLookup(raw []byte, n *TrieNode, t []RawEntry) {
	eachEntry(raw, func(mode, name, hash []byte) {
		if child, want := n.Children[string(name)]; want {
			t[child.Pos] = ParseEntry(mode, hash)
		}
	})
}
