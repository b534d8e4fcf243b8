package gitrepo

// The changed-paths table: ChangedPaths' answers (the files a commit
// changed against its first parent, for validate's "whose change" rule),
// kept across runs in the user's cache folder, so that a status of 200
// workflows asking about the same 300 commits reads no tree for them when
// warm (each answer is a full difference of a commit with its parent: the
// trees of every folder it changed).
//
// One table, git-changed-<repo> (<repo> as for the history table, see
// histcache.go), keyed by the commit's hash. Its value (encodeChanged) is
// a format version, the bound asked (max), whether the answer was cut
// (more) and the paths in order.
//
// Why it is sound: the answer is a function of the commit's tree and of
// its first parent's tree, which git names by the commit's hash (the
// commit names its tree and parent, the parent its tree), of max (in the
// value: another bound is a miss) and of maxChangedTrees (the format
// version). Only answers computed against a parent that was read are
// recorded, and the table is only asked when the parent can be read now
// (not a root, not a shallow boundary, not missing): a commit that later
// becomes a shallow boundary is answered as without the table. As for the
// other git tables, every commit and tree read while the cache is on is
// checked against its hash (a run that met a lie saves nothing, see
// verify.go), the table is bound to the repository (cachetable), and a
// value that does not decode is a miss.

import (
	"encoding/binary"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/orchestrate-dev/orchestrate/internal/cachetable"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

// changedTable prefixes the changed-paths table's name (the repository's
// digest follows).
const changedTable = "git-changed-"

// changedVersion is the value format's version; it changes with
// maxChangedTrees or the way an answer is computed.
const changedVersion = 1

// maxNewChanged bounds the answers one run adds to the table.
const maxNewChanged = 1 << 12

// maxChangedTable bounds the table's file: one that would grow past it
// starts over with this run's answers.
const maxChangedTable = 4 << 20

// maxChangedPathLen bounds a path a value may hold (longer: the value does
// not decode).
const maxChangedPathLen = 4096

// changedAnswer is one ChangedPaths answer.
type changedAnswer struct {
	max   int
	more  bool
	paths []string
}

// changedMemo is a Repo's view of the table, opened on first use.
type changedMemo = cachetable.Table[plumbing.Hash, changedAnswer]

func newChangedMemo(disk *diskcache.Cache, gitDir string) *changedMemo {
	return cachetable.New(disk, gitDir, cachetable.Spec[plumbing.Hash, changedAnswer]{
		Prefix: changedTable, KeySize: len(plumbing.ZeroHash), Key: hashKey,
		Encode: encodeChanged,
		Decode: decodeChanged,
		MaxNew: maxNewChanged, Size: changedSize,
		Bound: maxChangedTable, Grow: func(n, size int) int64 { return int64(n*(len(plumbing.ZeroHash)+4) + size) },
	})
}

// changedSize is what a's value holds, about.
func changedSize(a changedAnswer) int {
	n := 8
	for _, p := range a.paths {
		n += len(p) + 2
	}
	return n
}

// encodeChanged appends a's value to dst: the version, max, more (0 or 1),
// the number of paths and each path's length and bytes (uvarints).
func encodeChanged(dst []byte, a changedAnswer) []byte {
	dst = append(dst, changedVersion)
	dst = binary.AppendUvarint(dst, uint64(a.max))
	if a.more {
		dst = append(dst, 1)
	} else {
		dst = append(dst, 0)
	}
	dst = binary.AppendUvarint(dst, uint64(len(a.paths)))
	for _, p := range a.paths {
		dst = binary.AppendUvarint(dst, uint64(len(p)))
		dst = append(dst, p...)
	}
	return dst
}

// decodeChanged decodes a value read from the table (untrusted): ok is
// false unless it is well formed — this version, a positive max, more 0 or
// 1, at most max paths, each not empty and at most maxChangedPathLen
// bytes, nothing left over.
func decodeChanged(v []byte) (changedAnswer, bool) {
	var a changedAnswer
	if len(v) < 1 || v[0] != changedVersion {
		return a, false
	}
	v = v[1:]
	m, n := binary.Uvarint(v)
	if n <= 0 || m == 0 || m > 1<<20 {
		return a, false
	}
	v = v[n:]
	if len(v) < 1 || v[0] > 1 {
		return a, false
	}
	a.max, a.more = int(m), v[0] == 1
	v = v[1:]
	count, n := binary.Uvarint(v)
	if n <= 0 || count > m || count > uint64(len(v)) {
		return a, false
	}
	v = v[n:]
	if count > 0 {
		a.paths = make([]string, 0, count)
	}
	for range count {
		l, n := binary.Uvarint(v)
		if n <= 0 || l == 0 || l > maxChangedPathLen || l > uint64(len(v)-n) {
			return changedAnswer{}, false
		}
		a.paths = append(a.paths, string(v[n:n+int(l)]))
		v = v[n+int(l):]
	}
	if len(v) != 0 {
		return changedAnswer{}, false
	}
	return a, true
}

// changedHit returns the table's answer for commit h asked with bound max;
// ok is false on a miss (none, another bound, or a value that does not
// decode).
func (r *Repo) changedHit(h plumbing.Hash, max int) (changedAnswer, bool) {
	if !r.cmemo.Open() {
		return changedAnswer{}, false
	}
	a, fresh, ok := r.cmemo.Get(h)
	if ok && a.max != max {
		if !fresh {
			r.cmemo.Unhit() // asked with another bound: a miss
		}
		return changedAnswer{}, false
	}
	return a, ok
}
