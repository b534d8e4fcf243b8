package gitrepo

import (
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/orchestrate-dev/orchestrate/internal/gitcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// The folder verdicts. LastCommitted dates a folder (an OpenSpec change, a
// spec pipeline's folder) only when the files on disk under it are exactly
// HEAD's: without a memo every run lists each of its folders and stats and
// looks up each of its files (200 in-flight changes on the bench's specs
// shape: ~600 folder opens and listings a run). The verdict "folder p on
// disk is tree h" is kept in the work-tree hash table (gitcache's
// worktree.go, the table whose entries say "file p with this stat data is
// blob h"), under a key of its own domain: a SHA-256 of folderKeyDomain, p,
// h and the stat data (device, inode, mode, size, modification and change
// times) of p and of every folder and file tree h holds under it, in path
// order; its value is h. A warm run stats those paths (no open, no
// listing, no read) and, when the key is there with the value h, takes the
// folder as committed.
//
// Why it is sound: the key is taken before the folder is compared, and
// stored only when the comparison said "as committed" and no stat in it is
// within gitcache.WorktreeRacy of the run's clock. A later run with the
// same key saw every folder of the tree with the stat data it had then: a
// folder's modification and change times move whenever an entry is added,
// removed or renamed in it (an untracked file, a missing one), and a
// file's whenever its content changes or it is replaced; a path turned
// into a link, or a link retargeted, has another inode or mode. A new
// commit that changes anything under p gives p another tree (another h,
// another key), and the commit a folder is dated by is asked of the walk
// as before (LastChange), never of this table. A value other than h (the
// table's decode already refuses one of another length) is a miss. The
// table is bound to the work tree (cachetable.Digest), so a clone
// elsewhere starts empty. See docs/SECURITY.md.

// folderKeyDomain opens a folder key's hashed bytes: a file's key
// (gitcache.WorktreeKey) opens with its version's uvarint (one byte below
// 0x80), so the two never hash the same bytes.
const folderKeyDomain = "\xffgitrepo folder verdict v1\x00"

// folderStat is one path's stat data in a folder key: rel is its path
// under the folder ("" the folder itself, "sub/" a subfolder).
type folderStat struct {
	rel string
	st  gitcache.FileStat
}

// folderKey is the key of folder p, of HEAD's tree h, with the stat data
// its paths have now; ok is false when a path is missing, of another kind
// than the tree says (a folder that is no folder, a file that is a
// folder), changed within the racy window, or the tree cannot be read
// within the bounds folderFiles keeps (more than maxFolderFiles files, a
// submodule): the folder is then compared as without the table, and not
// stored.
func (r *Repo) folderKey(p string, h plumbing.Hash) (k gitcache.HashKey, ok bool) {
	abs := filepath.Join(r.root, filepath.FromSlash(p))
	var stats []folderStat
	files := 0
	now := datingNow()
	stat := func(rel string, dir bool) bool {
		fi, err := os.Lstat(filepath.Join(abs, filepath.FromSlash(rel)))
		if err != nil || fi.IsDir() != dir {
			return false
		}
		st, ok := gitcache.FileStatOf(fi)
		if !ok || !gitcache.Storable(now, st) {
			return false
		}
		stats = append(stats, folderStat{rel: rel, st: st})
		return true
	}
	var walk func(h plumbing.Hash, prefix string, depth int) bool
	walk = func(h plumbing.Hash, prefix string, depth int) bool {
		t, err := r.trees.Get(h)
		if err != nil || depth > 1024 || !stat(prefix, true) {
			return false
		}
		for i := range t.Offs {
			mode, name, at := t.At(i)
			switch e := gitobj.ParseEntry(mode, t.Raw[at:at+20]); {
			case e.Mode == filemode.Dir:
				if !walk(e.Hash, prefix+string(name)+"/", depth+1) {
					return false
				}
			case !gitobj.IsBlob(e.Mode):
				return false // a submodule: never as committed
			default:
				if files++; files > maxFolderFiles || !stat(prefix+string(name), false) {
					return false
				}
			}
		}
		return true
	}
	if !walk(h, "", 0) {
		return k, false
	}
	slices.SortFunc(stats, func(a, b folderStat) int { return strings.Compare(a.rel, b.rel) })
	b := make([]byte, 0, len(folderKeyDomain)+len(p)+len(h)+len(stats)*64)
	b = append(b, folderKeyDomain...)
	b = binary.AppendUvarint(b, uint64(len(p)))
	b = append(b, p...)
	b = append(b, h[:]...)
	b = binary.AppendUvarint(b, uint64(len(stats)))
	for _, s := range stats {
		b = binary.AppendUvarint(b, uint64(len(s.rel)))
		b = append(b, s.rel...)
		b = binary.LittleEndian.AppendUint64(b, s.st.Dev)
		b = binary.LittleEndian.AppendUint64(b, s.st.Ino)
		b = binary.LittleEndian.AppendUint32(b, s.st.Mode)
		b = binary.LittleEndian.AppendUint64(b, uint64(s.st.Size))
		b = binary.LittleEndian.AppendUint64(b, uint64(s.st.Mtime.Unix()))
		b = binary.LittleEndian.AppendUint32(b, uint32(s.st.Mtime.Nanosecond()))
		b = binary.LittleEndian.AppendUint64(b, uint64(s.st.Ctime.Unix()))
		b = binary.LittleEndian.AppendUint32(b, uint32(s.st.Ctime.Nanosecond()))
	}
	return sha256.Sum256(b), true
}

// folderAsCommittedMemo is folderAsCommitted through the folder verdicts:
// a folder whose key holds h is as committed unlisted; any other is
// compared, and its key (taken before the comparison) stored when it is
// as committed. Without the table it is folderAsCommitted.
func (r *Repo) folderAsCommittedMemo(p string, h plumbing.Hash, buf *[]byte) bool {
	t := r.wtHashes
	if t == nil {
		return r.folderAsCommitted(p, h, buf)
	}
	k, keyed := r.folderKey(p, h)
	if keyed {
		if v, _, ok := t.Get(k); ok && v == h {
			return true
		}
	}
	if !r.folderAsCommitted(p, h, buf) {
		return false
	}
	if keyed {
		t.Add(k, h)
	}
	return true
}
