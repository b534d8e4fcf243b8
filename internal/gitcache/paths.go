package gitcache

// The path table: the entry each look-up by path (internal/gitrepo's
// pathTree.entry: Compare, ReadAt, entriesAt and entriesOf, the dating of
// stories) found in a tree, kept across runs in the user's cache folder so
// that a later run looking up the same paths in the same trees reads no
// tree at all (not even from the object table: a workflow's 20 paths under
// a base tree of 500 folders read about 40 KiB of trees).
//
// One table, git-paths-<repo> (<repo> as for the history table, see
// internal/gitrepo's histcache.go), keyed by the SHA-256 of the root tree's
// hash and the path (32 bytes; PathKey). Its value is the entry at that
// path, its mode (4 bytes, little-endian) then its hash (20 bytes), or
// nothing when there is none.
//
// Why it is sound: what a path names in a tree is a function of the tree's
// content and its subtrees', which git names by the root's hash. As for the
// history table, every tree read is checked against its hash (a run that
// met a lie saves nothing, see internal/gitrepo's verify.go), the table is
// per repository, and nothing read from a repository's own files (its
// index) is recorded; a value that does not decode (of another length) is a
// miss, and the look-up reads the trees as without the table. Only look-ups
// made without error are recorded, at most maxNewPaths per run.

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/orchestrate-dev/orchestrate/internal/cachetable"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// pathsTable prefixes the path table's name (the repository's digest
// follows).
const pathsTable = "git-paths-"

// maxNewPaths bounds the look-ups one run adds to the path table.
const maxNewPaths = 1 << 16

// pathEntrySize is the size of a look-up in the table file, at most: key,
// offset and value.
const pathEntrySize = PathKeySize + 4 + entryValueSize

// maxPathTable bounds the path table's file (every run that looks a path up
// reads it whole): one that would grow past it starts over with this run's
// look-ups. 8 MiB is about 140,000 look-ups: the 4,000 of 200 workflows
// for 30 HEADs.
const maxPathTable = 8 << 20

// PathKeySize is the size of the path table's keys (a SHA-256).
const PathKeySize = sha256.Size

// Paths is a Repo's view of the path table, opened on first use. It is
// safe for concurrent use.
type Paths = cachetable.Table[[PathKeySize]byte, PathEntry]

// NewPaths returns the path table of the repository whose git folder is
// gitDir in disk; it is read on first use.
func NewPaths(disk *diskcache.Cache, gitDir string) *Paths {
	return cachetable.New(disk, gitDir, cachetable.Spec[[PathKeySize]byte, PathEntry]{
		Prefix: pathsTable, KeySize: PathKeySize, Key: func(k *[PathKeySize]byte) []byte { return k[:] },
		Encode: encodeEntryValue, Decode: decodeEntryValue,
		MaxNew: maxNewPaths,
		Bound:  maxPathTable, Grow: func(n, _ int) int64 { return int64(n * pathEntrySize) },
	})
}

// PathKey is the key of path p in tree root.
func PathKey(root plumbing.Hash, p string) [PathKeySize]byte {
	var buf [256]byte
	return sha256.Sum256(append(append(buf[:0], root[:]...), p...))
}

// PathEntry is a look-up's answer: the entry E, when OK.
type PathEntry struct {
	E  gitobj.RawEntry
	OK bool
}

// entryValueSize is the size of the value of an entry found.
const entryValueSize = 4 + len(plumbing.ZeroHash)

// encodeEntryValue appends a look-up's value to dst: nothing when there
// is no entry, else its mode (uint32, little-endian) and hash.
func encodeEntryValue(dst []byte, e PathEntry) []byte {
	if !e.OK {
		return dst
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(e.E.Mode))
	return append(dst, e.E.Hash[:]...)
}

// decodeEntryValue decodes a look-up's value; ok is false unless it is
// empty or entryValueSize bytes.
func decodeEntryValue(v []byte) (e PathEntry, ok bool) {
	switch len(v) {
	case 0:
		return e, true
	case entryValueSize:
		e.OK = true
		e.E.Mode = filemode.FileMode(binary.LittleEndian.Uint32(v))
		copy(e.E.Hash[:], v[4:])
		return e, true
	}
	return e, false
}
