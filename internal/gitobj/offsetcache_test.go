package gitobj

import (
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestOffsetCache: entries are evicted least recently used first, a get
// counts as a use, the bytes kept stay under the bound, and an object over
// maxCachedObject is kept alone, and only as a delta's base.
func TestOffsetCache(t *testing.T) {
	p := &packFile{}
	c := newOffsetCache(100)
	obj := func(n int) []byte { return make([]byte, n) }
	c.put(p, 1, plumbing.BlobObject, obj(40), false)
	c.put(p, 2, plumbing.TreeObject, obj(40), false)
	if e, ok := c.get(p, 1); !ok || e.t != plumbing.BlobObject || len(e.data) != 40 {
		t.Fatalf("get(1) = %v, %v", e, ok)
	}
	c.put(p, 3, plumbing.BlobObject, obj(40), false) // evicts 2, the least recently used
	c.put(p, 3, plumbing.BlobObject, obj(90), false) // already there: kept as it was
	for off, want := range map[int64]bool{1: true, 2: false, 3: true} {
		if _, ok := c.get(p, off); ok != want {
			t.Errorf("get(%d) found %v, want %v", off, ok, want)
		}
	}
	if c.used != 80 || len(c.items) != 2 {
		t.Errorf("used %d bytes in %d entries, want 80 in 2", c.used, len(c.items))
	}
	c.put(p, 4, plumbing.BlobObject, obj(100), false) // evicts both
	if _, ok := c.get(p, 1); ok || c.used != 100 || len(c.items) != 1 {
		t.Errorf("after a 100-byte put: used %d in %d entries", c.used, len(c.items))
	}
	c.put(p, 5, plumbing.BlobObject, obj(101), false) // over the bound: evicts itself too
	if c.used != 0 || len(c.items) != 0 || c.head.next != &c.head || c.head.prev != &c.head {
		t.Errorf("after a 101-byte put: used %d in %d entries", c.used, len(c.items))
	}
	c.put(p, 6, plumbing.BlobObject, obj(maxCachedObject+1), false)
	if _, ok := c.get(p, 6); ok {
		t.Error("a large object that is no delta's base was kept")
	}
	c.put(p, 7, plumbing.BlobObject, obj(maxCachedObject+1), true)
	c.put(p, 8, plumbing.BlobObject, obj(maxCachedObject+1), true)
	if _, ok := c.get(p, 7); ok {
		t.Error("a large base outlived the next one")
	}
	if e, ok := c.get(p, 8); !ok || len(e.data) != maxCachedObject+1 {
		t.Error("the last large base was not kept")
	}
	// many entries: the list and the map stay in step
	for i := range 1000 {
		c.put(p, int64(100+i), plumbing.BlobObject, obj(i%30), false)
		c.get(p, int64(100+i/2))
	}
	n, used := 0, 0
	for e := c.head.next; e != &c.head; e = e.next {
		if c.items[e.k] != e || e.next.prev != e {
			t.Fatalf("entry %d: list and map disagree", e.k.off)
		}
		n, used = n+1, used+len(e.data)
	}
	if n != len(c.items) || used != c.used || used > c.max {
		t.Errorf("list holds %d entries of %d bytes, map %d, used %d (max %d)", n, used, len(c.items), c.used, c.max)
	}
}
