package gitcache

// The history table, git-commits-<repo>: keyed by a commit's hash (20
// bytes). Its value (EncodeCommit) is the commit's tree hash, then, when it
// has one, its first parent's hash and what differs between its tree and
// that parent's tree: the names whose entries differ, each with its entry
// in either tree as a look-up by name gives it, and, for a folder a walk
// descended into, the same description of that folder's pair of trees,
// nested in place of the two folder hashes (see Pair, EncodePair). A
// description lists every differing name of its pair, so a walk for other
// paths can use it. Values are decoded as untrusted input (DecodeCommit,
// PairReader): a value, or a nested description, that does not decode is
// a miss.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/orchestrate-dev/orchestrate/internal/cachetable"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// commitsTable prefixes the table's name (the repository's digest follows).
const commitsTable = "git-commits-"

// maxNewCommits bounds the commits one run adds to the table (and keeps,
// encoded, in memory until it is saved): about 100 to 300 bytes each.
const maxNewCommits = 1 << 17

// maxPairDepth bounds the nesting of a description that decodes.
const maxPairDepth = 256

// Links is what a commit's value says of the commit: its tree, and its
// first parent (zero for a root commit).
type Links struct {
	Tree, Parent plumbing.Hash
}

// CommitValue is a value of the history table: encoded (Enc), or, for
// links a run read with no description derived, the links (encoded when
// the table is saved).
type CommitValue struct {
	Enc       []byte
	Links     Links
	LinksOnly bool
}

// Commits is a Repo's view of the history table.
type Commits = cachetable.Table[plumbing.Hash, CommitValue]

// NewCommits returns the history table of the repository whose git folder
// is gitDir in disk; it is read on first use.
func NewCommits(disk *diskcache.Cache, gitDir string) *Commits {
	return cachetable.New(disk, gitDir, cachetable.Spec[plumbing.Hash, CommitValue]{
		Prefix: commitsTable, KeySize: len(plumbing.ZeroHash), Key: hashKey,
		Encode: func(dst []byte, e CommitValue) []byte {
			if e.LinksOnly {
				return append(dst, EncodeCommit(e.Links, nil)...)
			}
			return append(dst, e.Enc...)
		},
		Decode: func(v []byte) (CommitValue, bool) { return CommitValue{Enc: v}, true },
		MaxNew: maxNewCommits,
	})
}

// EncodeCommit is a commit's value: the tree hash, then, when it has a
// first parent, the parent's hash and d's description (EncodePair; none
// when d is nil).
func EncodeCommit(l Links, d *Pair) []byte {
	size := 40
	if d != nil {
		size += pairSize(d)
	}
	out := make([]byte, 0, size)
	out = append(out, l.Tree[:]...)
	if !l.Parent.IsZero() {
		out = append(out, l.Parent[:]...)
		if d != nil {
			out = AppendPair(out, d)
		}
	}
	return out
}

// DecodeCommit decodes a commit's value; ok is false unless it is 20 bytes
// (a root commit), or 40 or more (a tree, a parent and a description,
// returned as diff and decoded when used), neither hash zero.
func DecodeCommit(v []byte) (l Links, diff []byte, ok bool) {
	switch {
	case len(v) == 20:
	case len(v) >= 40:
		copy(l.Parent[:], v[20:40])
		if l.Parent.IsZero() {
			return Links{}, nil, false
		}
		if len(v) > 40 {
			diff = v[40:len(v):len(v)]
		}
	default:
		return Links{}, nil, false
	}
	copy(l.Tree[:], v[:20])
	if l.Tree.IsZero() {
		return Links{}, nil, false
	}
	return l, diff, true
}

// Pair describes a pair of trees: what differs (D), and for some of the
// differing names that are folders in both, their pair's description,
// decoded (Sub) or as read (SubRaw). Either slice may be shorter than
// D.Names (nil: none).
type Pair struct {
	D      *gitobj.PairDiff
	Sub    []*Pair
	SubRaw [][]byte
}

// SetSub sets the description of name i's folder pair.
func (n *Pair) SetSub(i int, sub *Pair) {
	if len(n.Sub) <= i {
		n.Sub = append(n.Sub, make([]*Pair, len(n.D.Names)-len(n.Sub))...)
	}
	n.Sub[i] = sub
}

