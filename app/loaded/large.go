package loaded

import (
	"os"
	"path/filepath"
)

// largeIndexBytes is the size of a git index from which a run is taken
// to be large: ~15,000 tracked files. A run that large asks for huge
// pages for its heap (internal/hugeheap: ~5 ms to ask, 10–40 % of a run
// of 100,000 files won); a smaller one does not.
const largeIndexBytes = 2 << 20

// largeIndex reports whether the repository at root has a git index of
// largeIndexBytes or more in its .git folder (a linked worktree's, whose
// .git is a file, is not looked for: the run is then taken as small). A
// hint only: the index is never read here, and a link is not followed.
func largeIndex(root string) bool {
	fi, err := os.Lstat(filepath.Join(root, ".git", "index"))
	return err == nil && fi.Mode().IsRegular() && fi.Size() >= largeIndexBytes
}
