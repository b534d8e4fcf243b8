//go:build linux

package gitcache

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// TestFolderKeyOfFollowsNoLink: a folder keys from its files' stat data;
// a subfolder, or the folder itself, replaced by a symbolic link to a
// folder of the same files gives no key (before, a folder's lstat by its
// path and a trailing slash followed the link).
func TestFolderKeyOfFollowsNoLink(t *testing.T) {
	root := t.TempDir()
	write := func(p string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("f/a")
	write("f/s/b")
	blob := plumbing.NewHash("1111111111111111111111111111111111111111")
	sub := plumbing.NewHash("2222222222222222222222222222222222222222")
	top := plumbing.NewHash("3333333333333333333333333333333333333333")
	entry := func(mode, name string, h plumbing.Hash) []byte {
		return append([]byte(fmt.Sprintf("%s %s\x00", mode, name)), h[:]...)
	}
	trees := map[plumbing.Hash]*gitobj.TreeIndex{
		top: gitobj.NewTreeIndex(append(entry("100644", "a", blob), entry("40000", "s", sub)...)),
		sub: gitobj.NewTreeIndex(entry("100644", "b", blob)),
	}
	tree := func(h plumbing.Hash) (*gitobj.TreeIndex, error) {
		if t, ok := trees[h]; ok {
			return t, nil
		}
		return nil, plumbing.ErrObjectNotFound
	}
	now := time.Now().Add(time.Hour) // past the racy window
	k1, ok := FolderKeyOf(root, "f", top, tree, 100, now)
	if !ok {
		t.Fatal("no key for a plain folder")
	}
	if k2, ok := FolderKeyOf(root, "f", top, tree, 100, now); !ok || k2 != k1 {
		t.Fatal("the same folder keys otherwise")
	}
	// the subfolder moved out and linked back: same files, same inodes
	out := filepath.Join(t.TempDir(), "s")
	if err := os.Rename(filepath.Join(root, "f/s"), out); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(root, "f/s")); err != nil {
		t.Fatal(err)
	}
	if _, ok := FolderKeyOf(root, "f", top, tree, 100, now); ok {
		t.Error("a subfolder that is a symbolic link was keyed")
	}
	// the folder itself a link to a folder of the same files
	if err := os.Rename(filepath.Join(root, "f"), filepath.Join(root, "g")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "g"), filepath.Join(root, "f")); err != nil {
		t.Fatal(err)
	}
	if _, ok := FolderKeyOf(root, "f", top, tree, 100, now); ok {
		t.Error("a folder that is a symbolic link was keyed")
	}
}
