package safefile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestNames(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(filepath.Join(sub, "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"x.lock", "y"} {
		if err := os.WriteFile(filepath.Join(sub, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(sub, "link")); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(root, "a/b", false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for range 2 { // twice: each listing reads from the start, and d stays open
		names, err := d.Names()
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(names)
		if want := []string{"folder", "link", "x.lock", "y"}; !slices.Equal(names, want) {
			t.Errorf("Names = %q, want %q", names, want)
		}
	}
	if _, _, err := d.Lstat("y"); err != nil {
		t.Errorf("d after Names: %v", err)
	}
}
