package gitrepo

// The history cache: what the history walks (CommitsTouching, LastChange,
// and so LastCommitted and Removal) derive from git objects, kept across
// runs in the user's cache folder (internal/diskcache; never in a
// repository) so that a later run over the same history reads no commit
// and no tree it has compared before.
//
// Two tables, each keyed by git hashes:
//
//   - git-links-<repo>: commit hash (20 bytes) → its tree hash, then its
//     first parent's hash when it has one (20 or 40 bytes). The shallow
//     boundary is not in it: parentLinks checks r.shallow on every step, as
//     without the cache.
//   - git-pairs-<repo>: tree hash A, tree hash B (40 bytes) → every name
//     whose entry differs between the two trees, with its entry in A and in
//     B as a look-up by name gives it (see pairDiff, encodePair). A walk
//     that finds a pair looks only at the names its paths want, descending
//     into the pairs of their subtrees, without reading either tree. Any
//     trie of paths can use an entry: it lists all the differing names.
//
// Why it is sound: a commit's links and the differences of two trees are
// functions of the objects' content, which git names by its hash. The one
// trust left is in the repository's object store (or commit-graph), whose
// hashes orchestrate does not recompute: a repository that lies about an
// object's content could plant an entry that is false for a genuine object
// of that hash. So the tables are per repository: <repo> is a digest of the
// absolute path of the repository's git folder and of that folder's device
// and inode, and an entry one repository derived is never read for another
// (a clone elsewhere, or a repository created again at the same path,
// starts with an empty cache). Values are decoded as untrusted input
// (decodeLinks, decodePair): one that does not decode is a miss, and the
// walk reads the objects as without the cache. Only what a walk derived
// without error from well-formed trees is recorded; SaveCache writes what
// this run added, one Write per table. The tables are read on the first
// walk only, never by a run that walks no history.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

// Cache table name prefixes (the repository's digest follows).
const (
	linksTable = "git-links-"
	pairsTable = "git-pairs-"
)

// maxNewLinks and maxNewPairs bound what one run adds to the tables (and
// keeps in memory until SaveCache): about 100 and 200 bytes each.
const (
	maxNewLinks = 1 << 17
	maxNewPairs = 1 << 17
)

// histCache is a Repo's view of the history tables: what was read at the
// first walk, and what this run added.
type histCache struct {
	links, pairs       *diskcache.Table
	newLinks, newPairs *diskcache.Builder
	nLinks, nPairs     int
	linksName          string
	pairsName          string
	scratch            []byte // addPair's encoding buffer
	// the look-ups that found an entry that decodes, and the others
	linkHits, linkMisses, pairHits, pairMisses int
}

// hist returns the history tables, read on the first call; nil when the
// cache is off or the repository cannot be named.
func (r *Repo) hist() *histCache {
	if r.histTried {
		return r.histc
	}
	r.histTried = true
	if !r.disk.Enabled() || r.packs == nil || r.packs.fs == nil {
		return nil
	}
	id := repoDigest(r.packs.fs.Root())
	if id == "" {
		return nil
	}
	h := &histCache{linksName: linksTable + id, pairsName: pairsTable + id,
		newLinks: diskcache.NewBuilder(len(plumbing.ZeroHash)), newPairs: diskcache.NewBuilder(2 * len(plumbing.ZeroHash))}
	h.links, _ = r.disk.Open(h.linksName, len(plumbing.ZeroHash)) // a table that cannot be read is empty
	h.pairs, _ = r.disk.Open(h.pairsName, 2*len(plumbing.ZeroHash))
	r.histc = h
	return h
}

// repoDigest names a repository's tables: the first 16 bytes (hex) of the
// SHA-256 of its git folder's absolute path, device and inode; "" when the
// folder cannot be read.
func repoDigest(gitDir string) string {
	abs, err := filepath.Abs(gitDir)
	if err != nil {
		return ""
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return ""
	}
	sum := sha256.Sum256([]byte(abs + "\x00" + fileIdentity(fi)))
	return hex.EncodeToString(sum[:16])
}

