package openspec

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// TestListChange: listChange answers as os.Lstat then os.ReadDir did: no
// folder for a missing path, a file or a symlink; a folder's entries
// sorted, with their types.
func TestListChange(t *testing.T) {
	root := t.TempDir()
	ch := filepath.Join(root, "c")
	for _, d := range []string{"c/specs/a", "real"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"c/tasks.md", "c/proposal.md", "file"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("real", filepath.Join(root, "link")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := os.Symlink("../file", filepath.Join(ch, "a-link")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"missing", "file", "link", "file/x"} {
		if ents, listed, ok := listChange(filepath.Join(root, p)); ok || listed || ents != nil {
			t.Errorf("listChange(%s) = %v %v %v, want no folder", p, ents, listed, ok)
		}
	}
	ents, listed, ok := listChange(ch)
	want, err := os.ReadDir(ch)
	if err != nil || !ok || !listed || len(ents) != len(want) {
		t.Fatalf("listChange = %v %v %v, ReadDir %v %v", ents, listed, ok, want, err)
	}
	for i, w := range want {
		if ents[i].Name != w.Name() || ents[i].Type != w.Type() {
			t.Errorf("entry %d = %+v, ReadDir %s %v", i, ents[i], w.Name(), w.Type())
		}
	}
	// a folder that cannot be read (unless the tests run as root): a
	// folder, its entries unknown, as os.ReadDir's error said
	locked := filepath.Join(root, "locked")
	if err := os.Mkdir(locked, 0o000); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = os.Chmod(locked, 0o755) }()
	_, rerr := os.ReadDir(locked)
	if ents, listed, ok := listChange(locked); !ok || listed != (rerr == nil) || rerr != nil && ents != nil {
		t.Errorf("listChange(unreadable) = %v %v %v, ReadDir's error %v", ents, listed, ok, rerr)
	}
}

// TestListFolder: a change folder listed through its opened descriptor
// (listFolder, with the cache) gives listChange's answer: the same
// entries, sorted, with the same types (a symlink not followed, a
// subfolder a folder).
func TestListFolder(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"c/specs/a", "c/.hidden", "empty"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"c/tasks.md", "c/proposal.md", "c/.openspec.yaml", "c/zz"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("tasks.md", filepath.Join(root, "c", "b-link")); err != nil {
		t.Skip("no symlinks:", err)
	}
	for _, dir := range []string{"c", "empty"} {
		d, err := safefile.OpenDir(root, dir, false)
		if err != nil {
			t.Fatal(err)
		}
		got, listed, ok := listFolder(d)
		d.Close()
		want, wlisted, wok := listChange(filepath.Join(root, dir))
		if !ok || !listed || !wok || !wlisted || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: listFolder = %v %v %v, listChange %v %v %v", dir, got, listed, ok, want, wlisted, wok)
		}
	}
}
