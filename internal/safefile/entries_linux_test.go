package safefile

import (
	"encoding/binary"
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

// TestDirentRecords: whole records give their names and types but "." and
// ".."; a record cut short, or of a length below the header or past the
// buffer, ends the listing with no entry made of it.
func TestDirentRecords(t *testing.T) {
	var buf []byte
	for _, n := range []string{".", "a.md", "..", "sub", "x"} {
		buf = append(buf, dirent(n, 8)...)
	}
	var got []string
	ok := direntRecords(buf, func(name []byte, dtype byte) bool {
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
		if direntRecords(bad, func([]byte, byte) bool { n++; return true }) {
			t.Errorf("%x: taken as whole", bad)
		}
	}
	stop := 0
	if direntRecords(buf, func([]byte, byte) bool { stop++; return false }) || stop != 1 {
		t.Errorf("fn's stop: %d calls", stop)
	}
}

// FuzzDirentRecords: any bytes give names inside the buffer, without a NUL,
// never "." or "..", and never loop or panic.
func FuzzDirentRecords(f *testing.F) {
	f.Add(append(dirent("a.md", 8), dirent("..", 4)...))
	f.Add(dirent("x", 0)[:10])
	f.Fuzz(func(t *testing.T, b []byte) {
		total := 0
		direntRecords(b, func(name []byte, _ byte) bool {
			total += len(name)
			for _, c := range name {
				if c == 0 {
					t.Fatalf("a name with a NUL: %q", name)
				}
			}
			if string(name) == "." || string(name) == ".." {
				t.Fatalf("gave %q", name)
			}
			return true
		})
		if total > len(b) {
			t.Fatalf("names of %d bytes from %d", total, len(b))
		}
	})
}
