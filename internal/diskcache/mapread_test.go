package diskcache

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// bigTable writes table name to c with n entries of 200-byte values (over
// mapMin from ~330 entries on) and returns the values by key.
func bigTable(t *testing.T, c *Cache, name string, n int) map[string][]byte {
	t.Helper()
	b := NewBuilder(20)
	want := map[string][]byte{}
	for i := 0; i < n; i++ {
		k, v := key(fmt.Sprint(name, i)), bytes.Repeat([]byte{byte(i)}, 200)
		b.Add(k, v)
		want[string(k)] = v
	}
	if err := c.Write(name, &Table{keySize: 20}, b); err != nil {
		t.Fatal(err)
	}
	return want
}

// TestOpenMapsBigTables: a table of mapMin bytes or more is mapped (the
// process's mapped bytes grow by its size) and answers as a read one; a
// smaller one is read; past mapLimit tables are read again.
func TestOpenMapsBigTables(t *testing.T) {
	c := New(filepath.Join(t.TempDir(), "cache"))
	for _, tc := range []struct {
		name    string
		n       int
		limit   int64
		mapped  bool
		entries int
	}{
		{"big", 2000, 256 << 20, true, 2000},
		{"small", 20, 256 << 20, false, 20},
		{"over-the-limit", 2000, 1 << 10, false, 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := mapLimit
			mapLimit = tc.limit
			defer func() { mapLimit = old }()
			want := bigTable(t, c, tc.name, tc.n)
			fi, err := os.Stat(c.Path(tc.name))
			if err != nil {
				t.Fatal(err)
			}
			before := mappedBytes.Load()
			tb, err := c.Open(tc.name, 20)
			if err != nil || tb.Len() != tc.entries {
				t.Fatalf("Open: %v, %d entries", err, tb.Len())
			}
			grew := mappedBytes.Load() - before
			if tc.mapped && grew != fi.Size() || !tc.mapped && grew != 0 {
				t.Fatalf("mapped %d bytes of a %d-byte table (mapped: %v)", grew, fi.Size(), tc.mapped)
			}
			for k, v := range want {
				if got, ok := tb.Get([]byte(k)); !ok || !bytes.Equal(got, v) {
					t.Fatalf("Get %x: %v %x", k, ok, got)
				}
			}
		})
	}
}

// TestDamagedMappedTableIsUnmapped: a mapped table whose MAC fails reads
// as empty, and its mapping is given back (nothing points into it).
func TestDamagedMappedTableIsUnmapped(t *testing.T) {
	c := New(filepath.Join(t.TempDir(), "cache"))
	bigTable(t, c, "t", 2000)
	p := c.Path("t")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 1
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	before := mappedBytes.Load()
	tb, err := c.Open("t", 20)
	if err == nil || tb.Len() != 0 {
		t.Fatalf("a damaged table: %v, %d entries", err, tb.Len())
	}
	if got := mappedBytes.Load(); got != before {
		t.Fatalf("mapped bytes %d → %d after a damaged table", before, got)
	}
}
