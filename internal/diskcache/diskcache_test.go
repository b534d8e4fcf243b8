package diskcache

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func key(s string) []byte {
	k := sha256.Sum256([]byte(s))
	return k[:20]
}

func TestDir(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"override", map[string]string{EnvDir: "/c", "HOME": "/h"}, "/c"},
		{"off", map[string]string{EnvDir: "off", "HOME": "/h"}, ""},
		{"relative override is off", map[string]string{EnvDir: "rel", "HOME": "/h"}, ""},
		{"xdg", map[string]string{"XDG_CACHE_HOME": "/x", "HOME": "/h"}, "/x/orchestrate"},
		{"relative xdg ignored", map[string]string{"XDG_CACHE_HOME": "x", "HOME": "/h"}, "/h/.cache/orchestrate"},
		{"home", map[string]string{"HOME": "/h"}, "/h/.cache/orchestrate"},
		{"nothing", map[string]string{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Dir(func(k string) string { return tt.env[k] }); got != tt.want {
				t.Fatalf("Dir = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWriteOpenMerge(t *testing.T) {
	c := New(filepath.Join(t.TempDir(), "cache"))
	old, err := c.Open("t", 20)
	if err != nil || old.Len() != 0 {
		t.Fatalf("missing table: %v, %d entries", err, old.Len())
	}
	b := NewBuilder(20)
	for i := 0; i < 500; i++ {
		b.Add(key(fmt.Sprint(i)), []byte(fmt.Sprint("v", i)))
	}
	b.Add(key("empty"), nil)
	if err := c.Write("t", old, b); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(c.dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("cache folder: %v %v", fi.Mode(), err)
	}
	t1, err := c.Open("t", 20)
	if err != nil || t1.Len() != 501 {
		t.Fatalf("reopen: %v, %d entries", err, t1.Len())
	}
	b2 := NewBuilder(20)
	b2.Add(key("7"), []byte("seven"))
	b2.Add(key("new"), []byte("n"))
	if err := c.Write("t", t1, b2); err != nil {
		t.Fatal(err)
	}
	t2, err := c.Open("t", 20)
	if err != nil || t2.Len() != 502 {
		t.Fatalf("merged: %v, %d entries", err, t2.Len())
	}
	for k, want := range map[string]string{"7": "seven", "new": "n", "499": "v499", "0": "v0", "empty": ""} {
		got, ok := t2.Get(key(k))
		if !ok || string(got) != want {
			t.Errorf("Get(%s) = %q %v, want %q", k, got, ok, want)
		}
	}
	if _, ok := t2.Get(key("absent")); ok {
		t.Error("absent key found")
	}
	if _, ok := t2.Get([]byte("short")); ok {
		t.Error("short key found")
	}
	if other, err := c.Open("t", 32); err == nil || other.Len() != 0 {
		t.Errorf("another key size: %v, %d entries", err, other.Len())
	}
}

func TestOffWritesNothing(t *testing.T) {
	var c *Cache
	b := NewBuilder(20)
	b.Add(key("a"), []byte("b"))
	if err := c.Write("t", nil, b); err != nil {
		t.Fatal(err)
	}
	tb, err := c.Open("t", 20)
	if err != nil || tb.Len() != 0 {
		t.Fatal("an off cache read something")
	}
	if New("") != nil || c.Enabled() {
		t.Fatal("an empty folder is a cache that is on")
	}
}

func TestUnusableTables(t *testing.T) {
	write := func(t *testing.T) (*Cache, string) {
		c := New(filepath.Join(t.TempDir(), "cache"))
		b := NewBuilder(20)
		b.Add(key("a"), []byte("value"))
		if err := c.Write("t", nil, b); err != nil {
			t.Fatal(err)
		}
		return c, c.Path("t")
	}
	tests := []struct {
		name  string
		spoil func(t *testing.T, c *Cache, path string)
	}{
		{"flipped byte", func(t *testing.T, c *Cache, p string) {
			data, _ := os.ReadFile(p)
			data[len(data)-7] ^= 1
			os.WriteFile(p, data, 0o600)
		}},
		{"truncated", func(t *testing.T, c *Cache, p string) {
			data, _ := os.ReadFile(p)
			os.WriteFile(p, data[:len(data)-3], 0o600)
		}},
		{"empty file", func(t *testing.T, c *Cache, p string) { os.WriteFile(p, nil, 0o600) }},
		{"symlink", func(t *testing.T, c *Cache, p string) {
			os.Rename(p, p+".real")
			if err := os.Symlink(p+".real", p); err != nil {
				t.Skip(err)
			}
		}},
		{"writable by others", func(t *testing.T, c *Cache, p string) { os.Chmod(p, 0o666) }},
		{"folder writable by others", func(t *testing.T, c *Cache, p string) { os.Chmod(c.dir, 0o777) }},
		{"folder is a symlink", func(t *testing.T, c *Cache, p string) {
			os.Rename(c.dir, c.dir+".real")
			if err := os.Symlink(c.dir+".real", c.dir); err != nil {
				t.Skip(err)
			}
		}},
		{"a fifo", func(t *testing.T, c *Cache, p string) {
			os.Remove(p)
			if err := mkfifo(p); err != nil {
				t.Skip(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, p := write(t)
			tt.spoil(t, c, p)
			tb, err := c.Open("t", 20)
			if err == nil {
				t.Error("no error said why the table was not used")
			}
			if tb.Len() != 0 {
				t.Errorf("%d entries read from an unusable table", tb.Len())
			}
		})
	}
}

func TestSizeCapStartsOver(t *testing.T) {
	c := New(filepath.Join(t.TempDir(), "cache"))
	big := bytes.Repeat([]byte("x"), MaxTableSize/2)
	b := NewBuilder(20)
	b.Add(key("a"), big)
	if err := c.Write("t", nil, b); err != nil {
		t.Fatal(err)
	}
	old, err := c.Open("t", 20)
	if err != nil || old.Len() != 1 {
		t.Fatalf("%v %d", err, old.Len())
	}
	b2 := NewBuilder(20)
	b2.Add(key("b"), big)
	if err := c.Write("t", old, b2); err != nil {
		t.Fatal(err)
	}
	got, _ := c.Open("t", 20)
	if _, ok := got.Get(key("a")); ok || got.Len() != 1 {
		t.Fatalf("the table grew past its bound: %d entries", got.Len())
	}
	b3 := NewBuilder(20)
	b3.Add(key("c"), bytes.Repeat([]byte("x"), MaxTableSize))
	if err := c.Write("t", nil, b3); err == nil {
		t.Fatal("a table over the bound was written")
	}
}

func TestInvalidNames(t *testing.T) {
	c := New(t.TempDir())
	b := NewBuilder(20)
	b.Add(key("a"), nil)
	for _, n := range []string{"", "../x", "a/b", ".hidden", "x\n"} {
		if err := c.Write(n, nil, b); err == nil {
			t.Errorf("Write(%q) accepted", n)
		}
		if _, err := c.Open(n, 20); err == nil {
			t.Errorf("Open(%q) accepted", n)
		}
	}
}

func FuzzParse(f *testing.F) {
	b := NewBuilder(4)
	b.Add([]byte("abcd"), []byte("1"))
	b.Add([]byte("zzzz"), []byte("22"))
	c := New(f.TempDir())
	good, _ := c.encode("t", nil, b)
	good = good[:len(good)-macSize]
	f.Add(good, 4)
	f.Add(good[:len(good)-1], 4)
	f.Add([]byte("orchestrate-cache 2\n"), 4)
	f.Fuzz(func(t *testing.T, data []byte, ks int) {
		if ks <= 0 || ks > 64 {
			return
		}
		tb, err := parseBody(data, ks)
		if err != nil {
			return
		}
		for i := 0; i < tb.Len(); i++ {
			k := tb.keys[i*ks : (i+1)*ks]
			v, ok := tb.Get(k)
			if !ok || !bytes.Equal(v, tb.value(i)) {
				t.Fatalf("entry %d not found by its key", i)
			}
		}
		tb.Get(make([]byte, ks))
	})
}

func TestBuilderLaterAddWins(t *testing.T) {
	c := New(filepath.Join(t.TempDir(), "cache"))
	b := NewBuilder(20)
	for i := 0; i < 50; i++ {
		b.Add(key("k"), []byte(fmt.Sprint("v", i)))
		b.Add(key(fmt.Sprint("other", i)), []byte("o"))
	}
	if err := c.Write("t", nil, b); err != nil {
		t.Fatal(err)
	}
	tb, err := c.Open("t", 20)
	if err != nil || tb.Len() != 51 {
		t.Fatalf("%v, %d entries, want 51", err, tb.Len())
	}
	if v, _ := tb.Get(key("k")); string(v) != "v49" {
		t.Fatalf("Get(k) = %q, want the last value added", v)
	}
}

func TestPruneRemovesOldestTablesAndStaleTemps(t *testing.T) {
	c := New(filepath.Join(t.TempDir(), "cache"))
	val := bytes.Repeat([]byte("x"), 1000)
	for i, n := range []string{"a", "b", "c", "d"} {
		b := NewBuilder(20)
		b.Add(key(n), val)
		if err := c.Write(n, nil, b); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(time.Duration(i-10) * time.Minute)
		os.Chtimes(c.Path(n), when, when)
	}
	stale := filepath.Join(c.dir, ".x.tmp-1-1")
	fresh := filepath.Join(c.dir, ".y.tmp-1-2")
	os.WriteFile(stale, nil, 0o600)
	os.WriteFile(fresh, nil, 0o600)
	old := time.Now().Add(-2 * staleTemp)
	os.Chtimes(stale, old, old)
	os.WriteFile(filepath.Join(c.dir, "not a table"), val, 0o600)
	fi, _ := os.Stat(c.Path("a"))
	c.prune("a", 2*fi.Size())
	// total 4 tables, limit 2: the two oldest but the one kept go
	for n, want := range map[string]bool{"a": true, "b": false, "c": false, "d": true} {
		if _, err := os.Stat(c.Path(n)); (err == nil) != want {
			t.Errorf("table %s kept = %v, want %v", n, err == nil, want)
		}
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a stale temporary file was kept")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a fresh temporary file (a write in progress) was removed")
	}
	if _, err := os.Stat(filepath.Join(c.dir, "not a table")); err != nil {
		t.Error("a file not named as a table was removed")
	}
}

func TestReadingAnOldTableMarksItUsed(t *testing.T) {
	c := New(filepath.Join(t.TempDir(), "cache"))
	b := NewBuilder(20)
	b.Add(key("a"), []byte("v"))
	if err := c.Write("t", nil, b); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-3 * usedAfter)
	os.Chtimes(c.Path("t"), old, old)
	if tb, err := c.Open("t", 20); err != nil || tb.Len() != 1 {
		t.Fatalf("%v, %d entries", err, tb.Len())
	}
	fi, err := os.Stat(c.Path("t"))
	if err != nil || time.Since(fi.ModTime()) > time.Minute {
		t.Fatalf("a table read after %v still looks unused: modified %v (%v)", 3*usedAfter, fi.ModTime(), err)
	}
	recent := time.Now().Add(-time.Hour)
	os.Chtimes(c.Path("t"), recent, recent)
	c.Open("t", 20)
	if fi, _ := os.Stat(c.Path("t")); !fi.ModTime().Equal(recent) {
		t.Fatalf("a table read an hour after its write was touched: %v", fi.ModTime())
	}
}

// TestGetFindsEveryKey: Get finds each key of a table and no other, for
// key sizes under and over the 9 bytes its number compare takes, and keys
// that share their first 9 bytes (the compare of the rest decides).
func TestGetFindsEveryKey(t *testing.T) {
	c := New(filepath.Join(t.TempDir(), "cache"))
	rng := rand.New(rand.NewPCG(1, 2))
	for _, ks := range []int{4, 8, 9, 10, 32} {
		b := NewBuilder(ks)
		in := map[string]bool{}
		prefix := make([]byte, ks)
		for i := 0; i < 3000; i++ {
			k := make([]byte, ks)
			for j := range k {
				k[j] = byte(rng.IntN(4)) // few values: many shared prefixes
			}
			if i%3 == 0 { // a run of keys equal but for their last byte
				copy(k, prefix)
				k[ks-1] = byte(i)
			} else if i%3 == 1 {
				copy(prefix, k)
			}
			in[string(k)] = true
			b.Add(k, k)
		}
		name := fmt.Sprint("keys", ks)
		if err := c.Write(name, nil, b); err != nil {
			t.Fatal(err)
		}
		tab, err := c.Open(name, ks)
		if err != nil || tab.Len() != len(in) {
			t.Fatalf("size %d: %v, %d entries, want %d", ks, err, tab.Len(), len(in))
		}
		for k := range in {
			if v, ok := tab.Get([]byte(k)); !ok || string(v) != k {
				t.Fatalf("size %d: Get(%x) = %x %v", ks, k, v, ok)
			}
		}
		for i := 0; i < 3000; i++ {
			k := make([]byte, ks)
			for j := range k {
				k[j] = byte(rng.IntN(5))
			}
			if _, ok := tab.Get(k); ok != in[string(k)] {
				t.Fatalf("size %d: Get(%x) found %v, in the table %v", ks, k, ok, in[string(k)])
			}
		}
	}
}

// TestBuilderChunksGrow checks the builder's chunks: a small table holds one
// small chunk (not a whole builderChunk), and entries of every size, across
// chunks that double, one larger than builderChunk among them, all read back.
func TestBuilderChunksGrow(t *testing.T) {
	tests := []struct {
		name      string
		sizes     []int // value sizes, added in order
		maxChunks int   // at most this many chunks
		maxBytes  int   // at most this many bytes of chunks in all
	}{
		{"one entry", []int{10}, 1, builderFirstChunk},
		{"a few entries", []int{10, 100, 1000}, 1, builderFirstChunk},
		{"a value past the first chunk", []int{builderFirstChunk * 3}, 1, builderFirstChunk*3 + 20},
		{"many entries", repeat(2000, 500), 12, 4 * builderChunk},
		{"one value past builderChunk", append(repeat(50, 100), builderChunk+5, 7, 7), 5, 3 * builderChunk},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(filepath.Join(t.TempDir(), "cache"))
			b := NewBuilder(20)
			for i, n := range tt.sizes {
				b.Add(key(fmt.Sprint(i)), bytes.Repeat([]byte{byte(i)}, n))
			}
			total := 0
			for _, ch := range b.chunks {
				total += cap(ch)
			}
			if len(b.chunks) > tt.maxChunks || total > tt.maxBytes {
				t.Errorf("%d chunks of %d bytes in all, want at most %d chunks, %d bytes", len(b.chunks), total, tt.maxChunks, tt.maxBytes)
			}
			if err := c.Write("t", nil, b); err != nil {
				t.Fatal(err)
			}
			tb, err := c.Open("t", 20)
			if err != nil || tb.Len() != len(tt.sizes) {
				t.Fatalf("reopen: %v, %d entries, want %d", err, tb.Len(), len(tt.sizes))
			}
			for i, n := range tt.sizes {
				got, ok := tb.Get(key(fmt.Sprint(i)))
				if !ok || !bytes.Equal(got, bytes.Repeat([]byte{byte(i)}, n)) {
					t.Fatalf("entry %d (%d bytes): %v, %d bytes", i, n, ok, len(got))
				}
			}
		})
	}
}

// repeat is n values of size bytes.
func repeat(n, size int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = size
	}
	return out
}
