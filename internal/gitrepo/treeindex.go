package gitrepo

import (
	"bytes"
	"fmt"
	"sort"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// treeIndexBudget is how many bytes of indexed trees a Repo keeps (raw
// content and entry offsets): history walks for many workflows go over the
// same trees, which are then read and indexed about once. Only a tree asked
// for a second time is kept, so a single walk over a long history keeps
// nothing but the hashes it has seen (at most maxSeenTrees, then it starts
// over).
const (
	treeIndexBudget = 12 << 20
	maxSeenTrees    = 1 << 12
)

// treeIndex is a tree object's raw content and the offset of each entry
// ("mode SP name NUL hash"), so that a name is found by binary search
// instead of a scan of every entry.
type treeIndex struct {
	raw  []byte
	offs []uint32
	// sorted is false when the entries are not in git's strict order (a
	// malformed tree): look-ups then scan every entry.
	sorted bool
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
func lazyTreeIndex(raw []byte) *treeIndex {
	return &treeIndex{raw: raw, lazy: true}
}

// scanFind is find on a tree's raw content without an index: a scan of
// every whole entry, the last one of the name counting — what find
// answers in a sorted tree (a name at most once as a file then once as a
// folder, the folder found first) and in any other.
func scanFind(raw []byte, name string) (e rawEntry, ok bool) {
	if name == "" {
		return rawEntry{}, false
	}
	if len(raw) > 1<<32-1 {
		raw = raw[:1<<32-1] // as newTreeIndex
	}
	for len(raw) > 0 {
		sp := bytes.IndexByte(raw, ' ')
		if sp < 0 {
			break
		}
		nul := bytes.IndexByte(raw[sp+1:], 0)
		if nul < 0 || sp+1+nul+21 > len(raw) {
			break
		}
		if string(raw[sp+1:sp+1+nul]) == name {
			e, ok = parseEntry(raw[:sp], raw[sp+1+nul+1:sp+1+nul+21]), true
		}
		raw = raw[sp+1+nul+21:]
	}
	return e, ok
}

// newTreeIndex indexes the raw content of a tree; a truncated last entry is
// ignored.
func newTreeIndex(raw []byte) *treeIndex {
	t := &treeIndex{raw: raw, sorted: true, offs: make([]uint32, 0, len(raw)/32+1)}
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
		dir := isDirMode(raw[i : i+sp])
		if len(t.offs) > 0 && compareNames(prev, prevDir, name, dir) >= 0 {
			t.sorted = false
		}
		prev, prevDir = name, dir
		t.offs = append(t.offs, uint32(i))
		i += sp + 1 + nul + 21
	}
	return t
}

// size is what the index holds, for the cache's budget.
func (t *treeIndex) size() int { return len(t.raw) + 4*cap(t.offs) + 64 }

// at returns the mode bytes, name and hash offset of entry i.
func (t *treeIndex) at(i int) (mode, name []byte, hashAt int) {
	off := int(t.offs[i])
	e := t.raw[off:]
	sp := bytes.IndexByte(e, ' ')
	nul := bytes.IndexByte(e[sp+1:], 0)
	return e[:sp], e[sp+1 : sp+1+nul], off + sp + 1 + nul + 1
}

// entry returns entry i.
func (t *treeIndex) entry(i int) rawEntry {
	mode, _, h := t.at(i)
	m, _ := filemode.New(string(mode))
	var hh plumbing.Hash
	copy(hh[:], t.raw[h:h+20])
	return rawEntry{m, hh}
}

// find returns the entry called name; ok is false when there is none. In a
// malformed tree with the name twice, the last one counts.
func (t *treeIndex) find(name string) (e rawEntry, ok bool) {
	if t == nil || name == "" {
		return rawEntry{}, false
	}
	if t.lazy {
		if !t.looked {
			t.looked = true
			return scanFind(t.raw, name)
		}
		idx := newTreeIndex(t.raw)
		t.offs, t.sorted, t.lazy = idx.offs, idx.sorted, false
	}
	if !t.sorted {
		for i := range t.offs {
			if _, n, _ := t.at(i); string(n) == name {
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
		i := sort.Search(len(t.offs), func(i int) bool {
			mode, n, _ := t.at(i)
			return compareNames(n, isDirMode(mode), nb, dir) >= 0
		})
		if i < len(t.offs) {
			if mode, n, _ := t.at(i); string(n) == name && isDirMode(mode) == dir {
				return t.entry(i), true
			}
		}
	}
	return rawEntry{}, false
}

// isDirMode reports whether a tree entry's mode is a folder's (git sorts
// those as if their name ended in '/').
func isDirMode(mode []byte) bool {
	return string(mode) == "40000" || string(mode) == "040000"
}

// compareNames compares tree entry names in git's tree order. Names are
// short: a byte loop beats a call to bytes.Compare.
func compareNames(a []byte, aDir bool, b []byte, bDir bool) int {
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

// treeIndexCache reads and indexes trees, keeping those asked for twice
// while its byte budget lasts (any other is indexed for the caller only).
// It is safe for concurrent use.
type treeIndexCache struct {
	s    storer.EncodedObjectStorer
	mu   sync.Mutex
	m    map[plumbing.Hash]*treeIndex
	seen map[plumbing.Hash]struct{} // trees read once, not kept
	used int
	max  int
	// memo, when not nil, is the path table pathTree's look-ups go
	// through (see pathmemo.go).
	memo *pathTable
	// verify, when not nil, checks each tree read (see verify.go).
	verify *verifier
}

func newTreeIndexCache(s storer.EncodedObjectStorer, max int) *treeIndexCache {
	return &treeIndexCache{s: s, m: map[plumbing.Hash]*treeIndex{}, seen: map[plumbing.Hash]struct{}{}, max: max}
}

// get returns the index of tree h.
func (c *treeIndexCache) get(h plumbing.Hash) (*treeIndex, error) {
	t, raw, err := c.lookup(h)
	if t == nil && err == nil {
		t = newTreeIndex(raw)
	}
	return t, err
}

// getLazy is get for a look-up by path: a tree not kept is indexed only
// when a second name is looked up in it (see lazyTreeIndex).
func (c *treeIndexCache) getLazy(h plumbing.Hash) (*treeIndex, error) {
	t, raw, err := c.lookup(h)
	if t == nil && err == nil {
		t = lazyTreeIndex(raw)
	}
	return t, err
}

// lookup returns the kept index of tree h, or else its raw content; a tree
// looked up a second time is indexed and kept (while the budget lasts).
func (c *treeIndexCache) lookup(h plumbing.Hash) (*treeIndex, []byte, error) {
	c.mu.Lock()
	t, ok := c.m[h]
	c.mu.Unlock()
	if ok {
		return t, nil, nil
	}
	obj, err := c.s.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	raw, err := objectBytes(obj)
	if err != nil {
		return nil, nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	c.verify.check(plumbing.TreeObject, h, raw)
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
	t = newTreeIndex(raw)
	if _, dup := c.m[h]; !dup && c.used+t.size() <= c.max {
		c.m[h] = t
		c.used += t.size()
		delete(c.seen, h)
	}
	return t, nil, nil
}
