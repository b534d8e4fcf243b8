package gitcache

import (
	"crypto/sha256"
	"encoding/binary"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/orchestrate-dev/orchestrate/internal/cachetable"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

// The work-tree hash table, git-worktree-<work tree>: the blob hash of a
// work-tree file LastCommitted read, keyed as git's index keys a file (and
// as discover's story cache keys its parses): a file whose stat data is
// unchanged has unchanged content. LastCommitted asks whether each file it
// dates is exactly as committed by hashing it; with the table, a file
// whose stat data (device, inode, mode, size, modification and change
// times in nanoseconds) and path are those of an entry takes the entry's
// hash unread. A warm `status` on 500 OpenSpec changes and 500 Kiro specs
// hashed ~1,500 files per run for their dates.
//
// Why it is sound: the key holds everything git's index compares and the
// change time, which no write can leave as it was (only the clock could,
// and a file changed within WorktreeRacy of the run's clock is never
// stored: a write in the same clock tick as the stat could leave the stat
// data unchanged). The table is bound to the work tree (cachetable.Digest:
// path, device, inode and birth time of its root), so a clone elsewhere
// starts empty; a value of another length is a miss. What a hit gives is
// only compared with HEAD's blob, as the hash it stands for was.

// WorktreeTable prefixes the table's name (the work tree's digest follows).
const WorktreeTable = "git-worktree-"

// worktreeVersion salts the keys: bump it on any change of what a value
// means.
const worktreeVersion = 1

// WorktreeRacy is how close to the run's clock a file's modification or
// change time may be and the file still be stored (source.StatCacheRacy).
const WorktreeRacy = 2 * time.Second

// maxNewHashes bounds the hashes one run adds; maxHashTable the table's
// file (one that would grow past it starts over with this run's).
const (
	maxNewHashes = 1 << 14
	maxHashTable = 2 << 20
)

// HashKey is a file's key in the table (a SHA-256, see WorktreeKey).
type HashKey = [sha256.Size]byte

// WorktreeHashes is a Repo's view of the table, opened on first use.
type WorktreeHashes = cachetable.Table[HashKey, plumbing.Hash]

// NewWorktreeHashes returns the table of the work tree root in disk; nil
// when disk is off.
func NewWorktreeHashes(disk *diskcache.Cache, root string) *WorktreeHashes {
	if !disk.Enabled() {
		return nil
	}
	return cachetable.New(disk, root, cachetable.Spec[HashKey, plumbing.Hash]{
		Prefix: WorktreeTable, KeySize: sha256.Size, Key: func(k *HashKey) []byte { return k[:] },
		Encode: func(dst []byte, h plumbing.Hash) []byte { return append(dst, h[:]...) },
		Decode: func(v []byte) (h plumbing.Hash, ok bool) {
			if len(v) != len(h) {
				return h, false
			}
			copy(h[:], v)
			return h, true
		},
		MaxNew: maxNewHashes,
		Bound:  maxHashTable, Grow: func(n, _ int) int64 { return int64(n * (sha256.Size + 4 + len(plumbing.ZeroHash))) },
	})
}

// WorktreeKey is the key of the regular file at slash path p with stat data
// st: a SHA-256 of the version, the stat data and p.
func WorktreeKey(p string, st FileStat) HashKey {
	var buf [128]byte
	b := binary.AppendUvarint(buf[:0], worktreeVersion)
	b = binary.LittleEndian.AppendUint64(b, st.Dev)
	b = binary.LittleEndian.AppendUint64(b, st.Ino)
	b = binary.LittleEndian.AppendUint32(b, st.Mode)
	b = binary.LittleEndian.AppendUint64(b, uint64(st.Size))
	b = binary.LittleEndian.AppendUint64(b, uint64(st.Mtime.Unix()))
	b = binary.LittleEndian.AppendUint32(b, uint32(st.Mtime.Nanosecond()))
	b = binary.LittleEndian.AppendUint64(b, uint64(st.Ctime.Unix()))
	b = binary.LittleEndian.AppendUint32(b, uint32(st.Ctime.Nanosecond()))
	b = append(b, p...) // last: every field before it has a fixed size
	return sha256.Sum256(b)
}

// FileStat is the stat data a key holds.
type FileStat struct {
	Dev, Ino     uint64
	Mode         uint32
	Size         int64
	Mtime, Ctime time.Time
}

// Storable reports whether a file of stat data st may be stored by a
// run whose clock reads now: not changed within WorktreeRacy of it, nor
// in the future.
func Storable(now time.Time, st FileStat) bool {
	limit := now.Add(-WorktreeRacy)
	return !st.Mtime.After(limit) && !st.Ctime.After(limit)
}
