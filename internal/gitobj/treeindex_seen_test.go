package gitobj

import (
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/memory"
)

// TestTreeIndexCacheSeenStartsOver: once maxSeenTrees trees have been met
// once, the set of them starts over instead of refusing new ones, so a
// tree first met late in a run (the 200th workflow's) is still kept on its
// second look-up.
func TestTreeIndexCacheSeenStartsOver(t *testing.T) {
	st := memory.NewStorage()
	obj := st.NewEncodedObject()
	obj.SetType(plumbing.TreeObject)
	w, err := obj.Writer()
	must(t, err)
	_, err = w.Write(rawTree("100644", "a", "040000", "b"))
	must(t, err)
	must(t, w.Close())
	h, err := st.SetEncodedObject(obj)
	must(t, err)

	c := NewTreeIndexCache(st, 1<<20)
	for i := 0; i < maxSeenTrees; i++ {
		var other plumbing.Hash
		other[0], other[1], other[2] = byte(i), byte(i>>8), 0xee
		c.seen[other] = struct{}{}
	}
	if idx, _, err := c.Lookup(h); err != nil || idx != nil {
		t.Fatalf("first look-up: index %v, err %v; want the raw tree only", idx, err)
	}
	if len(c.seen) > maxSeenTrees {
		t.Fatalf("seen grew to %d, past %d", len(c.seen), maxSeenTrees)
	}
	idx, _, err := c.Lookup(h)
	if err != nil || idx == nil {
		t.Fatalf("second look-up: index %v, err %v; want it indexed", idx, err)
	}
	if _, kept := c.m[h]; !kept {
		t.Error("the tree met twice is not kept")
	}
}