// nested returns name i's folder pair description, decoded or as read;
// both nil when there is none, or when name i is not a folder in both
// trees (only such a pair is described).
func (n *Pair) nested(i int) (*Pair, []byte) {
	if n.D.A[i].Mode != filemode.Dir || n.D.B[i].Mode != filemode.Dir {
		return nil, nil
	}
	var sub *Pair
	var raw []byte
	if i < len(n.Sub) {
		sub = n.Sub[i]
	}
	if sub == nil && i < len(n.SubRaw) {
		raw = n.SubRaw[i]
	}
	return sub, raw
}

// pairSize is the length of n's encoding (EncodePair).
func pairSize(n *Pair) int {
	size := uvarintLen(uint64(len(n.D.Names)))
	for i, name := range n.D.Names {
		ea, eb := n.D.A[i], n.D.B[i]
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

// EncodePair is a description's encoding: the number of names (uvarint),
// then per name its length (uvarint) and the name, the modes of its entry
// in either tree (uvarint each; 0: absent), the length (uvarint; 0: none)
// and encoding of its folder pair's description, and, when there is none,
// the hash (20 bytes) of each entry present. A name with a nested
// description is a folder in both trees with two different trees, which
// the nested description describes: their hashes are not kept (the walk
// reads no tree there; when it does not decode the walk starts the commit
// over without the description).
func EncodePair(d *Pair) []byte { return AppendPair(make([]byte, 0, pairSize(d)), d) }

// AppendPair appends d's encoding (EncodePair) to out.
func AppendPair(out []byte, d *Pair) []byte {
	out = binary.AppendUvarint(out, uint64(len(d.D.Names)))
	for i, name := range d.D.Names {
		ea, eb := d.D.A[i], d.D.B[i]
		out = binary.AppendUvarint(out, uint64(len(name)))
		out = append(out, name...)
		out = binary.AppendUvarint(out, uint64(ea.Mode))
		out = binary.AppendUvarint(out, uint64(eb.Mode))
		switch sub, raw := d.nested(i); {
		case sub != nil:
			out = binary.AppendUvarint(out, uint64(pairSize(sub)))
			out = AppendPair(out, sub)
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

// PairReader reads one level of a description, a name at a time.
type PairReader struct {
	v    []byte
	left uint64 // names still to read
	err  error
}

var errBadPair = errors.New("not a description of two trees")

// maxPairNames bounds the names of a description that decodes.
const maxPairNames = 1 << 20

// NewPairReader starts reading description v.
func NewPairReader(v []byte) PairReader {
	n, k := binary.Uvarint(v)
	if k <= 0 || n > maxPairNames || n > uint64(len(v)) {
		return PairReader{err: errBadPair}
	}
	return PairReader{v: v[k:], left: n}
}

// Next returns the next name, its entries and its nested description
// (nil when none; not checked); ok is false at the end or on an error
// (see Done). A name is not empty and holds no NUL and no '/'; a mode
// fits in 32 bits. A name with a nested description is a folder in both
// trees, its entries' hashes zero (not kept).
func (r *PairReader) Next() (name []byte, ea, eb gitobj.RawEntry, sub []byte, ok bool) {
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

// Done reports whether the whole level was read without error.
func (r *PairReader) Done() bool { return r.err == nil && r.left == 0 && len(r.v) == 0 }

// DecodeLevel decodes one level of description v, its nested descriptions
// kept as read.
func DecodeLevel(v []byte) (*Pair, error) {
	r := NewPairReader(v)
	n := &Pair{D: &gitobj.PairDiff{}}
	for {
		name, ea, eb, sub, ok := r.Next()
		if !ok {
			break
		}
		n.D.Names = append(n.D.Names, string(name))
		n.D.A = append(n.D.A, ea)
		n.D.B = append(n.D.B, eb)
		n.Sub = append(n.Sub, nil)
		n.SubRaw = append(n.SubRaw, sub)
	}
	if !r.Done() {
		return nil, fmt.Errorf("%d bytes: %w", len(v), errBadPair)
	}
	return n, nil
}

// DecodePair decodes description v whole, its nested descriptions too
// (tests and the fuzz target; walks decode one level at a time, and only
// the names they want).
func DecodePair(v []byte) (*Pair, error) { return decodeDeep(v, 0) }

func decodeDeep(v []byte, depth int) (*Pair, error) {
	if depth > maxPairDepth {
		return nil, fmt.Errorf("nested more than %d deep: %w", maxPairDepth, errBadPair)
	}
	n, err := DecodeLevel(v)
	if err != nil {
		return nil, err
	}
	for i, raw := range n.SubRaw {
		if raw != nil {
			sub, err := decodeDeep(raw, depth+1)
			if err != nil {
				return nil, err
			}
			n.SetSub(i, sub)
			n.SubRaw[i] = nil
		}
	}
	return n, nil
}
