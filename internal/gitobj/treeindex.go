package gitobj

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// TreeIndexBudget is how many bytes of indexed trees a Repo keeps (raw
// content and entry offsets): history walks for many workflows go over the
// same trees, which are then read and indexed about once. Only a tree asked
// for a second time is kept, so a single walk over a long history keeps
// nothing but the hashes it has seen (at most maxSeenTrees, then it starts
// over). Past the budget the tree used least recently is dropped: what the
// cache holds stays live to the end of the run (validation comes after the
// walks), and each byte live costs about two of the process's memory (the
// GC runs at twice the live heap), so the budget is what the walks of many
// workflows need again soon, not every tree they ever met twice.
const (
	TreeIndexBudget = 4 << 20
	maxSeenTrees    = 1 << 12
)

// TreeIndex is a tree object's raw content and the offset of each entry
// ("mode SP name NUL hash"), so that a name is found by binary search
// instead of a scan of every entry.
type TreeIndex struct {
	Raw  []byte
	Offs []uint32
	// sorted is false when the entries are not in git's strict order (a
	// malformed tree): look-ups then scan every entry.
	Sorted bool
	// lazy is set for a tree read for a look-up by path and not kept
	// (lazyTreeIndex): offs is not built until a second name is looked up
	// in it, the first one found by a scan (looked). Only find may be
	// called on a lazy index.
	lazy, looked bool
}

// lazyTreeIndex is the index of the raw content of a tree that is looked
// up by path, most often for one name only (one of 5,000 paths, each in
// its own folder): find scans it for the first name and indexes it for
// the second.
func lazyTreeIndex(raw []byte) *TreeIndex {
	return &TreeIndex{Raw: raw, lazy: true}
}

// scanFind is find on a tree's raw content without an index: a scan of
// every whole entry, the last one of the name counting — what find
// answers in a sorted tree (a name at most once as a file then once as a
// folder, the folder found first) and in any other.
func scanFind(raw []byte, name string) (e RawEntry, ok bool) {
	if name == "" {
		return RawEntry{}, false
	}
	if len(raw) > 1<<32-1 {
		raw = raw[:1<<32-1] // as newTreeIndex
	}
	eachEntry(raw, func(mode, n, hash []byte) {
		if string(n) == name {
			e, ok = ParseEntry(mode, hash), true
		}
	})
	return e, ok
}

// eachEntry calls f with the mode, name and hash of each whole entry of
// the raw tree, in order, up to its end or its first malformed entry.
func eachEntry(raw []byte, f func(mode, name, hash []byte)) {
	for len(raw) > 0 {
		sp := bytes.IndexByte(raw, ' ')
		if sp < 0 {
			return
		}
		nul := bytes.IndexByte(raw[sp+1:], 0)
		if nul < 0 || sp+1+nul+21 > len(raw) {
			return
		}
		f(raw[:sp], raw[sp+1:sp+1+nul], raw[sp+1+nul+1:sp+1+nul+21])
		raw = raw[sp+1+nul+21:]
	}
}

// NewTreeIndex indexes the raw content of a tree; a truncated last entry is
// ignored.
func NewTreeIndex(raw []byte) *TreeIndex {
	t := &TreeIndex{Raw: raw, Sorted: true, Offs: make([]uint32, 0, len(raw)/32+1)}
	if len(raw) > 1<<32-1 {
		raw = raw[:1<<32-1] // offsets are 32-bit: entries past 4 GiB are not seen
	}
	var prev []byte
	prevDir := false
	for i := 0; i < len(raw); {
		sp := bytes.IndexByte(raw[i:], ' ')
		if sp < 0 {
			break
		}
		nul := bytes.IndexByte(raw[i+sp+1:], 0)
		if nul < 0 || i+sp+1+nul+21 > len(raw) {
			break
		}
		name := raw[i+sp+1 : i+sp+1+nul]
		dir := IsDirMode(raw[i : i+sp])
		if len(t.Offs) > 0 && CompareNames(prev, prevDir, name, dir) >= 0 {
			t.Sorted = false
		}
		prev, prevDir = name, dir
		t.Offs = append(t.Offs, uint32(i))
		i += sp + 1 + nul + 21
	}
	return t
}

// size is what the index holds, for the cache's budget.
func (t *TreeIndex) size() int { return len(t.Raw) + 4*cap(t.Offs) + 64 }

// At returns the mode bytes, name and hash offset of entry i.
func (t *TreeIndex) At(i int) (mode, name []byte, hashAt int) {
	off := int(t.Offs[i])
	e := t.Raw[off:]
	sp := bytes.IndexByte(e, ' ')
	nul := bytes.IndexByte(e[sp+1:], 0)
	return e[:sp], e[sp+1 : sp+1+nul], off + sp + 1 + nul + 1
}

// entry returns entry i.
func (t *TreeIndex) entry(i int) RawEntry {
	mode, _, h := t.At(i)
	m, _ := filemode.New(string(mode))
	var hh plumbing.Hash
	copy(hh[:], t.Raw[h:h+20])
	return RawEntry{m, hh}
}

