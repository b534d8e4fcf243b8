package gitrepo

// The history cache: what the history walks (CommitsTouching, LastChange,
// and so LastCommitted and Removal) derive from git objects, kept across
// runs in the user's cache folder (internal/diskcache; never in a
// repository) so that a later run over the same history reads no commit
// and no tree it has compared before.
//
// One table, git-commits-<repo>, keyed by a commit's hash (20 bytes). Its
// value (encodeCommit) is the commit's tree hash, then, when it has one, its
// first parent's hash and what differs between its tree and that parent's
// tree: the names whose entries differ, each with its entry in either tree
// as a look-up by name gives it, and, for a folder a walk descended into,
// the same description of that folder's pair of trees, nested in place of
// the two folder hashes (see pairNode, encodePair). A walk that finds a commit there reads neither the commit nor
// any tree it has a description for: it looks only at the names its paths
// want. A description lists every differing name of its pair, so a walk for
// other paths can use it, and descends into a folder not described by
// reading the two trees, then records the richer description.
//
// The shallow boundary is not in it: parentLinks checks r.shallow on every
// step, as without the cache, and a commit whose parent the walk does not
// follow (a boundary, a missing parent) compares its tree with nothing
// without the description.
//
// Why it is sound: a commit's links and the differences of two trees are
// functions of the objects' content, which git names by its hash. The
// repository's object store (or commit-graph) could lie about an object's
// content, and an entry derived from a lie would be false for a genuine
// object of that hash; so, with the cache on, every commit whose links are
// recorded and every tree read is checked against its hash, and a run that
// met one object that is not what its name says saves nothing (verify.go).
// The table is also per repository: <repo> is a digest of the absolute
// path of the repository's git folder and of that folder's device, inode
// and birth time, and an entry one repository derived is not read for
// another (a clone elsewhere, or a repository created again at the same
// path, starts with an empty cache); the table's MAC covers its name
// (internal/diskcache), so a table copied over another's is not read. Values are decoded as untrusted input
// (decodeCommit, pairReader): a value, or a nested description, that does
// not decode is a miss, and the walk reads the objects as without the
// cache. Only what a walk derived without error from well-formed trees is
// recorded; SaveCache writes what this run added in one Write. The table is
// read on the first walk only, never by a run that walks no history.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/orchestrate-dev/orchestrate/internal/cachetable"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// errUnverified is SaveCache's answer when an object a walk read was not
// what its name says: nothing was written (see verify.go).
var errUnverified = errors.New("an object read was not what its hash names: nothing kept")

// commitsTable prefixes the table's name (the repository's digest follows).
const commitsTable = "git-commits-"

// maxNewCommits bounds the commits one run adds to the table (and keeps,
// encoded, in memory until SaveCache): about 100 to 300 bytes each.
const maxNewCommits = 1 << 17

// maxPairDepth bounds the nesting of a description that decodes.
const maxPairDepth = 256

// histCache is a Repo's view of the history table: what was read at the
// first walk, and what this run added.
type histCache struct {
	// t's values this run are what it derived, by commit (newer than the
	// table's, and read before it), or the links read from the repository
	// with no description derived (linksOnly, encoded by SaveCache).
	t *cachetable.Table[plumbing.Hash, histValue]
	// the look-ups of a commit that found a value that decodes, and the
	// others; the descriptions used and those that did not decode
	linkHits, linkMisses, pairHits, pairMisses int
}

// histValue is a value of the history table: encoded (v), or, for links
// this run read with no description derived, the links.
type histValue struct {
	v         []byte
	l         links
	linksOnly bool
}

// hist returns the history table, read on the first call; nil when the
// cache is off or the repository cannot be named.
func (r *Repo) hist() *histCache {
	if r.histTried {
		return r.histc
	}
	r.histTried = true
	if r.packs == nil || r.packs.FS == nil {
		return nil
	}
	t := cachetable.New(r.disk, r.packs.FS.Root(), cachetable.Spec[plumbing.Hash, histValue]{
		Prefix: commitsTable, KeySize: len(plumbing.ZeroHash), Key: hashKey,
		Encode: func(dst []byte, e histValue) []byte {
			if e.linksOnly {
				return append(dst, encodeCommit(e.l, nil)...)
			}
			return append(dst, e.v...)
		},
		Decode: func(v []byte) (histValue, bool) { return histValue{v: v}, true },
		MaxNew: maxNewCommits,
	})
	if !t.Open() {
		return nil
	}
	r.histc = &histCache{t: t}
	return r.histc
}

