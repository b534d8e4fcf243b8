package cachetable

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// spec is a table of 4-byte keys and string values, at most two new
// entries or 10 bytes of them per run.
func spec() Spec[[4]byte, string] {
	return Spec[[4]byte, string]{
		Prefix: "t-", KeySize: 4, Key: func(k *[4]byte) []byte { return k[:] },
		Encode: func(dst []byte, v string) []byte { return append(dst, v...) },
		Decode: func(v []byte) (string, bool) { return string(v), len(v) > 0 && v[0] != '!' },
		MaxNew: 2, MaxBytes: 10, Size: func(v string) int { return len(v) },
	}
}

// TestTable checks the shape the git tables share: this run's entries
// answer first and are not counted, Add keeps and Put replaces them, the
// run's bounds hold, Drop forgets, Save writes them with the table's, a
// value that does not decode is a miss, and a table that is off answers
// nothing.
func TestTable(t *testing.T) {
	c := diskcache.New(t.TempDir())
	dir := t.TempDir()
	k := func(b byte) [4]byte { return [4]byte{b} }
	tb := New(c, dir, spec())
	if !tb.Add(k(1), "one") || tb.Add(k(1), "uno") || !tb.Put(k(1), "ein") {
		t.Fatal("Add must keep a value, Put replace it")
	}
	if !tb.Add(k(2), "two") || tb.Add(k(3), "three") {
		t.Fatal("MaxNew: a third entry was kept")
	}
	if v, fresh, ok := tb.Get(k(1)); v != "ein" || !fresh || !ok {
		t.Fatalf("Get(1) = %q %v %v", v, fresh, ok)
	}
	if !tb.Put(k(2), "2") || tb.Pending() != 2 {
		t.Fatalf("a replacement counts no new entry: %d", tb.Pending())
	}
	must(t, tb.Save())
	if tb.Pending() != 0 {
		t.Fatal("Save kept the entries pending")
	}
	again := New(c, dir, spec())
	if again.Name() != tb.Name() || tb.Name() == "" {
		t.Fatalf("names %q, %q", again.Name(), tb.Name())
	}
	for _, tc := range []struct {
		k    byte
		want string
		ok   bool
	}{{1, "ein", true}, {2, "2", true}, {3, "", false}} {
		if v, fresh, ok := again.Get(k(tc.k)); v != tc.want || fresh || ok != tc.ok {
			t.Errorf("Get(%d) = %q %v %v", tc.k, v, fresh, ok)
		}
	}
	again.Refuse()
	if s := again.Stats(); s != (Stats{Hits: 1, Misses: 1, Refused: 1}) {
		t.Errorf("stats %+v", s)
	}
	if !again.Add(k(4), "0123456789") || again.Add(k(5), "x") {
		t.Error("MaxBytes: an entry past 10 bytes was kept")
	}
	again.Drop()
	if again.Pending() != 0 || again.Save() != nil {
		t.Error("Drop kept entries")
	}
	// a value that does not decode
	b := diskcache.NewBuilder(4)
	b.Add([]byte{9, 0, 0, 0}, []byte("!bad"))
	must(t, c.Write(tb.Name(), nil, b))
	third := New(c, dir, spec())
	if _, _, ok := third.Get(k(9)); ok || third.Stats().Misses != 1 {
		t.Errorf("a value that does not decode: %v %+v", ok, third.Stats())
	}
	if raw, ok := third.Saved(k(9)); !ok || string(raw) != "!bad" {
		t.Errorf("Saved(9) = %q %v", raw, ok)
	}
	// off
	for _, off := range []*Table[[4]byte, string]{nil, New[[4]byte, string](nil, dir, spec()), New(c, filepath.Join(dir, "none"), spec())} {
		if off.Open() || off.Add(k(1), "x") || off.Pending() != 0 || off.Save() != nil || off.Name() != "" {
			t.Error("a table that is off kept something")
		}
		if _, _, ok := off.Get(k(1)); ok {
			t.Error("a table that is off answered")
		}
		off.Drop()
	}
}

// TestTablesOfTwoFolders checks that the same prefix names other tables
// for other folders.
func TestTablesOfTwoFolders(t *testing.T) {
	c := diskcache.New(t.TempDir())
	a, b := New(c, t.TempDir(), spec()), New(c, t.TempDir(), spec())
	if a.Name() == "" || a.Name() == b.Name() {
		t.Fatalf("names %q and %q", a.Name(), b.Name())
	}
	a.Add([4]byte{1}, "a")
	must(t, a.Save())
	if _, _, ok := b.Get([4]byte{1}); ok {
		t.Fatal("b read a's entry")
	}
}

// TestWriteBoundedStartsOver checks that a table whose file is within a
// run's additions of its bound is written again with the run's entries
// only, and one below it with both.
func TestWriteBoundedStartsOver(t *testing.T) {
	c := diskcache.New(t.TempDir())
	first := diskcache.NewBuilder(20)
	for i := 0; i < 100; i++ {
		first.Add(bytes.Repeat([]byte{byte(i)}, 20), make([]byte, 100))
	}
	must(t, c.Write("x", nil, first))
	fi, err := os.Stat(c.Path("x"))
	must(t, err)
	for _, tc := range []struct {
		bound int64
		want  int
	}{{fi.Size() + 1000, 101}, {fi.Size() + 10, 1}} {
		must(t, c.Write("x", nil, first)) // back to the 100 entries
		read, _ := c.Open("x", 20)
		b := diskcache.NewBuilder(20)
		b.Add(bytes.Repeat([]byte{0xff}, 20), []byte("new"))
		must(t, WriteBounded(c, "x", read, b, 100, tc.bound))
		got, _ := c.Open("x", 20)
		if got.Len() != tc.want {
			t.Errorf("bound %d: %d entries, want %d", tc.bound, got.Len(), tc.want)
		}
	}
}

// TestDigestOfARecreatedFolder: a git folder removed and made again at
// the same path names other tables, where the file system keeps birth
// times (ext4, xfs, btrfs, tmpfs), even with the same inode.
func TestDigestOfARecreatedFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "g")
	must(t, os.Mkdir(dir, 0o700))
	if birthTime(dir) == "" {
		t.Skip("no birth times here")
	}
	before := Digest(dir)
	fi1, err := os.Stat(dir)
	must(t, err)
	time.Sleep(10 * time.Millisecond)
	must(t, os.Remove(dir))
	must(t, os.Mkdir(dir, 0o700))
	fi2, err := os.Stat(dir)
	must(t, err)
	if after := Digest(dir); after == before {
		t.Fatalf("a recreated folder (same inode: %v) names the same tables", os.SameFile(fi1, fi2))
	}
	if again := Digest(dir); again != Digest(dir) {
		t.Fatal("the digest is not stable")
	}
}