// SaveCache writes to the cache (UseCache) what this run's walks derived
// that it did not hold yet: one Write per table, nothing when no walk ran or
// nothing is new. A cache that is off or cannot be written is skipped; the
// error only says why (for a debug log).
func (r *Repo) SaveCache() error {
	h := r.histc
	if h == nil {
		return nil
	}
	var errs []error
	if h.newLinks.Len() > 0 {
		if err := r.disk.Write(h.linksName, h.current(r.disk, h.linksName, h.links), h.newLinks); err != nil {
			errs = append(errs, err)
		}
		h.newLinks = diskcache.NewBuilder(len(plumbing.ZeroHash))
	}
	if h.newPairs.Len() > 0 {
		if err := r.disk.Write(h.pairsName, h.current(r.disk, h.pairsName, h.pairs), h.newPairs); err != nil {
			errs = append(errs, err)
		}
		h.newPairs = diskcache.NewBuilder(2 * len(plumbing.ZeroHash))
	}
	return errors.Join(errs...)
}

// current returns table name as it is now, read again: another run (or
// another Repo of this one) may have written it since t was read, and
// Write keeps only the entries of the table it is given. t when the table
// cannot be read.
func (h *histCache) current(c *diskcache.Cache, name string, t *diskcache.Table) *diskcache.Table {
	now, err := c.Open(name, t.KeySize())
	if err != nil || now.Len() < t.Len() {
		return t
	}
	return now
}