// SaveCache writes to the cache (UseCache) what this run's walks derived
// that it did not hold yet, in one Write; nothing when no walk ran or
// nothing is new. A cache that is off or cannot be written is skipped; the
// error only says why (for a debug log).
func (r *Repo) SaveCache() error {
	if r.verify.Failed() {
		// an object read was not what its name says: nothing this run
		// derived is kept (see verify.go)
		r.objs.drop()
		r.memo.Drop()
		r.wmemo.Drop()
		r.cmemo.Drop()
	}
	if err := r.objs.save(); err != nil {
		return fmt.Errorf("save the object cache: %w", err)
	}
	if err := r.memo.Save(); err != nil {
		return fmt.Errorf("save the path cache: %w", err)
	}
	if err := r.wmemo.Save(); err != nil {
		return fmt.Errorf("save the walk cache: %w", err)
	}
	if err := r.cmemo.Save(); err != nil {
		return fmt.Errorf("save the changed-paths cache: %w", err)
	}
	h := r.histc
	if h == nil || h.t.Pending() == 0 {
		return nil
	}
	if r.verify.Failed() {
		h.t.Drop()
		return errUnverified
	}
	if err := h.t.Save(); err != nil {
		return fmt.Errorf("save the history cache: %w", err)
	}
	return nil
}

// cachedLinks returns commit c's links from what this run derived or the
// table; ok is false on a miss (absent, or a value that does not decode).
func (h *histCache) cachedLinks(c plumbing.Hash) (links, bool) {
	e, fresh, ok := h.t.Get(c)
	var l links
	switch {
	case ok && fresh && e.linksOnly:
		l = e.l
	case ok:
		l, _, ok = decodeCommit(c, e.v)
	}
	if ok {
		h.linkHits++
	} else {
		h.linkMisses++
	}
	return l, ok
}

// addLinks records l (read from the repository) for SaveCache.
func (h *histCache) addLinks(l links) {
	h.t.Add(l.hash, histValue{l: l, linksOnly: true})
}

// addDiff records the description of commit l's tree and its first
// parent's for SaveCache.
func (h *histCache) addDiff(l links, d *pairNode) {
	h.t.Put(l.hash, histValue{v: encodeCommit(l, d)})
}

// encodeCommit is a commit's value: the tree hash, then, when it has a
// first parent, the parent's hash and d's description (encodePair; none
// when d is nil).
func encodeCommit(l links, d *pairNode) []byte {
	size := 40
	if d != nil {
		size += pairSize(d)
	}
	out := make([]byte, 0, size)
	out = append(out, l.tree[:]...)
	if !l.parent.IsZero() {
		out = append(out, l.parent[:]...)
		if d != nil {
			out = appendPair(out, d)
		}
	}
	return out
}

// decodeCommit decodes commit c's value; ok is false unless it is 20 bytes
// (a root commit), or 40 or more (a tree, a parent and a description,
// returned as diff and decoded when used), neither hash zero.
func decodeCommit(c plumbing.Hash, v []byte) (l links, diff []byte, ok bool) {
	l.hash = c
	switch {
	case len(v) == 20:
	case len(v) >= 40:
		copy(l.parent[:], v[20:40])
		if l.parent.IsZero() {
			return links{}, nil, false
		}
		if len(v) > 40 {
			diff = v[40:len(v):len(v)]
		}
	default:
		return links{}, nil, false
	}
	copy(l.tree[:], v[:20])
	if l.tree.IsZero() {
		return links{}, nil, false
	}
	return l, diff, true
}

// description returns the description of commit l's tree and its
// parent's that this run derived or the table holds; nil when none.
func (h *histCache) description(l links) []byte {
	e, fresh, ok := h.t.Get(l.hash)
	v := e.v
	if ok && fresh && e.linksOnly {
		v, ok = h.t.Saved(l.hash)
	}
	if !ok {
		return nil
	}
	got, diff, ok := decodeCommit(l.hash, v)
	if !ok || got != l {
		return nil // not the links the walk follows
	}
	return diff
}

