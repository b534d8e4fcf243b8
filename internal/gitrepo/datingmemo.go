package gitrepo

import (
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
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
// and a file changed within datingMemoRacy of the run's clock is never
// stored: a write in the same clock tick as the stat could leave the stat
// data unchanged). The table is bound to the work tree (cachetable.Digest:
// path, device, inode and birth time of its root), so a clone elsewhere
// starts empty; a value of another length is a miss. What a hit gives is
// only compared with HEAD's blob, as the hash it stands for was.

// worktreeTable prefixes the table's name (the work tree's digest follows).
const worktreeTable = "git-worktree-"

// datingMemoVersion salts the keys: bump it on any change of what a value
// means.
const datingMemoVersion = 1

// datingMemoRacy is how close to the run's clock a file's modification or
// change time may be and the file still be stored (source.StatCacheRacy).
const datingMemoRacy = 2 * time.Second

// datingNow is the run's clock for datingStorable (a test moves it to store
// files it has just written).
var datingNow = time.Now

// maxNewHashes bounds the hashes one run adds; maxHashTable the table's
// file (one that would grow past it starts over with this run's).
const (
	maxNewHashes = 1 << 14
	maxHashTable = 2 << 20
)

// hashKey is a file's key in the table (a SHA-256, see datingKey).
type hashKey = [sha256.Size]byte

// worktreeHashes is a Repo's view of the table, opened on first use.
type worktreeHashes = cachetable.Table[hashKey, plumbing.Hash]

// newWorktreeHashes returns the table of the work tree root in disk; nil
// when disk is off.
func newWorktreeHashes(disk *diskcache.Cache, root string) *worktreeHashes {
	if !disk.Enabled() {
		return nil
	}
	return cachetable.New(disk, root, cachetable.Spec[hashKey, plumbing.Hash]{
		Prefix: worktreeTable, KeySize: sha256.Size, Key: func(k *hashKey) []byte { return k[:] },
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

// datingKey is the key of the regular file at slash path p with stat data
// st: a SHA-256 of the version, the stat data and p.
func datingKey(p string, st fileKeyStat) hashKey {
	var buf [128]byte
	b := binary.AppendUvarint(buf[:0], datingMemoVersion)
	b = binary.LittleEndian.AppendUint64(b, st.dev)
	b = binary.LittleEndian.AppendUint64(b, st.ino)
	b = binary.LittleEndian.AppendUint32(b, st.mode)
	b = binary.LittleEndian.AppendUint64(b, uint64(st.size))
	b = binary.LittleEndian.AppendUint64(b, uint64(st.mtime.Unix()))
	b = binary.LittleEndian.AppendUint32(b, uint32(st.mtime.Nanosecond()))
	b = binary.LittleEndian.AppendUint64(b, uint64(st.ctime.Unix()))
	b = binary.LittleEndian.AppendUint32(b, uint32(st.ctime.Nanosecond()))
	b = append(b, p...) // last: every field before it has a fixed size
	return sha256.Sum256(b)
}

// fileKeyStat is the stat data a key holds.
type fileKeyStat struct {
	dev, ino     uint64
	mode         uint32
	size         int64
	mtime, ctime time.Time
}

// datingStorable reports whether a file of stat data st may be stored by a
// run whose clock reads now: not changed within datingMemoRacy of it, nor
// in the future.
func datingStorable(now time.Time, st fileKeyStat) bool {
	limit := now.Add(-datingMemoRacy)
	return !st.mtime.After(limit) && !st.ctime.After(limit)
}

// diskHashDating is diskHash for LastCommitted: a regular file whose key
// is in the work-tree hash table takes its hash unread, and one read is
// recorded (when not changed within datingMemoRacy of now).
func (r *Repo) diskHashDating(p string, buf *[]byte) (h plumbing.Hash, onDisk bool, err error) {
	t := r.wtHashes
	if t == nil {
		return r.diskHash(p, *buf)
	}
	fi, err := os.Lstat(filepath.Join(r.root, filepath.FromSlash(p)))
	if err != nil {
		return r.diskHashStat(p, buf, nil, nil) // says why, as without the table
	}
	st, ok := keyStatOf(fi)
	if !ok || !fi.Mode().IsRegular() {
		return r.diskHashStat(p, buf, nil, fi)
	}
	k := datingKey(p, st)
	if h, _, ok := t.Get(k); ok {
		return h, true, nil
	}
	h, onDisk, err = r.diskHashStat(p, buf, nil, fi)
	if err == nil && onDisk && h != tooLargeHash && datingStorable(datingNow(), st) {
		t.Add(k, h)
	}
	return h, onDisk, err
}
