//go:build linux

package pathglob

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestListDirMatchesReadDir: the raw listing gives the names and types
// (*os.File).ReadDir gives, for every kind of entry, and many entries (more
// than one getdents buffer).
func TestListDirMatchesReadDir(t *testing.T) {
	dir := t.TempDir()
	for i := range 900 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file-%04d-%s", i, strings.Repeat("x", i%40))), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere", filepath.Join(dir, "broken")); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(dir, "fifo")); err != nil {
		t.Fatal(err)
	}
	got, err := listDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	if len(got) != len(want) {
		t.Fatalf("listDir gives %d entries, ReadDir %d", len(got), len(want))
	}
	for i := range want {
		if got[i].name != want[i].Name() || got[i].typ != want[i].Type() {
			t.Errorf("entry %d = %q %v, ReadDir gives %q %v", i, got[i].name, got[i].typ, want[i].Name(), want[i].Type())
		}
	}
	for _, p := range []string{filepath.Join(dir, "fifo"), filepath.Join(dir, "missing"), filepath.Join(dir, "sub", "..", "fifo")} {
		if ents, err := listDir(p); err == nil || ents != nil {
			t.Errorf("listDir(%s) = %v, %v; want an error and no entries", p, ents, err)
		}
	}
}

// record builds one linux_dirent64 record.
func record(name string, typ byte) []byte {
	n := (direntName + len(name) + 1 + 7) &^ 7
	b := make([]byte, n)
	binary.NativeEndian.PutUint64(b, 1)
	binary.NativeEndian.PutUint16(b[direntReclen:], uint16(n))
	b[direntType] = typ
	copy(b[direntName:], name)
	return b
}

// TestParseDirents: DT_UNKNOWN entries are lstat'ed (one gone is
// skipped), "." and ".." are no entries, and a malformed record ends the
// buffer without a panic.
func TestParseDirents(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	var buf []byte
	for _, r := range []struct {
		name string
		typ  byte
	}{{".", syscall.DT_DIR}, {"..", syscall.DT_DIR}, {"d", syscall.DT_UNKNOWN}, {"l", syscall.DT_UNKNOWN}, {"gone", syscall.DT_UNKNOWN}, {"f", syscall.DT_REG}, {"s", syscall.DT_SOCK}, {"c", syscall.DT_CHR}, {"b", syscall.DT_BLK}, {"w", 14}} {
		buf = append(buf, record(r.name, r.typ)...)
	}
	got, err := parseDirents(dir, buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []dirEntry{{"d", fs.ModeDir}, {"l", fs.ModeSymlink}, {"f", 0}, {"s", fs.ModeSocket}, {"c", fs.ModeDevice | fs.ModeCharDevice}, {"b", fs.ModeDevice}}
	if !slices.Equal(got, want) {
		t.Errorf("parseDirents = %v, want %v", got, want)
	}
	bad := record("x", syscall.DT_REG)
	binary.NativeEndian.PutUint16(bad[direntReclen:], 4000)
	for _, b := range [][]byte{bad, bad[:10], append(record("ok", syscall.DT_REG), make([]byte, direntName)...)} {
		got, err := parseDirents(dir, b, nil)
		if err != nil || len(got) > 1 {
			t.Errorf("parseDirents(malformed) = %v, %v", got, err)
		}
	}
}

// FuzzParseDirents: any buffer is read without a panic, and every entry
// has a name: not empty, without a NUL, never "." or "..".
func FuzzParseDirents(f *testing.F) {
	dir := f.TempDir()
	f.Add(append(record("a", syscall.DT_REG), record("b", syscall.DT_UNKNOWN)...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, buf []byte) {
		ents, _ := parseDirents(dir, buf, nil)
		for _, e := range ents {
			if e.name == "" || e.name == "." || e.name == ".." || strings.IndexByte(e.name, 0) >= 0 {
				t.Fatalf("entry %q", e.name)
			}
		}
	})
}
