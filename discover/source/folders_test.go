package source

import (
	"os"
	"path/filepath"
	"testing"
)

// Folders opens a folder inside its open parent as safefile.OpenDir opens
// it from the root: the same folder, and a symlinked or missing component
// (at any depth, before or after its parent was opened) refused; Open, the
// same without keeping it.
func TestFoldersOf(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	for _, d := range []string{"a/b/c", "a/d", "x y/z"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a/b/c/f.md", "a/d/f.md", "x y/z/f.md", filepath.Join(outside, "f.md")} {
		p := f
		if !filepath.IsAbs(f) {
			p = filepath.Join(root, f)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "a/link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b", filepath.Join(root, "a/blink")); err != nil {
		t.Fatal(err)
	}
	f := NewFolders(root)
	defer f.Close()
	for _, c := range []struct {
		p    string
		want string // the file's content read through the folder, "" when refused
	}{
		{"a/b/c/f.md", "a/b/c/f.md"},
		{"a/d/f.md", "a/d/f.md"},
		{"x y/z/f.md", "x y/z/f.md"},
		{"a/link/f.md", ""},           // a symlink to a folder outside
		{"a/blink/c/f.md", ""},        // a symlink inside, then a folder below it
		{"a/missing/f.md", ""},        // missing
		{"a/b/../d/f.md", "a/d/f.md"}, // not clean: OpenDir's answer (cleaned lexically)
		{"a/b/c/f.md", "a/b/c/f.md"},  // again, from the open folders
	} {
		d, name := f.Of(c.p)
		got := ""
		if d != nil {
			data, _, ok := d.ReadRegular(name, 0)
			if !ok {
				t.Fatalf("%s: the folder opened, the file does not read", c.p)
			}
			got = string(data)
		}
		if got != c.want {
			t.Errorf("%s: read %q, want %q", c.p, got, c.want)
		}
		// Open gives the same folder (not kept: closed here)
		dir := filepath.ToSlash(filepath.Dir(c.p))
		o := f.Open(dir)
		got = ""
		if o != nil {
			data, _, ok := o.ReadRegular(name, 0)
			if !ok {
				t.Fatalf("%s: the opened folder does not read", c.p)
			}
			got = string(data)
			o.Close()
		}
		if got != c.want {
			t.Errorf("Open(%s): read %q, want %q", dir, got, c.want)
		}
	}
}
