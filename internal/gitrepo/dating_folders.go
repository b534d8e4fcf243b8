package gitrepo

import (
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/orchestrate-dev/orchestrate/internal/gitcache"
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
// data its paths have now (gitcache.FolderKeyOf; ok false: compare, do not
// store).
func (r *Repo) folderKey(p string, h plumbing.Hash) (gitcache.HashKey, bool) {
	return gitcache.FolderKeyOf(r.root, p, h, r.trees.Get, maxFolderFiles, datingNow())
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