// pairNode describes a pair of trees: what differs (d), and for some of
// the differing names that are folders in both, their pair's description,
// decoded (sub) or as read (subRaw). Either slice may be shorter than
// d.names (nil: none).
type pairNode struct {
	d      *gitobj.PairDiff
	sub    []*pairNode
	subRaw [][]byte
}

// setSub sets the description of name i's folder pair.
func (n *pairNode) setSub(i int, sub *pairNode) {
	if len(n.sub) <= i {
		n.sub = append(n.sub, make([]*pairNode, len(n.d.Names)-len(n.sub))...)
	}
	n.sub[i] = sub
}

// nested returns name i's folder pair description, decoded or as read;
// both nil when there is none, or when name i is not a folder in both
// trees (only such a pair is described).
func (n *pairNode) nested(i int) (*pairNode, []byte) {
	if n.d.A[i].Mode != filemode.Dir || n.d.B[i].Mode != filemode.Dir {
		return nil, nil
	}
	var sub *pairNode
	var raw []byte
	if i < len(n.sub) {
		sub = n.sub[i]
	}
	if sub == nil && i < len(n.subRaw) {
		raw = n.subRaw[i]
	}
	return sub, raw
}

// pairSize is the length of n's encoding (encodePair).
func pairSize(n *pairNode) int {
	size := uvarintLen(uint64(len(n.d.Names)))
	for i, name := range n.d.Names {
		ea, eb := n.d.A[i], n.d.B[i]
		size += uvarintLen(uint64(len(name))) + len(name) + uvarintLen(uint64(ea.Mode)) + uvarintLen(uint64(eb.Mode))
		sub, raw := n.nested(i)
		l := len(raw)
		if sub != nil {
			l = pairSize(sub)
		}
		size += uvarintLen(uint64(l)) + l
		if l == 0 {
			size += hashesSize(ea, eb)
		}
	}
	return size
}

// hashesSize is how many bytes the hashes of a name's entries take in a
// description without a nested one: 20 for each entry present.
func hashesSize(ea, eb gitobj.RawEntry) int {
	n := 0
	for _, e := range [2]gitobj.RawEntry{ea, eb} {
		if e.Mode != 0 {
			n += 20
		}
	}
	return n
}

func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// encodePair is a description's encoding: the number of names (uvarint),
// then per name its length (uvarint) and the name, the modes of its entry
// in either tree (uvarint each; 0: absent), the length (uvarint; 0: none)
// and encoding of its folder pair's description, and, when there is none,
// the hash (20 bytes) of each entry present. A name with a nested
// description is a folder in both trees with two different trees, which
// the nested description describes: their hashes are not kept (the walk
// reads no tree there; when it does not decode the walk starts the commit
// over without the description, see changedAt).
func encodePair(d *pairNode) []byte { return appendPair(make([]byte, 0, pairSize(d)), d) }

// appendPair appends d's encoding (encodePair) to out.
func appendPair(out []byte, d *pairNode) []byte {
	out = binary.AppendUvarint(out, uint64(len(d.d.Names)))
	for i, name := range d.d.Names {
		ea, eb := d.d.A[i], d.d.B[i]
		out = binary.AppendUvarint(out, uint64(len(name)))
		out = append(out, name...)
		out = binary.AppendUvarint(out, uint64(ea.Mode))
		out = binary.AppendUvarint(out, uint64(eb.Mode))
		switch sub, raw := d.nested(i); {
		case sub != nil:
			out = binary.AppendUvarint(out, uint64(pairSize(sub)))
			out = appendPair(out, sub)
		case len(raw) > 0:
			out = binary.AppendUvarint(out, uint64(len(raw)))
			out = append(out, raw...)
		default:
			out = append(out, 0)
			for _, e := range [2]gitobj.RawEntry{ea, eb} {
				if e.Mode != 0 {
					out = append(out, e.Hash[:]...)
				}
			}
		}
	}
	return out
}

// pairReader reads one level of a description, a name at a time.
type pairReader struct {
	v    []byte
	left uint64 // names still to read
	err  error
}

var errBadPair = errors.New("not a description of two trees")

