package gitobj

import (
	"github.com/go-git/go-git/v5/plumbing"
)

// offsetCache is a least-recently-used cache of rebuilt objects keyed by
// their place in a pack, bounded in bytes. Its entries are the links of
// their own list (one allocation an entry, none to move one).
type offsetCache struct {
	max, used int
	// head is the list's sentinel: head.next the most recently used entry,
	// head.prev the least.
	head  cacheEntry
	items map[cacheKey]*cacheEntry
	// big is the last delta base over maxCachedObject rebuilt, kept apart
	// (git keeps its delta bases too): thousands of deltas over one large
	// base inflate it once.
	big *cacheEntry
	// free holds, up to maxFreeBytes, the buffers of evicted entries that
	// no reader was ever given (delta bases only): the next object rebuilt
	// from a delta is built in one of them instead of a new allocation (a
	// walk's trees are deltas 50 deep, each link rebuilt once).
	free      [][]byte
	freeBytes int
	reused    int // buffers given out again (tests)
	// spare are evicted entries, for put to fill again (no reader keeps
	// an entry: read takes its fields at once).
	spare []*cacheEntry
}

// maxFreeBytes and maxFreeBuffers bound the evicted buffers an
// offsetCache keeps for reuse (buffer looks through them all);
// minFreeBuffer is the smallest kept (a smaller one costs little to
// allocate).
const (
	maxFreeBytes   = 512 << 10
	maxFreeBuffers = 32
	minFreeBuffer  = 1 << 10
	// maxSpareEntries bounds the evicted entries kept for reuse.
	maxSpareEntries = 64
)

type cacheKey struct {
	p   *packFile
	off int64
}

type cacheEntry struct {
	k          cacheKey
	t          plumbing.ObjectType
	data       []byte
	prev, next *cacheEntry
	// lent is set once data was given to a reader (it may keep it): the
	// buffer is then never reused.
	lent bool
}

func newOffsetCache(max int) *offsetCache {
	c := &offsetCache{max: max, items: map[cacheKey]*cacheEntry{}}
	c.head.prev, c.head.next = &c.head, &c.head
	return c
}

func (c *offsetCache) get(p *packFile, off int64) (*cacheEntry, bool) {
	e, ok := c.items[cacheKey{p, off}]
	if !ok {
		if c.big != nil && c.big.k == (cacheKey{p, off}) {
			return c.big, true
		}
		return nil, false
	}
	c.unlink(e)
	c.pushFront(e)
	return e, true
}

// put keeps data, the object at off in p; one over maxCachedObject is kept
// only when it is a delta's base (base), alone in its slot.
func (c *offsetCache) put(p *packFile, off int64, t plumbing.ObjectType, data []byte, base bool) {
	if len(data) > maxCachedObject {
		if base {
			c.big = &cacheEntry{k: cacheKey{p, off}, t: t, data: data}
		}
		return
	}
	k := cacheKey{p, off}
	if _, ok := c.items[k]; ok {
		return
	}
	var e *cacheEntry
	if n := len(c.spare); n > 0 {
		e, c.spare = c.spare[n-1], c.spare[:n-1]
	} else {
		e = new(cacheEntry)
	}
	*e = cacheEntry{k: k, t: t, data: data, lent: !base}
	c.items[k] = e
	c.pushFront(e)
	c.used += len(data)
	for c.used > c.max {
		last := c.head.prev
		c.unlink(last)
		delete(c.items, last.k)
		c.used -= len(last.data)
		if last != e && !last.lent { // e is in use: its reader's, or its caller's base
			c.release(last.data)
		}
		if last != e && len(c.spare) < maxSpareEntries {
			*last = cacheEntry{}
			c.spare = append(c.spare, last)
		}
	}
}

// release keeps b, a buffer no one holds, for buffer to give out again.
func (c *offsetCache) release(b []byte) {
	if cap(b) < minFreeBuffer || c.freeBytes+cap(b) > maxFreeBytes || len(c.free) >= maxFreeBuffers {
		return
	}
	c.free = append(c.free, b[:0])
	c.freeBytes += cap(b)
}

// buffer returns an empty buffer of at least n and at most n+n/8 bytes of
// capacity, taken from the evicted ones; nil when none fits.
func (c *offsetCache) buffer(n int) []byte {
	if n < minFreeBuffer {
		return nil
	}
	for i, b := range c.free {
		if cap(b) >= n && cap(b) <= n+n/8 {
			last := len(c.free) - 1
			c.free[i], c.free[last] = c.free[last], nil
			c.free = c.free[:last]
			c.freeBytes -= cap(b)
			c.reused++
			return b
		}
	}
	return nil
}

func (c *offsetCache) unlink(e *cacheEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
}

func (c *offsetCache) pushFront(e *cacheEntry) {
	e.prev, e.next = &c.head, c.head.next
	e.next.prev, c.head.next = e, e
}
