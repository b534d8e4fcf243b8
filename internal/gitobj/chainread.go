package gitobj

import (
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
)

// ChainReader reads a first-parent chain of commits ahead of a history walk,
// on a goroutine of its own with a Fork of the store: each commit's links
// (ParseLinks over the commit's first bytes, or, verified, over the commit
// read whole, which it hands over to be verified). It stops at the first
// commit it cannot read or parse (the walk reads that one itself and meets
// the same error), at a root, at a commit stop says ends the walk (a
// shallow boundary), and never reads more than ChainAhead commits past what
// was taken. Halt it (and wait for it) before the store's packs close.
type ChainReader struct {
	out  chan ChainItem
	quit chan struct{}
	done chan struct{}
	want atomic.Pointer[Trie] // the walk's paths, whose trees it reads too (treeahead.go)
	halt sync.Once
	// Next is the commit the next item is for (zero once nothing more
	// comes); Verified says the items carry the commits read whole.
	Next     plumbing.Hash
	Verified bool
	Taken    int // the items Take returned
}

// ChainItem is a commit's links and, verified, the commit read whole;
// Trees are trees of it read ahead (see treeahead.go).
type ChainItem struct {
	Links CommitLinks
	Raw   []byte
	Trees []AheadTree
	ok    bool
	root  []byte // the commit's root tree, read by run (see treeahead.go)
}

// ChainAhead bounds the commits a ChainReader reads ahead of the walk.
const ChainAhead = 128

// CommitPrefixLen is how much of a commit a walk reads first: the tree and
// parent lines take 94 bytes.
const CommitPrefixLen = 128

// StartChain starts reading the chain from commit h with s (a Fork); stop
// reports a commit whose parent the walk does not go to; want, when not
// nil, is the walk's paths, whose trees a second goroutine reads, with a
// fork of s of its own, as the commits come (see Want). nil when s is nil.
func StartChain(s *Store, h plumbing.Hash, verified bool, stop func(plumbing.Hash) bool, want *Trie) *ChainReader {
	if s == nil {
		return nil
	}
	c := &ChainReader{out: make(chan ChainItem, aheadItems), quit: make(chan struct{}), done: make(chan struct{}), Next: h, Verified: verified}
	c.want.Store(want)
	links, read := make(chan ChainItem, ChainAhead), make(chan struct{})
	go c.run(s, h, stop, links, read)
	go c.trees(s.forkSized(treeForkCacheBytes, 2), links, read)
	return c
}

// run reads the commits of the chain from h into links, and closes read
// once it reads no more.
func (c *ChainReader) run(s *Store, h plumbing.Hash, stop func(plumbing.Hash) bool, links chan<- ChainItem, read chan<- struct{}) {
	defer close(read)
	defer close(links)
	var root plumbing.Hash // the root tree of the commit before
	for {
		it := readChainItem(s, h, c.Verified)
		if it.ok && it.Links.Tree != root && c.want.Load() != nil {
			root = it.Links.Tree
			it.root, _ = readTreeRaw(s, root)
		}
		select {
		case links <- it:
		case <-c.quit:
			return
		}
		if !it.ok || it.Links.Parent.IsZero() || stop(h) {
			return
		}
		h = it.Links.Parent
	}
}

// trees hands the items of links over, each with its trees the walk
// compares read ahead with s (see treeahead.go), and ends once run has.
func (c *ChainReader) trees(s *Store, links <-chan ChainItem, read <-chan struct{}) {
	defer close(c.done)
	defer func() { <-read }() // run reads the packs too
	defer close(c.out)
	var ahead treeAhead
	for it := range links {
		if it.ok {
			it.Trees = ahead.read(s, c.want.Load(), it.Links.Tree, it.root)
			it.root = nil
		}
		select {
		case c.out <- it:
		case <-c.quit:
			return
		}
	}
}

// readChainItem reads commit h's links: its first bytes, more when the
// header goes on (verified: the commit whole).
func readChainItem(s *Store, h plumbing.Hash, verified bool) ChainItem {
	if verified {
		raw, _, err := s.CommitPrefix(h, 0)
		if err != nil {
			return ChainItem{}
		}
		l, _, err := ParseLinks(h, raw, true)
		if err != nil {
			return ChainItem{}
		}
		return ChainItem{Links: l, Raw: append([]byte(nil), raw...), ok: true}
	}
	for _, n := range []int{CommitPrefixLen, MaxCommitHeader} {
		raw, whole, err := s.CommitPrefix(h, n)
		if err != nil {
			return ChainItem{}
		}
		l, done, err := ParseLinks(h, raw, whole)
		if err != nil {
			return ChainItem{}
		}
		if done {
			return ChainItem{Links: l, ok: true}
		}
	}
	return ChainItem{} // a header too long: the walk reads it and says so
}

// Take returns the next item (for Next); ok is false when the reader
// stopped before it (the caller reads that commit itself).
func (c *ChainReader) Take() (ChainItem, bool) {
	it, open := <-c.out
	if !open || !it.ok {
		c.Next = plumbing.ZeroHash // nothing more comes
		return ChainItem{}, false
	}
	c.Next = it.Links.Parent
	c.Taken++
	return it, true
}

// Want sets the paths the walk follows (nil: none), whose trees the reader
// reads ahead from the next commit it reads on; a nil reader is none.
func (c *ChainReader) Want(t *Trie) {
	if c != nil {
		c.want.Store(t)
	}
}

// Halt stops the reader and waits for it, and drops what it read ahead
// and was not taken (the trees read ahead hold memory until then); a nil
// reader is none, and a reader halted stays halted (Take then reports
// nothing more), so Halt may be called more than once.
func (c *ChainReader) Halt() {
	if c == nil {
		return
	}
	c.halt.Do(func() { close(c.quit) })
	<-c.done
	for range c.out { // closed once done
	}
}

// Done is closed once the reader's goroutines have ended.
func (c *ChainReader) Done() <-chan struct{} { return c.done }
