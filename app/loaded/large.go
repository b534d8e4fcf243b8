package loaded

import (
	"os"
	"path/filepath"

	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// largeIndexBytes is the size of a git index from which a run is taken
// to be large: ~15,000 tracked files. A run that large asks for huge
// pages for its heap (internal/hugeheap: ~5 ms to ask, 10–40 % of a run
// of 100,000 files won); a smaller one does not.
const largeIndexBytes = 2 << 20

// largeIndex reports whether the repository that holds root has a git
// index of largeIndexBytes or more: in its git folder, found as git
// finds it (a parent's .git when root is a subfolder, the folder a linked
// worktree's .git file names: gitobj.FindDotGit, as gitrepo.Open). A hint
// only: the index is never read, and a link in its place is not followed.
func largeIndex(root string) bool {
	d, err := gitobj.FindDotGit(root)
	if err != nil {
		return false
	}
	fi, err := os.Lstat(filepath.Join(d.GitDir, "index"))
	return err == nil && fi.Mode().IsRegular() && fi.Size() >= largeIndexBytes
}
