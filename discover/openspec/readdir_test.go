package openspec

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestReadDirAsOsReadDir: readDir answers as os.ReadDir does — the names
// sorted with their types, an error for a file or a missing path, and a
// link to a folder listed through.
func TestReadDirAsOsReadDir(t *testing.T) {
	t.Parallel()
	d := t.TempDir()
	for _, sub := range []string{"specs/auth", "alpha"} {
		if err := os.MkdirAll(filepath.Join(d, "dir", filepath.FromSlash(sub)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"zeta.md", "tasks.md", "Beta", ".openspec.yaml"} {
		if err := os.WriteFile(filepath.Join(d, "dir", n), []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("dir", filepath.Join(d, "link")); err != nil {
		t.Fatal(err)
	}
	type entry struct {
		Name string
		Dir  bool
		Type os.FileMode
	}
	list := func(ents []os.DirEntry) []entry {
		var out []entry
		for _, e := range ents {
			out = append(out, entry{e.Name(), e.IsDir(), e.Type()})
		}
		return out
	}
	for _, p := range []string{"dir", "dir/specs", "link", "dir/tasks.md", "missing"} {
		full := filepath.Join(d, filepath.FromSlash(p))
		got, gotErr := readDir(full)
		want, wantErr := os.ReadDir(full)
		if !reflect.DeepEqual(list(got), list(want)) || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%s: readDir = %v, %v; os.ReadDir = %v, %v", p, list(got), gotErr, list(want), wantErr)
		}
		if p == "dir" && len(got) != 6 {
			t.Errorf("dir: %d entries, want 6", len(got))
		}
	}
}