// cachedLinks returns commit h's links from the table; ok is false on a
// miss (absent, or a value that does not decode).
func (h *histCache) cachedLinks(c plumbing.Hash) (links, bool) {
	v, ok := h.links.Get(c[:])
	var l links
	if ok {
		l, ok = decodeLinks(c, v)
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
	if h.nLinks >= maxNewLinks {
		return
	}
	h.nLinks++
	h.newLinks.Add(l.hash[:], encodeLinks(l))
}

// encodeLinks is a links value: the tree hash, then the first parent's
// when there is one.
func encodeLinks(l links) []byte {
	out := make([]byte, 0, 40)
	out = append(out, l.tree[:]...)
	if !l.parent.IsZero() {
		out = append(out, l.parent[:]...)
	}
	return out
}

// decodeLinks decodes a links value for commit c; ok is false unless it is
// 20 bytes (a root commit) or 40 (a tree and a parent), neither hash zero.
func decodeLinks(c plumbing.Hash, v []byte) (l links, ok bool) {
	l.hash = c
	switch len(v) {
	case 20:
	case 40:
		copy(l.parent[:], v[20:])
		if l.parent.IsZero() {
			return links{}, false
		}
	default:
		return links{}, false
	}
	copy(l.tree[:], v[:20])
	if l.tree.IsZero() {
		return links{}, false
	}
	return l, true
}

// addPair records d, the differences of trees a and b, for SaveCache.
func (h *histCache) addPair(a, b plumbing.Hash, d *pairDiff) {
	if d == nil || h.nPairs >= maxNewPairs {
		return
	}
	h.nPairs++
	var k [40]byte
	copy(k[:20], a[:])
	copy(k[20:], b[:])
	h.scratch = appendPair(h.scratch[:0], d)
	h.newPairs.Add(k[:], h.scratch) // copied

}

// maxPairNames bounds the names of a pair value that decodes.
const maxPairNames = 1 << 20

// encodePair is a pair value: the number of names (uvarint), then per name
// its length (uvarint), the name, and its entry in either tree: the mode
// (uvarint) and the hash (20 bytes). An absent entry has mode 0 and the
// zero hash.
func encodePair(d *pairDiff) []byte { return appendPair(nil, d) }

// appendPair appends d's pair value (encodePair) to out.
func appendPair(out []byte, d *pairDiff) []byte {
	out = binary.AppendUvarint(out, uint64(len(d.names)))
	for i, name := range d.names {
		out = binary.AppendUvarint(out, uint64(len(name)))
		out = append(out, name...)
		for _, e := range [2]rawEntry{d.ea[i], d.eb[i]} {
			out = binary.AppendUvarint(out, uint64(e.mode))
			out = append(out, e.hash[:]...)
		}
	}
	return out
}

// pairReader reads a pair value one name at a time.
type pairReader struct {
	v    []byte
	left uint64 // names still to read
	err  error
}

var errBadPair = errors.New("not a pair value")

// newPairReader starts reading value v.
func newPairReader(v []byte) pairReader {
	n, k := binary.Uvarint(v)
	if k <= 0 || n > maxPairNames || n > uint64(len(v)) {
		return pairReader{err: errBadPair}
	}
	return pairReader{v: v[k:], left: n}
}

// next returns the next name and its entries; ok is false at the end or on
// an error (r.err). A name is not empty and holds no NUL and no '/'; a mode
// fits in 32 bits.
func (r *pairReader) next() (name []byte, ea, eb rawEntry, ok bool) {
	if r.err != nil || r.left == 0 {
		return nil, ea, eb, false
	}
	l, k := binary.Uvarint(r.v)
	if k <= 0 || l == 0 || l > uint64(len(r.v)-k) {
		r.err = errBadPair
		return nil, ea, eb, false
	}
	name, r.v = r.v[k:k+int(l)], r.v[k+int(l):]
	for _, c := range name {
		if c == 0 || c == '/' {
			r.err = errBadPair
			return nil, ea, eb, false
		}
	}
	for _, e := range [2]*rawEntry{&ea, &eb} {
		m, k := binary.Uvarint(r.v)
		if k <= 0 || !validPairMode(m) || len(r.v)-k < 20 {
			r.err = errBadPair
			return nil, rawEntry{}, rawEntry{}, false
		}
		e.mode = filemode.FileMode(m)
		copy(e.hash[:], r.v[k:k+20])
		r.v = r.v[k+20:]
	}
	r.left--
	return name, ea, eb, true
}

// done reports whether the whole value was read without error.
func (r *pairReader) done() bool { return r.err == nil && r.left == 0 && len(r.v) == 0 }

// validPairMode reports whether m is a mode an entry of a pair value may
// have: any 32-bit value (a tree entry's mode as parsed, 0 when absent).
func validPairMode(m uint64) bool { return m <= math.MaxUint32 }

// decodePair decodes a whole pair value (tests and the fuzz target; the
// walk reads values with pairReader, keeping only the names it wants).
func decodePair(v []byte) (*pairDiff, error) {
	r := newPairReader(v)
	d := &pairDiff{}
	for {
		name, ea, eb, ok := r.next()
		if !ok {
			break
		}
		d.names = append(d.names, string(name))
		d.ea = append(d.ea, ea)
		d.eb = append(d.eb, eb)
	}
	if !r.done() {
		return nil, fmt.Errorf("pair value of %d bytes: %w", len(v), errBadPair)
	}
	return d, nil
}

// diffCached is diff for trees a and b (neither zero, not equal) when the
// history cache describes the pair: done is false on a miss (absent, or a
// value that does not decode), and the caller compares the trees. Only
// the names n wants are looked at, in trie order as diff gives them.
func (c *treeCache) diffCached(a, b plumbing.Hash, n *trieNode, out *[]string) (done bool, err error) {
	var k [40]byte
	copy(k[:20], a[:])
	copy(k[20:], b[:])
	v, ok := c.hist.pairs.Get(k[:])
	if !ok {
		c.hist.pairMisses++
		return false, nil
	}
	type hit struct {
		child  *trieNode
		ea, eb rawEntry
	}
	var buf [4]hit
	hits := buf[:0]
	rd := newPairReader(v)
	for {
		name, ea, eb, ok := rd.next()
		if !ok {
			break
		}
		if child, want := n.children[string(name)]; want {
			hits = append(hits, hit{child, ea, eb})
		}
	}
	if !rd.done() {
		c.hist.pairMisses++
		return false, nil // not a value this reader wrote: a miss
	}
	c.hist.pairHits++
	if len(hits) > 1 {
		sort.Slice(hits, func(x, y int) bool { return hits[x].child.pos < hits[y].child.pos })
	}
	for _, h := range hits {
		if h.child.leaf && (h.ea.blob() != h.eb.blob() || h.ea.dir() != h.eb.dir()) {
			*out = append(*out, h.child.path)
		}
		if len(h.child.names) > 0 {
			if err := c.diff(h.ea.dir(), h.eb.dir(), h.child, out); err != nil {
				return true, err
			}
		}
	}
	return true, nil
}

// record adds the differences of trees a and b, scanned as sa and sb, to
// the history cache when both are well formed and at hand (read in full by
// this walk, or indexed by the Repo): a merge of their entries that skips
// runs of equal ones, as cheap as the walk's own comparison.
func (c *treeCache) record(a, b plumbing.Hash, sa, sb *scanned) {
	ia, ib := sa.index(), sb.index()
	if ia == nil || ib == nil {
		return
	}
	c.hist.addPair(a, b, diffForCache(ia, ib))
}

// index returns s's tree as an index when s holds it whole: the Repo's
// index, or the raw content and entry offsets a scan or derive recorded
// (those are in git's strict order, each entry whole, to the end).
func (s *scanned) index() *treeIndex {
	switch {
	case s.idx != nil:
		return s.idx
	case s.offs != nil:
		return &treeIndex{raw: s.raw, offs: s.offs, sorted: true}
	}
	return nil
}
