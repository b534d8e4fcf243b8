package gitrepo

// The path table: the entry each look-up by path (pathTree.entry: Compare,
// ReadAt, entriesAt and entriesOf, the dating of stories) found in a tree,
// kept across runs in the user's cache folder so that a later run looking
// up the same paths in the same trees reads no tree at all (not even from
// the object table: a workflow's 20 paths under a base tree of 500
// folders read about 40 KiB of trees).
//
// One table, git-paths-<repo> (<repo> as for the history table, see
// histcache.go), keyed by the SHA-256 of the root tree's hash and the
// path (32 bytes). Its value is the entry at that path, its mode (4 bytes,
// little-endian) then its hash (20 bytes), or nothing when there is none.
//
// Why it is sound: what a path names in a tree is a function of the tree's
// content and its subtrees', which git names by the root's hash. As for
// the history table, every tree read is checked against its hash (a run
// that met a lie saves nothing, see verify.go), the table is per
// repository, and nothing read from a
// repository's own files (its index) is recorded; a value that does not
// decode (of another length) is a miss, and the look-up reads the trees as
// without the table. Only look-ups made without error are
// recorded, at most maxNewPaths per run.

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

// pathsTable prefixes the path table's name (the repository's digest
// follows).
const pathsTable = "git-paths-"

// maxNewPaths bounds the look-ups one run adds to the path table.
const maxNewPaths = 1 << 16

// pathEntrySize is the size of a look-up in the table file, at most: key,
// offset and value.
const pathEntrySize = pathKeySize + 4 + entryValueSize

// maxPathTable bounds the path table's file (every run that looks a path up
// reads it whole): one that would grow past it starts over with this run's
// look-ups. 8 MiB is about 140,000 look-ups: the 4,000 of 200 workflows
// for 30 HEADs.
const maxPathTable = 8 << 20

// pathKeySize is the size of the path table's keys (a SHA-256).
const pathKeySize = sha256.Size

// pathTable is a Repo's view of the path table, opened on first use. It is
// safe for concurrent use.
type pathTable struct {
	disk *diskcache.Cache
	dir  string // the git folder, named by repoDigest

	once    sync.Once
	mu      sync.Mutex
	table   *diskcache.Table // nil when the cache is off or the folder unnamed
	name    string
	pending map[[pathKeySize]byte]memoEntry
	// look-ups the table answered, and those it did not (absent or not
	// decoding)
	hits, misses int
}

func newPathTable(disk *diskcache.Cache, gitDir string) *pathTable {
	return &pathTable{disk: disk, dir: gitDir}
}

func (m *pathTable) open() {
	m.once.Do(func() {
		if m.name, m.table = openRepoTable(m.disk, m.dir, pathsTable, pathKeySize); m.table == nil {
			return
		}
		m.pending = map[[pathKeySize]byte]memoEntry{}
	})
}

// pathKey is the key of path p in tree root.
func pathKey(root plumbing.Hash, p string) [pathKeySize]byte {
	var buf [256]byte
	return sha256.Sum256(append(append(buf[:0], root[:]...), p...))
}

// get returns the entry at key's path (ok false in e: none), and whether
// the table (or this run) knows it.
func (m *pathTable) get(key [pathKeySize]byte) (e memoEntry, ok bool) {
	if m == nil {
		return e, false
	}
	m.open()
	if m.table == nil {
		return e, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.pending[key]; ok {
		return e, true
	}
	v, ok := m.table.Get(key[:])
	if ok {
		e, ok = decodeEntryValue(v)
	}
	if ok {
		m.hits++
	} else {
		m.misses++
	}
	return e, ok
}

// memoEntry is a look-up's answer: the entry, when ok.
type memoEntry struct {
	e  rawEntry
	ok bool
}

// add records the entry at key's path for SaveCache.
func (m *pathTable) add(key [pathKeySize]byte, e memoEntry) {
	if m == nil {
		return
	}
	m.open()
	if m.table == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.pending) < maxNewPaths {
		m.pending[key] = e
	}
}

// drop forgets this run's new entries unsaved (see verify.go).
func (m *pathTable) drop() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.pending)
}

// save writes this run's look-ups with the table's; nothing when there is
// nothing new.
func (m *pathTable) save() error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.pending) == 0 {
		return nil
	}
	// Added in key order: the builder's own (stable, indirect) sort took
	// 3 ms of a cold run for 5,000 look-ups, this one takes under 1.
	keys := sortedKeys(m.pending, func(a, b [pathKeySize]byte) int { return bytes.Compare(a[:], b[:]) })
	b := diskcache.NewBuilder(pathKeySize)
	var buf [entryValueSize]byte
	for _, k := range keys {
		b.Add(k[:], encodeEntryValue(buf[:0], m.pending[k]))
	}
	clear(m.pending)
	return writeBounded(m.disk, m.name, m.table, b, int64(len(keys)*pathEntrySize), maxPathTable)
}

// entryValueSize is the size of the value of an entry found.
const entryValueSize = 4 + len(plumbing.ZeroHash)

// encodeEntryValue appends a look-up's value to dst: nothing when there
// is no entry, else its mode (uint32, little-endian) and hash.
func encodeEntryValue(dst []byte, e memoEntry) []byte {
	if !e.ok {
		return dst
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(e.e.mode))
	return append(dst, e.e.hash[:]...)
}

// decodeEntryValue decodes a look-up's value; ok is false unless it is
// empty or entryValueSize bytes.
func decodeEntryValue(v []byte) (e memoEntry, ok bool) {
	switch len(v) {
	case 0:
		return e, true
	case entryValueSize:
		e.ok = true
		e.e.mode = filemode.FileMode(binary.LittleEndian.Uint32(v))
		copy(e.e.hash[:], v[4:])
		return e, true
	}
	return e, false
}
