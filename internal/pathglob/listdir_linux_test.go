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
	got, err := listDir(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b DirEntry) int { return strings.Compare(a.Name, b.Name) })
	if len(got) != len(want) {
		t.Fatalf("listDir gives %d entries, ReadDir %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Name != want[i].Name() || got[i].Type != want[i].Type() {
			t.Errorf("entry %d = %q %v, ReadDir gives %q %v", i, got[i].Name, got[i].Type, want[i].Name(), want[i].Type())
		}
	}
	for _, p := range []string{filepath.Join(dir, "fifo"), filepath.Join(dir, "missing"), filepath.Join(dir, "sub", "..", "fifo")} {
		if ents, err := listDir(p, false); err == nil || ents != nil {
			t.Errorf("listDir(%s) = %v, %v; want an error and no entries", p, ents, err)
		}
	}
}

// linux_dirent64's offsets: d_reclen, d_type, d_name.
const (
	direntReclen = 16
	direntType   = 18
	direntName   = 19
)

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
	want := []DirEntry{{"d", fs.ModeDir}, {"l", fs.ModeSymlink}, {"f", 0}, {"s", fs.ModeSocket}, {"c", fs.ModeDevice | fs.ModeCharDevice}, {"b", fs.ModeDevice}}
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
			if e.Name == "" || e.Name == "." || e.Name == ".." || strings.IndexByte(e.Name, 0) >= 0 {
				t.Fatalf("entry %q", e.Name)
			}
		}
	})
}

// TestListNoFollow: a symlink to a folder is not listed through (an error,
// no entries), a folder is, and a listing follows no symlink inside.
func TestListNoFollow(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "d", "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	if ents, err := ListNoFollow(filepath.Join(dir, "l")); err == nil || ents != nil {
		t.Errorf("ListNoFollow(symlink) = %v, %v; want an error", ents, err)
	}
	if ents, err := listDir(filepath.Join(dir, "l"), false); err != nil || len(ents) != 1 {
		t.Errorf("listDir(symlink, follow) = %v, %v; want the folder's one entry", ents, err)
	}
	ents, err := ListNoFollow(dir)
	slices.SortFunc(ents, func(a, b DirEntry) int { return strings.Compare(a.Name, b.Name) })
	if want := []DirEntry{{"d", fs.ModeDir}, {"l", fs.ModeSymlink}}; err != nil || !slices.Equal(ents, want) {
		t.Errorf("ListNoFollow = %v, %v; want %v", ents, err, want)
	}
}
