package diskcache

import (
	"fmt"
	"path/filepath"
	"testing"
)

// A prefetched table is the one Open reads (taken once: the next Open
// reads the file again); a write after the prefetch is seen by the Open
// after it (the prefetched table is dropped); a prefetch of another key
// size is not given; a cache that is off prefetches nothing.
func TestPrefetch(t *testing.T) {
	c := New(filepath.Join(t.TempDir(), "cache"))
	write := func(n int) { // the table anew, without opening it
		t.Helper()
		b := NewBuilder(20)
		for i := range n {
			b.Add(key(fmt.Sprint(i)), []byte(fmt.Sprint("v", i)))
		}
		if err := c.Write("t", nil, b); err != nil {
			t.Fatal(err)
		}
	}
	write(10)
	c.Prefetch("t", 20)
	c.Prefetch("t", 20) // already being read: nothing more
	tb, err := c.Open("t", 20)
	if err != nil || tb.Len() != 10 {
		t.Fatalf("prefetched: %v, %d entries", err, tb.Len())
	}
	if got, ok := tb.Get(key("3")); !ok || string(got) != "v3" {
		t.Fatalf("prefetched Get = %q %v", got, ok)
	}
	if _, ok := c.pre.Load("t"); ok {
		t.Fatal("the prefetched table is kept after its Open")
	}

	c.Prefetch("t", 20)
	if v, ok := c.pre.Load("t"); ok {
		<-v.(*prefetched).done // read before the write
	}
	write(20)
	if tb, err := c.Open("t", 20); err != nil || tb.Len() != 20 {
		t.Fatalf("after a write: %v, %d entries, want the 20 written", err, tb.Len())
	}

	c.Prefetch("t", 32)
	if tb, err := c.Open("t", 20); err != nil || tb.Len() != 20 || tb.keySize != 20 {
		t.Fatalf("another key size prefetched: %v, %d entries", err, tb.Len())
	}

	var off *Cache
	off.Prefetch("t", 20)
	if tb, err := off.Open("t", 20); err != nil || tb.Len() != 0 {
		t.Fatalf("off: %v, %d", err, tb.Len())
	}
}
