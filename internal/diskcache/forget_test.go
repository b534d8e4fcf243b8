package diskcache

import (
	"os"
	"path/filepath"
	"testing"
)

// TestForget: a table is removed; the user's file of a table's name, a
// symlink to a table, a table in a folder not marked orchestrate's and an
// invalid name are left alone.
func TestForget(t *testing.T) {
	c := New(filepath.Join(t.TempDir(), "cache"))
	writeOne(t, c, "stories")
	writeOne(t, c, "kept")
	c.Forget("stories")
	if _, err := os.Lstat(c.Path("stories")); !os.IsNotExist(err) {
		t.Fatalf("the table is still there: %v", err)
	}
	if _, err := os.Lstat(c.Path("kept")); err != nil {
		t.Fatalf("another table: %v", err)
	}
	if err := os.WriteFile(c.Path("notes"), []byte("my notes"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.Forget("notes")
	if err := os.Symlink(c.Path("kept"), c.Path("link")); err != nil {
		t.Fatal(err)
	}
	c.Forget("link")
	for _, n := range []string{"notes", "link", "kept"} {
		if _, err := os.Lstat(c.Path(n)); err != nil {
			t.Fatalf("%s removed: %v", n, err)
		}
	}
	c.Forget("../cache/kept")
	if _, err := os.Lstat(c.Path("kept")); err != nil {
		t.Fatalf("an invalid name removed a table: %v", err)
	}
	// a folder this process has not found to be orchestrate's
	fresh := New(c.dir)
	fresh.Forget("kept")
	if _, err := os.Lstat(c.Path("kept")); err != nil {
		t.Fatalf("removed from an unchecked folder: %v", err)
	}
	var off *Cache
	off.Forget("kept")
}
