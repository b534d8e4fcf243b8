package gitrepo

// The walk table: the answers of CommitsTouching and LastChange, kept
// across runs in the user's cache folder, so that a later run asking the
// same question about the same history (the 200 workflows of a status,
// none of whose bases or references changed) takes each answer in one
// look-up instead of a walk of its 60 commits, even with the history table
// warm.
//
// One table, git-walks-<repo> (<repo> as for the history table, see
// histcache.go), keyed by the SHA-256 of the question (walkKey): which walk,
// HEAD's commit, the base commit and whether it could be read, the limit,
// the repository's shallow boundary, and the paths in the order given. Its
// value (encodeWalk) lists, for each path with commits, the path's index
// and its commits' hashes; the commits are described again (commitInfo)
// when the answer is used.
//
// Why it is sound: a walk's answer is a function of the commits and trees
// reachable from HEAD, which git names by HEAD's hash, of the base (named
// by its hash; whether it can be read is in the key) and of the shallow
// boundary (in the key). Only walks that ended on their own — at the base,
// once no path was followed, at the bound, or at a root commit — are
// recorded: one stopped by a missing parent or a shallow boundary is not,
// as a later fetch could extend it. As for the history table, the commits
// and trees a walk reads are checked against their hashes (a run that met
// a lie saves nothing, see verify.go), and the table is per repository; a
// value that does not decode is a miss, and the walk runs as without the
// table.

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"slices"

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

// walkKeySize is the size of the walk table's keys (a SHA-256).
const walkKeySize = sha256.Size

// Kinds of walk, in the key.
const (
	walkTouching = 't'
	walkLast     = 'l'
)

// walkMemo is a Repo's view of the walk table, opened on first use.
type walkMemo = cachetable.Table[[walkKeySize]byte, []byte]

func newWalkMemo(disk *diskcache.Cache, gitDir string) *walkMemo {
	return cachetable.New(disk, gitDir, cachetable.Spec[[walkKeySize]byte, []byte]{
		Prefix: walksTable, KeySize: walkKeySize, Key: func(k *[walkKeySize]byte) []byte { return k[:] },
		Encode: func(dst, v []byte) []byte { return append(dst, v...) },
		Decode: func(v []byte) ([]byte, bool) { return v, true },
		MaxNew: maxNewWalks, Size: func(v []byte) int { return len(v) },
		Bound: maxWalkTable, Grow: func(n, size int) int64 { return int64(n*(walkKeySize+4) + size) },
	})
}

// walkQuestion is what a walk's answer depends on besides the repository's
// content.
type walkQuestion struct {
	kind    byte
	head    plumbing.Hash
	base    plumbing.Hash // zero: none
	baseOK  bool          // base could be read
	limit   int
	shallow []plumbing.Hash
	paths   []string
}

// walkKey is the key of question q.
func walkKey(q walkQuestion) [walkKeySize]byte {
	h := sha256.New()
	var b []byte
	b = append(b, "walk\x00"...)
	b = append(b, q.kind)
	b = append(b, q.head[:]...)
	b = append(b, q.base[:]...)
	if q.baseOK {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendVarint(b, int64(q.limit))
	b = binary.AppendUvarint(b, uint64(len(q.shallow)))
	for _, s := range q.shallow {
		b = append(b, s[:]...)
	}
	b = binary.AppendUvarint(b, uint64(len(q.paths)))
	h.Write(b)
	for _, p := range q.paths {
		b = binary.AppendUvarint(b[:0], uint64(len(p)))
		h.Write(b)
		h.Write([]byte(p))
	}
	var k [walkKeySize]byte
	h.Sum(k[:0])
	return k
}

// shallowList is r's shallow boundary, sorted (for walkKey).
func (r *Repo) shallowList() []plumbing.Hash {
	out := make([]plumbing.Hash, 0, len(r.shallow))
	for h := range r.shallow {
		out = append(out, h)
	}
	slices.SortFunc(out, func(a, b plumbing.Hash) int { return bytes.Compare(a[:], b[:]) })
	return out
}

// encodeWalk is an answer's value: for each of paths (in order, the first
// of duplicates only) with commits in out, its index, the number of its
// commits and their hashes (uvarints, then 20 bytes each).
func encodeWalk(paths []string, out map[string][]plumbing.Hash) []byte {
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

// decodeWalk decodes an answer's value for paths; ok is false unless it is
// well formed: indexes increasing and in range, each of a path not listed
// before, at least one commit each, no zero hash, nothing left over.
func decodeWalk(v []byte, paths []string) (map[string][]plumbing.Hash, bool) {
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

// walkAsked returns the key of a walk's question and whether the walk
// table is there to answer it.
func (r *Repo) walkAsked(kind byte, head links, base plumbing.Hash, limit int, paths []string) ([walkKeySize]byte, bool) {
	if !r.wmemo.Open() {
		return [walkKeySize]byte{}, false
	}
	q := walkQuestion{kind: kind, head: head.hash, base: base, limit: limit, shallow: r.shallowList(), paths: paths}
	if !base.IsZero() {
		_, err := r.readLinks(base)
		q.baseOK = err == nil
	}
	return walkKey(q), true
}

// walkAnswer returns the commits the walk table has for key, described.
func (r *Repo) walkAnswer(key [walkKeySize]byte, paths []string) (map[string][]Commit, bool) {
	v, fresh, ok := r.wmemo.Get(key)
	var got map[string][]plumbing.Hash
	if ok {
		if got, ok = decodeWalk(v, paths); !ok && !fresh {
			r.wmemo.Unhit() // a value that does not decode is a miss
		}
	}
	if !ok {
		return nil, false
	}
	out := make(map[string][]Commit, len(got))
	for p, hs := range got {
		cs := make([]Commit, len(hs))
		for i, h := range hs {
			c, err := r.commitInfo(h)
			if err != nil {
				r.wmemo.Unhit()
				return nil, false
			}
			cs[i] = c
		}
		out[p] = cs
	}
	return out, true
}

// recordWalk records a walk's answer.
func (r *Repo) recordWalk(key [walkKeySize]byte, paths []string, out map[string][]Commit) {
	hs := make(map[string][]plumbing.Hash, len(out))
	for p, cs := range out {
		l := make([]plumbing.Hash, 0, len(cs))
		for _, c := range cs {
			h, ok := fullHash(c.Hash)
			if !ok {
				return
			}
			l = append(l, h)
		}
		hs[p] = l
	}
	r.wmemo.Add(key, encodeWalk(paths, hs))
}
