package gitobj

import (
	"container/list"

	"github.com/go-git/go-git/v5/plumbing"
)

// offsetCache is a least-recently-used cache of rebuilt objects keyed by
// their place in a pack, bounded in bytes.
type offsetCache struct {
	max, used int
	order     *list.List
	items     map[cacheKey]*list.Element
	// big is the last delta base over maxCachedObject rebuilt, kept apart
	// (git keeps its delta bases too): thousands of deltas over one large
	// base inflate it once.
	big *cacheEntry
}

type cacheKey struct {
	p   *packFile
	off int64
}

type cacheEntry struct {
	k    cacheKey
	t    plumbing.ObjectType
	data []byte
}

func newOffsetCache(max int) *offsetCache {
	return &offsetCache{max: max, order: list.New(), items: map[cacheKey]*list.Element{}}
}

func (c *offsetCache) get(p *packFile, off int64) (*cacheEntry, bool) {
	e, ok := c.items[cacheKey{p, off}]
	if !ok {
		if c.big != nil && c.big.k == (cacheKey{p, off}) {
			return c.big, true
		}
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cacheEntry), true
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
	c.items[k] = c.order.PushFront(&cacheEntry{k: k, t: t, data: data})
	c.used += len(data)
	for c.used > c.max {
		last := c.order.Back()
		e := last.Value.(*cacheEntry)
		c.order.Remove(last)
		delete(c.items, e.k)
		c.used -= len(e.data)
	}
}
