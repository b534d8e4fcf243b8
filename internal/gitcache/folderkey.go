package gitcache

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
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

// FolderKeyOf is the verdict key of folder p (a slash path below the work
// tree root) as tree h, from the stat data its paths have now: p itself and
// every folder and file h holds below it, trees read by tree. p is opened
// below root and each subfolder below its parent without following a
// symbolic link (safefile), and each path stat'ed through its folder's
// descriptor (before, a folder's lstat by its path and a trailing slash
// followed a link). ok is false when a path is missing or of another kind
// than h says, changed within WorktreeRacy of now, a name in h is not one
// plain path element (a hostile tree's "..", "a/b" or NUL: never joined
// into a path, never stat'ed), h holds a submodule, holds more than
// maxFiles files or nests deeper than 1,024, and outside Linux (no change
// time read, see FileStatOf): the folder is then compared, and its
// verdict not stored.
func FolderKeyOf(root, p string, h plumbing.Hash, tree func(plumbing.Hash) (*gitobj.TreeIndex, error), maxFiles int, now time.Time) (HashKey, bool) {
	if !statKeys {
		return HashKey{}, false
	}
	top, err := safefile.OpenDir(root, p, false)
	if err != nil {
		return HashKey{}, false
	}
	defer top.Close()
	stats := make([]FolderStat, 0, 8)
	files := 0
	keep := func(rel string, st safefile.FileStat) bool {
		stats = append(stats, FolderStat{Rel: rel, St: FileStat{Dev: st.Dev, Ino: st.Ino, Mode: st.Mode, Size: st.Size, Mtime: st.Mtime, Ctime: st.Ctime}})
		return Storable(now, stats[len(stats)-1].St)
	}
	var walk func(d *safefile.Dir, h plumbing.Hash, prefix string, depth int) bool
	walk = func(d *safefile.Dir, h plumbing.Hash, prefix string, depth int) bool {
		t, err := tree(h)
		if err != nil || depth > 1024 {
			return false
		}
		if st, err := d.Stat(); err != nil || !keep(prefix, st) {
			return false
		}
		for i := range t.Offs {
			mode, name, at := t.At(i)
			switch e := gitobj.ParseEntry(mode, t.Raw[at:at+20]); {
			case !PlainName(name):
				return false
			case e.Mode == filemode.Dir:
				sub, err := d.OpenSub(string(name)) // a link or a file refused
				if err != nil {
					return false
				}
				ok := walk(sub, e.Hash, prefix+string(name)+"/", depth+1)
				sub.Close()
				if !ok {
					return false
				}
			case !gitobj.IsBlob(e.Mode): // a submodule: never as committed
				return false
			default:
				if files++; files > maxFiles {
					return false
				}
				if st, err := d.StatNoFollow(string(name)); err != nil || st.IsDir() || !keep(prefix+string(name), st) {
					return false
				}
			}
		}
		return true
	}
	if !walk(top, h, "", 0) {
		return HashKey{}, false
	}
	slices.SortFunc(stats, func(a, b FolderStat) int { return strings.Compare(a.Rel, b.Rel) })
	return FolderKey(p, h, stats), true
}

// PlainName reports a tree entry name that is one path element: not
// empty, ".", "..", nor holding a slash, a backslash or a NUL.
func PlainName(name []byte) bool {
	n := string(name)
	return n != "" && n != "." && n != ".." && !strings.ContainsAny(n, "/\\\x00")
}