// Find returns the entry called name; ok is false when there is none. In a
// malformed tree with the name twice, the last one counts.
func (t *TreeIndex) Find(name string) (e RawEntry, ok bool) {
	if t == nil || name == "" {
		return RawEntry{}, false
	}
	if t.lazy {
		if !t.looked {
			t.looked = true
			return scanFind(t.Raw, name)
		}
		idx := NewTreeIndex(t.Raw)
		t.Offs, t.Sorted, t.lazy = idx.Offs, idx.Sorted, false
	}
	if !t.Sorted {
		for i := range t.Offs {
			if _, n, _ := t.At(i); string(n) == name {
				e, ok = t.entry(i), true
			}
		}
		return e, ok
	}
	// A folder sorts as if its name ended in '/': look for both keys, the
	// folder's first (it sorts after a file of its name, so it is the last
	// one when a malformed tree has both, as scanTree takes it).
	nb := []byte(name)
	for _, dir := range [2]bool{true, false} {
		i := sort.Search(len(t.Offs), func(i int) bool {
			mode, n, _ := t.At(i)
			return CompareNames(n, IsDirMode(mode), nb, dir) >= 0
		})
		if i < len(t.Offs) {
			if mode, n, _ := t.At(i); string(n) == name && IsDirMode(mode) == dir {
				return t.entry(i), true
			}
		}
	}
	return RawEntry{}, false
}

// IsDirMode reports whether a tree entry's mode is a folder's (git sorts
// those as if their name ended in '/').
func IsDirMode(mode []byte) bool {
	return string(mode) == "40000" || string(mode) == "040000"
}

// CompareNames compares tree entry names in git's tree order. Names are
// short: a byte loop beats a call to bytes.Compare.
func CompareNames(a []byte, aDir bool, b []byte, bDir bool) int {
	n := min(len(a), len(b))
	a, b = a[:len(a):len(a)], b[:len(b):len(b)]
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	ca, cb := nameEnd(a, n, aDir), nameEnd(b, n, bDir)
	switch {
	case ca < cb:
		return -1
	case ca > cb:
		return 1
	}
	return 0
}

func nameEnd(s []byte, n int, dir bool) byte {
	switch {
	case n < len(s):
		return s[n]
	case dir:
		return '/'
	}
	return 0
}

// TreeIndexCache reads and indexes trees, keeping those asked for twice
// within its byte budget, the least recently used dropped first (any other
// is indexed for the caller only). A tree dropped is read again when next
// asked for, and verified again then: the budget changes what is read,
// never an answer. It is safe for concurrent use.
type TreeIndexCache struct {
	s    storer.EncodedObjectStorer
	mu   sync.Mutex
	m    map[plumbing.Hash]*keptTree
	seen map[plumbing.Hash]struct{} // trees read once, not kept
	// lru is the ring of kept trees, most recently used first (lru.next);
	// used is the bytes they hold (TreeIndex.size), at most max.
	lru  keptTree
	used int
	max  int
	// Verify, when not nil, checks each tree read (a gitverify.Verifier).
	Verify ObjectChecker
	ahead  []AheadTree // trees read ahead of a walk (see treeahead.go)
}

// ObjectChecker checks an object read against the hash that names it, now
// or later (internal/gitverify's Verifier).
type ObjectChecker interface {
	Check(t plumbing.ObjectType, h plumbing.Hash, content []byte)
}

// keptTree is a kept tree in the cache's ring of recent use.
type keptTree struct {
	h          plumbing.Hash
	t          *TreeIndex
	prev, next *keptTree
}

// NewTreeIndexCache returns a cache reading trees from s that keeps at most
// max bytes of them.
func NewTreeIndexCache(s storer.EncodedObjectStorer, max int) *TreeIndexCache {
	c := &TreeIndexCache{s: s, m: map[plumbing.Hash]*keptTree{}, seen: map[plumbing.Hash]struct{}{}, max: max}
	c.lru.prev, c.lru.next = &c.lru, &c.lru
	return c
}

// Get returns the index of tree h.
func (c *TreeIndexCache) Get(h plumbing.Hash) (*TreeIndex, error) {
	t, raw, err := c.Lookup(h)
	if t == nil && err == nil {
		t = NewTreeIndex(raw)
	}
	return t, err
}

// GetLazy is get for a look-up by path: a tree not kept is indexed only
// when a second name is looked up in it (see lazyTreeIndex).
func (c *TreeIndexCache) GetLazy(h plumbing.Hash) (*TreeIndex, error) {
	t, raw, err := c.Lookup(h)
	if t == nil && err == nil {
		t = lazyTreeIndex(raw)
	}
	return t, err
}

