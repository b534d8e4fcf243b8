//go:build linux

package dirent

import (
	"encoding/binary"
	"io/fs"
	"syscall"
	"testing"
)

// dirent builds one linux_dirent64 record of name and d_type, padded to
// 8 bytes as the kernel pads it.
func dirent(name string, dtype byte) []byte {
	n := (19 + len(name) + 1 + 7) &^ 7
	rec := make([]byte, n)
	binary.NativeEndian.PutUint64(rec, 1)
	binary.NativeEndian.PutUint16(rec[16:], uint16(n))
	rec[18] = dtype
	copy(rec[19:], name)
	return rec
}

// TestRecords: whole records give their names and types but "." and
// ".." (nor an empty name); a record cut short, or of a length below the header or past the
// buffer, ends the listing with no entry made of it.
func TestRecords(t *testing.T) {
	var buf []byte
	for _, n := range []string{".", "a.md", "..", "", "sub", "x"} {
		buf = append(buf, dirent(n, 8)...)
	}
	var got []string
	ok := Records(buf, func(name []byte, dtype byte) bool {
		got = append(got, string(name))
		return dtype == 8
	})
	if !ok || len(got) != 3 || got[0] != "a.md" || got[1] != "sub" || got[2] != "x" {
		t.Errorf("whole records: %q, %v", got, ok)
	}
	for _, bad := range [][]byte{
		buf[:len(buf)-3],          // the last record cut short
		append(dirent("a", 8), 1), // a byte after the last record
		func() []byte { b := dirent("a", 8); binary.NativeEndian.PutUint16(b[16:], 4); return b }(),
		func() []byte { b := dirent("a", 8); binary.NativeEndian.PutUint16(b[16:], 200); return b }(),
	} {
		n := 0
		if Records(bad, func([]byte, byte) bool { n++; return true }) {
			t.Errorf("%x: taken as whole", bad)
		}
	}
	stop := 0
	if Records(buf, func([]byte, byte) bool { stop++; return false }) || stop != 1 {
		t.Errorf("fn's stop: %d calls", stop)
	}
}

// FuzzRecords: any bytes give names inside the buffer, without a NUL,
// never "." or "..", and never loop or panic.
func FuzzRecords(f *testing.F) {
	f.Add(append(dirent("a.md", 8), dirent("..", 4)...))
	f.Add(dirent("x", 0)[:10])
	f.Fuzz(func(t *testing.T, b []byte) {
		total := 0
		Records(b, func(name []byte, _ byte) bool {
			total += len(name)
			for _, c := range name {
				if c == 0 {
					t.Fatalf("a name with a NUL: %q", name)
				}
			}
			if len(name) == 0 || string(name) == "." || string(name) == ".." {
				t.Fatalf("gave %q", name)
			}
			return true
		})
		if total > len(b) {
			t.Fatalf("names of %d bytes from %d", total, len(b))
		}
	})
}

// TestType: each d_type is the type os gives; DT_UNKNOWN and an unknown
// value are not known (the caller lstat's the entry).
func TestType(t *testing.T) {
	for _, c := range []struct {
		dtype byte
		typ   fs.FileMode
		known bool
	}{
		{syscall.DT_REG, 0, true},
		{syscall.DT_DIR, fs.ModeDir, true},
		{syscall.DT_LNK, fs.ModeSymlink, true},
		{syscall.DT_FIFO, fs.ModeNamedPipe, true},
		{syscall.DT_SOCK, fs.ModeSocket, true},
		{syscall.DT_CHR, fs.ModeDevice | fs.ModeCharDevice, true},
		{syscall.DT_BLK, fs.ModeDevice, true},
		{syscall.DT_UNKNOWN, 0, false},
		{99, 0, false},
	} {
		if typ, known := Type(c.dtype); typ != c.typ || known != c.known {
			t.Errorf("Type(%d) = %v, %v; want %v, %v", c.dtype, typ, known, c.typ, c.known)
		}
	}
}
