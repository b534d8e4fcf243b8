package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStatNoFollowAndReadRegular checks the no-follow stat and read of a
// file in a confined folder: a regular file gives its stat data (the same
// from both) and content; a symlink, a FIFO, a folder, a file over the
// limit, a binary file and a bad name are never followed nor read.
func TestStatNoFollowAndReadRegular(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "d")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.md", "hello\n")
	write("big.md", strings.Repeat("x", 100))
	write("bin.md", "a\x00b")
	write("empty.md", "")
	if err := os.Symlink("a.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2020, 1, 2, 3, 4, 5, 600, time.UTC)
	if err := os.Chtimes(filepath.Join(dir, "a.md"), mtime, mtime); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(root, "d", false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	fs, err := d.StatNoFollow("a.md")
	if err != nil || !fs.Regular() || fs.Size != 6 || !fs.Mtime.Equal(mtime) || fs.Ino == 0 || fs.Ctime.IsZero() {
		t.Fatalf("StatNoFollow(a.md) = %+v, %v", fs, err)
	}
	data, rfs, ok := d.ReadRegular("a.md", 1024)
	if !ok || string(data) != "hello\n" || rfs != fs {
		t.Errorf("ReadRegular(a.md) = %q, %+v, %v; want the stat %+v", data, rfs, ok, fs)
	}
	if data, _, ok := d.ReadRegular("empty.md", 0); !ok || len(data) != 0 {
		t.Errorf("ReadRegular(empty.md) = %q, %v", data, ok)
	}
	for name, want := range map[string]bool{"link.md": false, "fifo.md": false, "sub": false} {
		fs, err := d.StatNoFollow(name)
		if err != nil || fs.Regular() != want {
			t.Errorf("StatNoFollow(%s) = mode %o, %v; want regular %v", name, fs.Mode, err, want)
		}
	}
	if _, err := d.StatNoFollow("missing.md"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("StatNoFollow(missing.md) = %v, want not exist", err)
	}
	for _, name := range []string{"link.md", "fifo.md", "sub", "big.md", "bin.md", "missing.md", "../d/a.md", "", ".."} {
		done := make(chan bool, 1)
		go func() {
			_, _, ok := d.ReadRegular(name, 50)
			done <- ok
		}()
		select {
		case ok := <-done:
			if ok {
				t.Errorf("ReadRegular(%q) read it", name)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadRegular(%q) hangs", name)
		}
	}
	if _, err := d.StatNoFollow("../d/a.md"); !errors.Is(err, ErrUnsafe) {
		t.Errorf("StatNoFollow(../d/a.md) = %v, want unsafe", err)
	}
}

// TestOpenSub checks that OpenSub opens a folder and refuses a symlinked
// folder, a file and a bad name.
func TestOpenSub(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(root, ".", false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	sub, err := d.OpenSub("real")
	if err != nil || sub.Rel() != "real" {
		t.Fatalf("OpenSub(real) = %v, %v", sub, err)
	}
	sub.Close()
	for name, kind := range map[string]error{"link": ErrSymlink, "f": ErrNotDir, "..": ErrUnsafe, "a/b": ErrUnsafe, "missing": os.ErrNotExist} {
		if _, err := d.OpenSub(name); !errors.Is(err, kind) {
			t.Errorf("OpenSub(%q) = %v, want %v", name, err, kind)
		}
	}
}

// TestReadRegularInto checks that ReadRegularInto reads into the buffer
// given when the file fits (size+1 bytes), into a fresh one otherwise, and
// refuses what ReadRegular refuses, whatever the buffer holds.
func TestReadRegularInto(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{"a.md": "hello\n", "b.md": strings.Repeat("y", 40), "bin.md": "a\x00b", "empty.md": ""} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := OpenDir(root, ".", false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	buf := make([]byte, 3, 16)
	copy(buf, "old")
	same := func(a, b []byte) bool { return cap(a) > 0 && cap(b) > 0 && &a[:cap(a)][0] == &b[:cap(b)][0] }
	data, fs, ok := d.ReadRegularInto("a.md", 1024, buf)
	if !ok || string(data) != "hello\n" || fs.Size != 6 || !same(data, buf) {
		t.Errorf("ReadRegularInto(a.md) = %q, %v, in the buffer %v", data, ok, same(data, buf))
	}
	data, _, ok = d.ReadRegularInto("b.md", 1024, buf) // 41 bytes: no room
	if !ok || string(data) != strings.Repeat("y", 40) || same(data, buf) || string(buf[:6]) != "hello\n" {
		t.Errorf("ReadRegularInto(b.md) = %q, %v, in the buffer %v (buffer %q)", data, ok, same(data, buf), buf[:6])
	}
	if data, _, ok := d.ReadRegularInto("empty.md", 0, buf); !ok || len(data) != 0 {
		t.Errorf("ReadRegularInto(empty.md) = %q, %v", data, ok)
	}
	for _, name := range []string{"bin.md", "missing.md", "../a.md"} {
		if data, _, ok := d.ReadRegularInto(name, 1024, buf); ok {
			t.Errorf("ReadRegularInto(%q) = %q, read it", name, data)
		}
	}
	if _, _, ok := d.ReadRegularInto("b.md", 10, buf); ok {
		t.Error("ReadRegularInto(b.md) read a file over the limit")
	}
}
