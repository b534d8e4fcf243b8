package gitrepo

import (
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// indexEntriesFor returns the index entries of paths that can stand for
// the file on disk: regular files at stage 0, neither assume-valid,
// skip-worktree nor intent-to-add, and not racily clean (modified no earlier
// than the index was written), the index being worth reading for compared
// paths (how many files it may spare hashing). It returns nil — every file
// is then hashed — for few paths, a large index, an index it cannot read,
// or a version other than 2 and 3.
func (r *Repo) indexEntriesFor(paths []string, compared int) map[string]gitobj.IndexEntry {
	out, _, _ := r.readIndex(paths, compared, nil)
	return out
}

// readIndex is indexEntriesFor that, when heads is not nil, also puts in it
// the blob hash of every wanted path the index holds at stage 0 (a regular
// file or a symbolic link) and returns the tree its cache-tree extension
// gives the whole index (zero when it has none, or when an entry is
// conflicted, skip-worktree, intent-to-add or a sparse folder, or the index
// is split): when that tree is HEAD's, the index holds HEAD's files. dirs is
// then the tree the cache-tree gives each folder of the paths (when valid).
//
// The index is mapped and parsed in place (read whole where it cannot be
// mapped), then unmapped: nothing kept points into it. Git replaces an index
// by renaming a new file over it, never by rewriting it in place, so the
// mapping holds the index as it was when it was opened (see docs/SECURITY.md
// on mapped files).
func (r *Repo) readIndex(paths []string, compared int, heads map[string]plumbing.Hash) (_ map[string]gitobj.IndexEntry, root plumbing.Hash, dirs map[string]plumbing.Hash) {
	if r.storage == nil {
		return nil, plumbing.ZeroHash, nil
	}
	return gitobj.ReadIndex(r.storage.Filesystem(), paths, compared, heads)
}
