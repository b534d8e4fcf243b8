package loaded

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLargeIndex: a run is large when its .git folder holds a regular
// index of largeIndexBytes or more; no index, a smaller one, a .git file
// (a linked worktree) or an index that is a link make it small.
func TestLargeIndex(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, root string)
		want  bool
	}{
		{"no .git", func(t *testing.T, root string) {}, false},
		{"no index", func(t *testing.T, root string) { mkdir(t, root, ".git") }, false},
		{"small index", func(t *testing.T, root string) { withIndex(t, root, largeIndexBytes-1) }, false},
		{"large index", func(t *testing.T, root string) { withIndex(t, root, largeIndexBytes) }, true},
		{"a .git file naming no folder", func(t *testing.T, root string) {
			if err := os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: /elsewhere\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, false},
		// a linked worktree's index is in the folder its .git file names
		{"a linked worktree's large index", func(t *testing.T, root string) { withWorktreeIndex(t, root, largeIndexBytes) }, true},
		{"a linked worktree's small index", func(t *testing.T, root string) { withWorktreeIndex(t, root, largeIndexBytes-1) }, false},
		{"a subfolder of a large repository", func(t *testing.T, root string) {
			withIndex(t, filepath.Dir(root), largeIndexBytes)
		}, true},
		{"index a link to a large file", func(t *testing.T, root string) {
			mkdir(t, root, ".git")
			big := filepath.Join(t.TempDir(), "big")
			sparse(t, big, largeIndexBytes*4)
			if err := os.Symlink(big, filepath.Join(root, ".git", "index")); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// root is a folder of its own below the test's folder: a case
			// may make that one the repository (a subfolder run)
			root := filepath.Join(t.TempDir(), "repo")
			mkdir(t, root, "")
			tc.setup(t, root)
			if got := largeIndex(root); got != tc.want {
				t.Errorf("largeIndex = %v, want %v", got, tc.want)
			}
		})
	}
}

func mkdir(t *testing.T, root, rel string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, rel), 0o755); err != nil {
		t.Fatal(err)
	}
}

// withIndex makes root's .git/index a sparse file of size bytes.
func withIndex(t *testing.T, root string, size int64) {
	t.Helper()
	mkdir(t, root, ".git")
	sparse(t, filepath.Join(root, ".git", "index"), size)
}

// withWorktreeIndex makes root a linked worktree, as git worktree add
// does (root/.git a file naming root's folder in its main repository's
// .git/worktrees), whose index is a sparse file of size bytes; the main
// repository's own index is large, and is not the worktree's.
func withWorktreeIndex(t *testing.T, root string, size int64) {
	t.Helper()
	main := t.TempDir()
	withIndex(t, main, largeIndexBytes*2)
	admin := filepath.Join(main, ".git", "worktrees", "wt")
	mkdir(t, admin, "")
	if err := os.WriteFile(filepath.Join(admin, "commondir"), []byte("../..\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sparse(t, filepath.Join(admin, "index"), size)
	if err := os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: "+admin+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}