// maxPairNames bounds the names of a description that decodes.
const maxPairNames = 1 << 20

// newPairReader starts reading description v.
func newPairReader(v []byte) pairReader {
	n, k := binary.Uvarint(v)
	if k <= 0 || n > maxPairNames || n > uint64(len(v)) {
		return pairReader{err: errBadPair}
	}
	return pairReader{v: v[k:], left: n}
}

// next returns the next name, its entries and its nested description
// (nil when none; not checked); ok is false at the end or on an error
// (r.err). A name is not empty and holds no NUL and no '/'; a mode fits in
// 32 bits. A name with a nested description is a folder in both trees,
// its entries' hashes zero (not kept).
func (r *pairReader) next() (name []byte, ea, eb gitobj.RawEntry, sub []byte, ok bool) {
	if r.err != nil || r.left == 0 {
		return nil, ea, eb, nil, false
	}
	fail := func() ([]byte, gitobj.RawEntry, gitobj.RawEntry, []byte, bool) {
		r.err = errBadPair
		return nil, gitobj.RawEntry{}, gitobj.RawEntry{}, nil, false
	}
	l, k := binary.Uvarint(r.v)
	if k <= 0 || l == 0 || l > uint64(len(r.v)-k) {
		return fail()
	}
	name, r.v = r.v[k:k+int(l)], r.v[k+int(l):]
	for _, c := range name {
		if c == 0 || c == '/' {
			return fail()
		}
	}
	for _, e := range [2]*gitobj.RawEntry{&ea, &eb} {
		m, k := binary.Uvarint(r.v)
		if k <= 0 || m > math.MaxUint32 {
			return fail()
		}
		e.Mode = filemode.FileMode(m)
		r.v = r.v[k:]
	}
	l, k = binary.Uvarint(r.v)
	if k <= 0 || l > uint64(len(r.v)-k) {
		return fail()
	}
	if l > 0 {
		if ea.Mode != filemode.Dir || eb.Mode != filemode.Dir {
			return fail() // only a pair of folders is described
		}
		sub, r.v = r.v[k:k+int(l):k+int(l)], r.v[k+int(l):]
		r.left--
		return name, ea, eb, sub, true
	}
	r.v = r.v[k:]
	for _, e := range [2]*gitobj.RawEntry{&ea, &eb} {
		if e.Mode == 0 {
			continue
		}
		if len(r.v) < 20 {
			return fail()
		}
		copy(e.Hash[:], r.v[:20])
		r.v = r.v[20:]
	}
	r.left--
	return name, ea, eb, nil, true
}

// done reports whether the whole level was read without error.
func (r *pairReader) done() bool { return r.err == nil && r.left == 0 && len(r.v) == 0 }

// decodeLevel decodes one level of description v, its nested descriptions
// kept as read.
func decodeLevel(v []byte) (*pairNode, error) {
	r := newPairReader(v)
	n := &pairNode{d: &gitobj.PairDiff{}}
	for {
		name, ea, eb, sub, ok := r.next()
		if !ok {
			break
		}
		n.d.Names = append(n.d.Names, string(name))
		n.d.A = append(n.d.A, ea)
		n.d.B = append(n.d.B, eb)
		n.sub = append(n.sub, nil)
		n.subRaw = append(n.subRaw, sub)
	}
	if !r.done() {
		return nil, fmt.Errorf("%d bytes: %w", len(v), errBadPair)
	}
	return n, nil
}

// decodePair decodes description v whole, its nested descriptions too
// (tests and the fuzz target; walks decode one level at a time, and only
// the names they want).
func decodePair(v []byte) (*pairNode, error) { return decodeDeep(v, 0) }

func decodeDeep(v []byte, depth int) (*pairNode, error) {
	if depth > maxPairDepth {
		return nil, fmt.Errorf("nested more than %d deep: %w", maxPairDepth, errBadPair)
	}
	n, err := decodeLevel(v)
	if err != nil {
		return nil, err
	}
	for i, raw := range n.subRaw {
		if raw != nil {
			sub, err := decodeDeep(raw, depth+1)
			if err != nil {
				return nil, err
			}
			n.setSub(i, sub)
			n.subRaw[i] = nil
		}
	}
	return n, nil
}