// Lookup returns the kept index of tree h, or else its raw content; a tree
// looked up a second time is indexed and kept (within the budget, the
// least recently used dropped for it).
func (c *TreeIndexCache) Lookup(h plumbing.Hash) (*TreeIndex, []byte, error) {
	c.mu.Lock()
	k, ok := c.m[h]
	if ok {
		c.unlink(k)
		c.pushFront(k)
		c.mu.Unlock()
		return k.t, nil, nil
	}
	raw, ahead := c.offered(h)
	c.mu.Unlock()
	if !ahead {
		obj, err := c.s.EncodedObject(plumbing.TreeObject, h)
		if err != nil {
			return nil, nil, fmt.Errorf("read tree %s: %w", h, err)
		}
		if raw, err = ObjectBytes(obj); err != nil {
			return nil, nil, fmt.Errorf("read tree %s: %w", h, err)
		}
	}
	if c.Verify != nil {
		c.Verify.Check(plumbing.TreeObject, h, raw)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, again := c.seen[h]; !again {
		if len(c.seen) >= maxSeenTrees {
			// start over rather than stop remembering: trees met late in a
			// run (the 200th workflow's) can still be kept
			clear(c.seen)
		}
		c.seen[h] = struct{}{}
		return nil, raw, nil
	}
	t := NewTreeIndex(raw)
	if _, dup := c.m[h]; !dup && t.size() <= c.max {
		for c.used+t.size() > c.max {
			c.drop(c.lru.prev)
		}
		k := &keptTree{h: h, t: t}
		c.m[h] = k
		c.pushFront(k)
		c.used += t.size()
		delete(c.seen, h)
	}
	return t, nil, nil
}

// kept returns how many trees c keeps and the bytes they hold.
func (c *TreeIndexCache) kept() (trees, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m), c.used
}

// pushFront puts k first in the ring (most recently used); c.mu is held.
func (c *TreeIndexCache) pushFront(k *keptTree) {
	k.prev, k.next = &c.lru, c.lru.next
	c.lru.next.prev = k
	c.lru.next = k
}

// unlink takes k out of the ring; c.mu is held.
func (c *TreeIndexCache) unlink(k *keptTree) {
	k.prev.next, k.next.prev = k.next, k.prev
	k.prev, k.next = nil, nil
}

// drop forgets kept tree k; c.mu is held.
func (c *TreeIndexCache) drop(k *keptTree) {
	c.unlink(k)
	delete(c.m, k.h)
	c.used -= k.t.size()
}

// RawEntry is a tree entry: its mode and hash.
type RawEntry struct {
	Mode filemode.FileMode
	Hash plumbing.Hash
}

// ParseEntry builds an entry from its mode bytes and 20-byte hash.
func ParseEntry(mode, hash []byte) RawEntry {
	m, _ := filemode.New(string(mode))
	var hh plumbing.Hash
	copy(hh[:], hash)
	return RawEntry{m, hh}
}

// Blob is the entry's blob hash, zero when it is not a file.
func (e RawEntry) Blob() plumbing.Hash {
	if !IsBlob(e.Mode) {
		return plumbing.ZeroHash
	}
	return e.Hash
}

// Dir is the entry's tree hash, zero when it is not a folder.
func (e RawEntry) Dir() plumbing.Hash {
	if e.Mode != filemode.Dir {
		return plumbing.ZeroHash
	}
	return e.Hash
}

// ObjectBytes returns obj's content, without a copy when the pack reader
// read it.
func ObjectBytes(obj plumbing.EncodedObject) ([]byte, error) {
	if po, ok := obj.(*packedObject); ok {
		return po.data, nil
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(rd)
	if cerr := rd.Close(); err == nil {
		err = cerr
	}
	return raw, err
}

func IsBlob(m filemode.FileMode) bool {
	return m == filemode.Regular || m == filemode.Executable || m == filemode.Symlink || m == filemode.Deprecated
}

// HasTwin reports whether the well-formed tree t holds, besides its entry
// i (name, a folder when dir), an entry of the same name of the other
// kind. A folder sorts as its name followed by '/': between a file and a
// folder of one name there are only names that extend it with a byte
// before '/'.
func (t *TreeIndex) HasTwin(i int, name []byte, dir bool) bool {
	step := 1
	if dir {
		step = -1
	}
	for x := i + step; x >= 0 && x < len(t.Offs); x += step {
		mode, n, _ := t.At(x)
		if !bytes.HasPrefix(n, name) {
			return false
		}
		if len(n) == len(name) {
			return IsDirMode(mode) != dir
		}
		if n[len(name)] >= '/' {
			return false
		}
	}
	return false
}

// WellFormed reports whether t is in git's strict order and its entries
// fill its content to the end.
func (t *TreeIndex) WellFormed() bool {
	if !t.Sorted {
		return false
	}
	if len(t.Offs) == 0 {
		return len(t.Raw) == 0
	}
	_, _, h := t.At(len(t.Offs) - 1)
	return h+20 == len(t.Raw)
}

// End returns where entry i of t ends.
func (t *TreeIndex) End(i int) int {
	if i+1 < len(t.Offs) {
		return int(t.Offs[i+1])
	}
	return len(t.Raw)
}
