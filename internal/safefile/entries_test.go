//go:build unix

package safefile

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
)

// TestReadEntries: a folder listed through its descriptor gives the names
// and types (*os.File).ReadDir gives, in the same order, with a buffer as
// small as it takes (1 KiB: many getdents calls) or the usual one: files,
// folders, symlinks (to a file, a folder, nowhere: never followed), a
// FIFO, a socket, long and odd names, and more entries than one buffer
// holds. An empty folder calls fn never; a Dir listed a second time lists
// nothing (it reads from the descriptor's offset); Reopen lists it whole.
func TestReadEntries(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "d")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	names := []string{"a.md", ".hidden", "with space.md", "日本.md", "x\x01y", strings.Repeat("l", 255)}
	for i := range 400 {
		names = append(names, fmt.Sprintf("%04d.story.md", i))
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"filelink": "a.md", "dirlink": "sub", "broken": "nowhere"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if l, err := net.Listen("unix", filepath.Join(dir, "sock")); err == nil {
		defer l.Close()
	}

	type ent struct {
		name string
		typ  fs.FileMode
	}
	want := func(full string) []ent {
		f, err := os.Open(full)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		des, err := f.ReadDir(-1)
		if err != nil {
			t.Fatal(err)
		}
		var out []ent
		for _, de := range des {
			out = append(out, ent{de.Name(), de.Type()})
		}
		return out
	}
	list := func(rel string, buf []byte) ([]ent, *Dir) {
		d, err := OpenDir(root, rel, false)
		if err != nil {
			t.Fatal(err)
		}
		var out []ent
		if err := d.ReadEntries(buf, func(name []byte, typ fs.FileMode) {
			out = append(out, ent{string(name), typ})
		}); err != nil {
			t.Fatal(err)
		}
		return out, d
	}
	w := want(dir)
	if len(w) < 410 {
		t.Fatalf("ReadDir gave %d entries", len(w))
	}
	for _, size := range []int{0, 1024, 4096, EntryBufSize} {
		got, d := list("d", make([]byte, size))
		if !reflect.DeepEqual(got, w) {
			sort.Slice(got, func(i, j int) bool { return got[i].name < got[j].name })
			t.Errorf("buffer %d: ReadEntries gave %d entries, ReadDir %d:\n%v", size, len(got), len(w), got[:min(len(got), 20)])
		}
		again := 0
		if err := d.ReadEntries(make([]byte, size), func([]byte, fs.FileMode) { again++ }); err != nil || again != 0 {
			t.Errorf("buffer %d: a second listing gave %d entries, %v", size, again, err)
		}
		// the same folder again, on a descriptor of its own: listed whole,
		// and open after d is closed
		o, err := d.Reopen()
		if err != nil {
			t.Fatal(err)
		}
		d.Close()
		var re []ent
		if err := o.ReadEntries(make([]byte, size), func(name []byte, typ fs.FileMode) { re = append(re, ent{string(name), typ}) }); err != nil || !reflect.DeepEqual(re, w) || o.Rel() != "d" {
			t.Errorf("buffer %d: the reopened folder %q listed %d entries, %v", size, o.Rel(), len(re), err)
		}
		o.Close()
	}
	types := map[string]fs.FileMode{}
	for _, e := range w {
		types[e.name] = e.typ
	}
	for name, typ := range map[string]fs.FileMode{"a.md": 0, "sub": fs.ModeDir, "filelink": fs.ModeSymlink, "dirlink": fs.ModeSymlink,
		"broken": fs.ModeSymlink, "fifo": fs.ModeNamedPipe} {
		if types[name] != typ {
			t.Errorf("%s: type %v, want %v", name, types[name], typ)
		}
	}
	if got, d := list("empty", nil); len(got) != 0 {
		t.Errorf("an empty folder listed %v", got)
	} else {
		d.Close()
	}
}

// TestLstatType: the type of an entry the file system listed without one
// is its lstat's, as os gives it; a name gone since is skipped.
func TestLstatType(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("dir", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(root, ".", false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, name := range []string{"f", "dir", "link", "fifo"} {
		fi, err := os.Lstat(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		typ, gone, err := d.lstatType(name)
		if typ != fi.Mode().Type() || gone || err != nil {
			t.Errorf("%s: %v %v %v, want %v", name, typ, gone, err, fi.Mode().Type())
		}
	}
	if _, gone, err := d.lstatType("missing"); !gone || err != nil {
		t.Errorf("missing: gone %v, %v", gone, err)
	}
}
