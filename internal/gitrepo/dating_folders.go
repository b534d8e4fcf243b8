package gitrepo

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/orchestrate-dev/orchestrate/internal/gitcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// The folder verdicts. Without them LastCommitted lists every dated folder
// and looks up each of its files on every run (200 OpenSpec changes in
// flight: ~600 folder opens and listings). A folder found as committed is
// kept in the work-tree hash table as "folder p on disk is tree h"
// (gitcache.FolderKey: p, h and the stat data of p and of every folder and
// file h holds below it; the value h); a later run stats those paths (no
// open, no listing, no read) and takes the folder as committed when the
// key is there with the value h. Sound because the key is taken before the
// comparison and stored only when it said "as committed" and no stat in it
// is within gitcache.WorktreeRacy of the run's clock: a folder's times move
// whenever an entry is added, removed or renamed in it (an untracked or a
// missing file), a file's whenever it is written or replaced, a path made a
// link has another mode and inode; a commit changing the folder gives it
// another tree (another key). The commit a folder is dated by is still
// asked of the walk (LastChange). See docs/SECURITY.md.

// folderKey is the verdict key of folder p, HEAD's tree h, from the stat
// data its paths have now; ok is false when a path is missing or of
// another kind than h says, changed within the racy window, or h is past
// folderFiles's bounds (a submodule, over maxFolderFiles files): the
// folder is then compared, and not stored.
func (r *Repo) folderKey(p string, h plumbing.Hash) (gitcache.HashKey, bool) {
	abs := filepath.Join(r.root, filepath.FromSlash(p)) + string(filepath.Separator)
	stats := make([]gitcache.FolderStat, 0, 8)
	files, now := 0, datingNow()
	stat := func(rel string, dir bool) bool {
		fi, err := os.Lstat(abs + filepath.FromSlash(rel))
		if err != nil || fi.IsDir() != dir {
			return false
		}
		st, ok := gitcache.FileStatOf(fi)
		stats = append(stats, gitcache.FolderStat{Rel: rel, St: st})
		return ok && gitcache.Storable(now, st)
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
			case !plainName(name): // a hostile tree's name: never stat'ed, never as committed
				return false
			case e.Mode == filemode.Dir:
				if !walk(e.Hash, prefix+string(name)+"/", depth+1) {
					return false
				}
			case !gitobj.IsBlob(e.Mode): // a submodule: never as committed
				return false
			default:
				if files++; files > maxFolderFiles || !stat(prefix+string(name), false) {
					return false
				}
			}
		}
		return true
	}
	if !walk(h, "", 0) {
		return gitcache.HashKey{}, false
	}
	slices.SortFunc(stats, func(a, b gitcache.FolderStat) int { return strings.Compare(a.Rel, b.Rel) })
	return gitcache.FolderKey(p, h, stats), true
}

// folderAsCommittedMemo is folderAsCommitted through the folder verdicts
// (without the table, folderAsCommitted itself).
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

// plainName reports a tree entry name that is one path element: not
// empty, ".", "..", nor holding a slash, a backslash or a NUL (such a
// folder is compared as without the table).
func plainName(name []byte) bool {
	n := string(name)
	return n != "" && n != "." && n != ".." && !strings.ContainsAny(n, "/\\\x00")
}
