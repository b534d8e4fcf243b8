package gitcache

// The walk table, git-walks-<repo>: the answers of the history walks
// (CommitsTouching, LastChange), keyed by the SHA-256 of the question
// (WalkKey): which walk, HEAD's commit, the base commit and whether it
// could be read, the limit, the repository's shallow boundary, and the
// paths in the order given. Its value (EncodeWalk) lists, for each path
// with commits, the path's index and its commits' hashes; a value that
// does not decode (DecodeWalk) is a miss.

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/orchestrate-dev/orchestrate/internal/cachetable"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

// walksTable prefixes the walk table's name (the repository's digest
// follows).
const walksTable = "git-walks-"

// maxNewWalks bounds the answers one run adds to the walk table.
const maxNewWalks = 1 << 12

// maxWalkTable bounds the walk table's file (every run that walks reads it
// whole): one that would grow past it starts over with this run's answers.
const maxWalkTable = 4 << 20

// WalkKeySize is the size of the walk table's keys (a SHA-256).
const WalkKeySize = sha256.Size

// Kinds of walk, in the key.
const (
	WalkTouching = 't'
	WalkLast     = 'l'
)

// Walks is a Repo's view of the walk table, opened on first use.
type Walks = cachetable.Table[[WalkKeySize]byte, []byte]

// NewWalks returns the walk table of the repository whose git folder is
// gitDir in disk; it is read on first use.
func NewWalks(disk *diskcache.Cache, gitDir string) *Walks {
	return cachetable.New(disk, gitDir, cachetable.Spec[[WalkKeySize]byte, []byte]{
		Prefix: walksTable, KeySize: WalkKeySize, Key: func(k *[WalkKeySize]byte) []byte { return k[:] },
		Encode: func(dst, v []byte) []byte { return append(dst, v...) },
		Decode: func(v []byte) ([]byte, bool) { return v, true },
		MaxNew: maxNewWalks, Size: func(v []byte) int { return len(v) },
		Bound: maxWalkTable, Grow: func(n, size int) int64 { return int64(n*(WalkKeySize+4) + size) },
	})
}

// WalkQuestion is what a walk's answer depends on besides the
// repository's content.
type WalkQuestion struct {
	Kind    byte
	Head    plumbing.Hash
	Base    plumbing.Hash // zero: none
	BaseOK  bool          // Base could be read
	Limit   int
	Shallow []plumbing.Hash // the shallow boundary, sorted
	Paths   []string
}

// WalkKey is the key of question q.
func WalkKey(q WalkQuestion) [WalkKeySize]byte {
	h := sha256.New()
	var b []byte
	b = append(b, "walk\x00"...)
	b = append(b, q.Kind)
	b = append(b, q.Head[:]...)
	b = append(b, q.Base[:]...)
	if q.BaseOK {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendVarint(b, int64(q.Limit))
	b = binary.AppendUvarint(b, uint64(len(q.Shallow)))
	for _, s := range q.Shallow {
		b = append(b, s[:]...)
	}
	b = binary.AppendUvarint(b, uint64(len(q.Paths)))
	h.Write(b)
	for _, p := range q.Paths {
		b = binary.AppendUvarint(b[:0], uint64(len(p)))
		h.Write(b)
		h.Write([]byte(p))
	}
	var k [WalkKeySize]byte
	h.Sum(k[:0])
	return k
}

// EncodeWalk is an answer's value: for each of paths (in order, the first
// of duplicates only) with commits in out, its index, the number of its
// commits and their hashes (uvarints, then 20 bytes each).
func EncodeWalk(paths []string, out map[string][]plumbing.Hash) []byte {
	var v []byte
	seen := make(map[string]bool, len(out))
	for i, p := range paths {
		hs := out[p]
		if len(hs) == 0 || seen[p] {
			continue
		}
		seen[p] = true
		v = binary.AppendUvarint(v, uint64(i))
		v = binary.AppendUvarint(v, uint64(len(hs)))
		for _, h := range hs {
			v = append(v, h[:]...)
		}
	}
	return v
}

// DecodeWalk decodes an answer's value for paths; ok is false unless it is
// well formed: indexes increasing and in range, each of a path not listed
// before, at least one commit each, no zero hash, nothing left over.
func DecodeWalk(v []byte, paths []string) (map[string][]plumbing.Hash, bool) {
	out := map[string][]plumbing.Hash{}
	next := uint64(0) // the smallest index allowed
	for len(v) > 0 {
		i, n := binary.Uvarint(v)
		if n <= 0 || i < next || i >= uint64(len(paths)) {
			return nil, false
		}
		v = v[n:]
		next = i + 1
		count, n := binary.Uvarint(v)
		if n <= 0 || count == 0 || count > uint64(len(v)-n)/20 {
			return nil, false
		}
		v = v[n:]
		p := paths[i]
		if _, dup := out[p]; dup {
			return nil, false
		}
		hs := make([]plumbing.Hash, count)
		for j := range hs {
			copy(hs[j][:], v[:20])
			if hs[j].IsZero() {
				return nil, false
			}
			v = v[20:]
		}
		out[p] = hs
	}
	return out, true
}
