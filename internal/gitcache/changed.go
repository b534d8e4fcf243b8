package gitcache

// The changed-paths table, git-changed-<repo>: internal/gitrepo's
// ChangedPaths' answers (the files a commit changed against its first
// parent, for validate's "whose change" rule), kept across runs, so that a
// status of 200 workflows asking about the same 300 commits reads no tree
// for them when warm (each answer is a full difference of a commit with its
// parent: the trees of every folder it changed). Keyed by the commit's
// hash; its value (encodeChanged) is a format version, the bound asked
// (max), whether the answer was cut (more) and the paths in order; a value
// that does not decode (decodeChanged) is a miss.
//
// Why it is sound: the answer is a function of the commit's tree and of
// its first parent's tree, which git names by the commit's hash (the
// commit names its tree and parent, the parent its tree), of max (in the
// value: another bound is a miss) and of gitchanged.MaxTrees (the format
// version). Only answers computed against a parent that was read are
// recorded (ChangedRecord), and the table is only asked (ChangedFirstHit,
// both from gitrepo's ownership.go) when the parent can be read now (not a
// root, not a shallow boundary, not missing): a commit that later becomes
// a shallow boundary is answered as without the table. As for the other
// git tables, every commit and tree read while the cache is on is checked
// against its hash (a run that met a lie saves nothing, gitrepo's
// verify.go), the table is bound to the repository (cachetable).

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
// internal/gitrepo's maxChangedTrees or the way an answer is computed.
const changedVersion = 1

// maxNewChanged bounds the answers one run adds to the table.
const maxNewChanged = 1 << 12

// maxChangedTable bounds the table's file: one that would grow past it
// starts over with this run's answers.
const maxChangedTable = 4 << 20

// maxChangedPathLen bounds a path a value may hold (longer: the value does
// not decode).
const maxChangedPathLen = 4096

// ChangedAnswer is one ChangedPaths answer: the paths, at most Max, and
// whether there were more.
type ChangedAnswer struct {
	Max   int
	More  bool
	Paths []string
}

// Changed is a Repo's view of the table, opened on first use.
type Changed = cachetable.Table[plumbing.Hash, ChangedAnswer]

// NewChanged returns the changed-paths table of the repository whose git
// folder is gitDir in disk; it is read on first use.
func NewChanged(disk *diskcache.Cache, gitDir string) *Changed {
	return cachetable.New(disk, gitDir, cachetable.Spec[plumbing.Hash, ChangedAnswer]{
		Prefix: changedTable, KeySize: len(plumbing.ZeroHash), Key: hashKey,
		Encode: encodeChanged,
		Decode: decodeChanged,
		MaxNew: maxNewChanged, Size: changedSize,
		Bound: maxChangedTable, Grow: func(n, size int) int64 { return int64(n*(len(plumbing.ZeroHash)+4) + size) },
	})
}

// changedSize is what a's value holds, about.
func changedSize(a ChangedAnswer) int {
	n := 8
	for _, p := range a.Paths {
		n += len(p) + 2
	}
	return n
}

// encodeChanged appends a's value to dst: the version, max, more (0 or 1),
// the number of paths and each path's length and bytes (uvarints).
func encodeChanged(dst []byte, a ChangedAnswer) []byte {
	dst = append(dst, changedVersion)
	dst = binary.AppendUvarint(dst, uint64(a.Max))
	if a.More {
		dst = append(dst, 1)
	} else {
		dst = append(dst, 0)
	}
	dst = binary.AppendUvarint(dst, uint64(len(a.Paths)))
	for _, p := range a.Paths {
		dst = binary.AppendUvarint(dst, uint64(len(p)))
		dst = append(dst, p...)
	}
	return dst
}

// decodeChanged decodes a value read from the table (untrusted): ok is
// false unless it is well formed — this version, a positive max, more 0 or
// 1, at most max paths, each not empty and at most maxChangedPathLen
// bytes, nothing left over.
func decodeChanged(v []byte) (ChangedAnswer, bool) {
	var a ChangedAnswer
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
	a.Max, a.More = int(m), v[0] == 1
	v = v[1:]
	count, n := binary.Uvarint(v)
	if n <= 0 || count > m || count > uint64(len(v)) {
		return a, false
	}
	v = v[n:]
	if count > 0 {
		a.Paths = make([]string, 0, count)
	}
	for range count {
		l, n := binary.Uvarint(v)
		if n <= 0 || l == 0 || l > maxChangedPathLen || l > uint64(len(v)-n) {
			return ChangedAnswer{}, false
		}
		a.Paths = append(a.Paths, string(v[n:n+int(l)]))
		v = v[n+int(l):]
	}
	if len(v) != 0 {
		return ChangedAnswer{}, false
	}
	return a, true
}

// ChangedHit returns t's answer for commit h asked with bound max; ok is
// false on a miss (no table, none, another bound, or a value that does not
// decode).
func ChangedHit(t *Changed, h plumbing.Hash, max int) (ChangedAnswer, bool) {
	return ChangedFirstHit(t, h, max, max)
}

// ChangedFirstHit is ChangedHit for an answer asked for its first paths
// (gitrepo's ChangedPathsFirst): t's answer for commit h when it was asked
// with bound max (a full answer) or with bound first and cut (more set:
// its first paths); ok is false on a miss.
func ChangedFirstHit(t *Changed, h plumbing.Hash, max, first int) (ChangedAnswer, bool) {
	if !t.Open() {
		return ChangedAnswer{}, false
	}
	a, fresh, ok := t.Get(h)
	if ok && a.Max != max && (first == max || a.Max != first || !a.More || len(a.Paths) != first) {
		if !fresh {
			t.Unhit() // asked with another bound: a miss
		}
		return ChangedAnswer{}, false
	}
	return a, ok
}

// ChangedRecord keeps in t the answer paths, more of commit h asked with
// bound max for its first paths: under bound max when full (the answer
// is ChangedPaths(h, max)'s), else under first, cut. With upgrade, a full
// answer replaces a cut one this run added.
func ChangedRecord(t *Changed, h plumbing.Hash, paths []string, more bool, max, first int, full, upgrade bool) {
	if !t.Open() {
		return
	}
	a := ChangedAnswer{Max: first, More: more, Paths: paths}
	if full {
		a.Max = max
	}
	if !t.Add(h, a) && upgrade && full {
		if kept, fresh, _ := t.Get(h); fresh && kept.More && kept.Max < max && len(kept.Paths) == kept.Max {
			t.Put(h, a) // the run's cut answer: the full one says more
		}
	}
}
