package gitcache

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/go-git/go-git/v5/plumbing"
)

// A folder verdict is an entry of the work-tree hash table that says
// "the folder at p on disk is tree h" (gitrepo's LastCommitted, dating a
// folder): its key is FolderKey, its value h. It shares the table with the
// files' entries, in a key domain of its own.

// folderKeyDomain opens a folder key's hashed bytes: a file's key
// (WorktreeKey) opens with its version's uvarint, one byte below 0x80, so
// the two never hash the same bytes.
const folderKeyDomain = "\xffgitcache folder verdict v1\x00"

// FolderStat is the stat data of one path of a folder in its key: Rel is
// its path below the folder ("" the folder itself, "sub/" a subfolder,
// "sub/f" a file).
type FolderStat struct {
	Rel string
	St  FileStat
}

// FolderKey is the key of the verdict that folder p is tree h, given the
// stat data of p and of every folder and file h holds below it, sorted by
// Rel: a SHA-256 of the domain, p, h and each path with its stat data
// (device, inode, mode, size, modification and change times in
// nanoseconds), every field length-prefixed or of a fixed size.
func FolderKey(p string, h plumbing.Hash, stats []FolderStat) HashKey {
	b := make([]byte, 0, len(folderKeyDomain)+len(p)+len(h)+len(stats)*64)
	b = append(b, folderKeyDomain...)
	b = binary.AppendUvarint(b, uint64(len(p)))
	b = append(b, p...)
	b = append(b, h[:]...)
	b = binary.AppendUvarint(b, uint64(len(stats)))
	for _, s := range stats {
		b = binary.AppendUvarint(b, uint64(len(s.Rel)))
		b = append(b, s.Rel...)
		b = binary.LittleEndian.AppendUint64(b, s.St.Dev)
		b = binary.LittleEndian.AppendUint64(b, s.St.Ino)
		b = binary.LittleEndian.AppendUint32(b, s.St.Mode)
		b = binary.LittleEndian.AppendUint64(b, uint64(s.St.Size))
		b = binary.LittleEndian.AppendUint64(b, uint64(s.St.Mtime.Unix()))
		b = binary.LittleEndian.AppendUint32(b, uint32(s.St.Mtime.Nanosecond()))
		b = binary.LittleEndian.AppendUint64(b, uint64(s.St.Ctime.Unix()))
		b = binary.LittleEndian.AppendUint32(b, uint32(s.St.Ctime.Nanosecond()))
	}
	return sha256.Sum256(b)
}
