package source

import (
	"crypto/sha256"
	"encoding/binary"
	"runtime/debug"
	"sync"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// The stat-keyed caches of the formats (discover/story's parses,
// discover/wfstate's decoded documents) key an entry as git's index keys a
// file: a file whose stat data is unchanged has unchanged content. These
// are the rules they share; see docs/SECURITY.md ("The cache").

// StatCacheRacy is how close to a scan's clock a file's modification or
// change time may be and the file still be stored: a write within the same
// clock tick as the stat could leave the stat data unchanged.
const StatCacheRacy = 2 * time.Second

// buildSalt is what identifies this build (Go version, module version, VCS
// revision): an entry one build stored is never read by another, whose
// parser may differ.
var buildSalt = sync.OnceValue(func() []byte {
	var b []byte
	if info, ok := debug.ReadBuildInfo(); ok {
		b = appendString(b, info.GoVersion)
		b = appendString(b, info.Main.Version)
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
				b = appendString(b, s.Key+"="+s.Value)
			}
		}
	}
	return b
})

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// StatCacheSalt returns the SHA-256 that salts a cache's keys: its label,
// its version (bump it on any change of what the parse gives for a file or
// of the value encoding), the build, and extra (whatever else the parse
// depends on besides the content, e.g. configured spellings), each
// length-prefixed.
func StatCacheSalt(label string, version uint64, extra ...string) [sha256.Size]byte {
	b := appendString(nil, label)
	b = binary.AppendUvarint(b, version)
	b = append(b, buildSalt()...)
	b = binary.AppendUvarint(b, uint64(len(extra)))
	for _, s := range extra {
		b = appendString(b, s)
	}
	return sha256.Sum256(b)
}

// StatCacheKey is the table key of the file at the repository-relative
// path p with stat data fs: a SHA-256 of salt, the stat data (device,
// inode, mode, size, modification and change times in ns) and p. scratch,
// when not nil, is reused for the bytes hashed.
func StatCacheKey(salt [sha256.Size]byte, p string, fs safefile.FileStat, scratch *[]byte) [sha256.Size]byte {
	var b []byte
	if scratch != nil {
		b = (*scratch)[:0]
	}
	b = append(b, salt[:]...)
	b = binary.LittleEndian.AppendUint64(b, fs.Dev)
	b = binary.LittleEndian.AppendUint64(b, fs.Ino)
	b = binary.LittleEndian.AppendUint32(b, fs.Mode)
	b = binary.LittleEndian.AppendUint64(b, uint64(fs.Size))
	b = binary.LittleEndian.AppendUint64(b, uint64(fs.Mtime.Unix()))
	b = binary.LittleEndian.AppendUint32(b, uint32(fs.Mtime.Nanosecond()))
	b = binary.LittleEndian.AppendUint64(b, uint64(fs.Ctime.Unix()))
	b = binary.LittleEndian.AppendUint32(b, uint32(fs.Ctime.Nanosecond()))
	b = append(b, p...) // last: every field before it has a fixed size
	if scratch != nil {
		*scratch = b
	}
	return sha256.Sum256(b)
}

// StatCacheStorable reports whether a file of stat data fs may be stored by
// a scan whose clock read now: not changed within StatCacheRacy of it, nor
// in the future.
func StatCacheStorable(now time.Time, fs safefile.FileStat) bool {
	limit := now.Add(-StatCacheRacy)
	return !fs.Mtime.After(limit) && !fs.Ctime.After(limit)
}
