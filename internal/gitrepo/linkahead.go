package gitrepo

import (
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// A history walk without a commit-graph reads each commit of HEAD's first-parent
// chain for its tree and parent lines (20,000 commits since an interruption:
// a quarter of a cold walk), one after the other, because a commit names
// the next one to read. linkAhead reads that chain ahead of the walk on a
// goroutine of its own, with an object reader of its own (gitobj.Store.Fork),
// while the walk compares the trees it has: on two processors the chain's
// reading leaves the walk's path.
//
// Why the answers are the same: the reader reads what readLinks would,
// from the same packs, and parses it the same way (parseLinks); with the
// cache on (verified) it reads each commit whole and the walk queues it for
// verification as readLinksVerified does. Anything it cannot read or parse
// (a missing object, one only go-git reads, an error, a header too long)
// stops it there, and the walk reads that commit itself, meeting the same
// error. It stops at a shallow boundary and at a root as parentLinks does,
// never reads more than linkAheadDepth commits past what the walk took, and
// is stopped (and waited for) before the Repo's packs close.

// linkAheadDepth bounds the commits read ahead of the walk.
const linkAheadDepth = 128

// linkAhead is one reader of a chain, started at a commit.
type linkAhead struct {
	out      chan aheadItem
	stop     chan struct{}
	done     chan struct{}
	next     plumbing.Hash // the commit the next item is for
	verified bool          // items carry the whole commit, to verify
}

// aheadItem is a commit's links (and, verified, the commit read whole), or
// !ok where the reader stopped without them.
type aheadItem struct {
	l   links
	raw []byte
	ok  bool
}

// startLinkAhead starts reading the chain from commit h with s (a Fork of
// the Repo's store); nil when s is nil.
func startLinkAhead(s *gitobj.Store, h plumbing.Hash, verified bool, shallow map[plumbing.Hash]bool) *linkAhead {
	if s == nil {
		return nil
	}
	a := &linkAhead{out: make(chan aheadItem, linkAheadDepth), stop: make(chan struct{}), done: make(chan struct{}), next: h, verified: verified}
	go a.run(s, h, shallow)
	return a
}

func (a *linkAhead) run(s *gitobj.Store, h plumbing.Hash, shallow map[plumbing.Hash]bool) {
	defer close(a.done)
	defer close(a.out)
	for {
		it := readAhead(s, h, a.verified)
		select {
		case a.out <- it:
		case <-a.stop:
			return
		}
		if !it.ok || it.l.parent.IsZero() || shallow[h] {
			return
		}
		h = it.l.parent
	}
}

// readAhead reads commit h's links as readLinksUncached does without a
// commit-graph (verified: the commit whole, as readLinksVerified does).
func readAhead(s *gitobj.Store, h plumbing.Hash, verified bool) aheadItem {
	if verified {
		raw, _, err := s.CommitPrefix(h, 0)
		if err != nil {
			return aheadItem{}
		}
		l, _, err := parseLinks(h, raw, true)
		if err != nil {
			return aheadItem{}
		}
		return aheadItem{l: l, raw: append([]byte(nil), raw...), ok: true}
	}
	for _, n := range []int{commitPrefixLen, gitobj.MaxCommitHeader} {
		raw, whole, err := s.CommitPrefix(h, n)
		if err != nil {
			return aheadItem{}
		}
		l, done, err := parseLinks(h, raw, whole)
		if err != nil {
			return aheadItem{}
		}
		if done {
			return aheadItem{l: l, ok: true}
		}
	}
	return aheadItem{} // a header too long: the walk reads it and says so
}

// take returns the next item; ok is false when the reader stopped before
// it (the caller reads the commit itself).
func (a *linkAhead) take() (aheadItem, bool) {
	it, open := <-a.out
	if !open || !it.ok {
		a.next = plumbing.ZeroHash // nothing more comes
		return aheadItem{}, false
	}
	a.next = it.l.parent
	return it, true
}

// halt stops the reader and waits for it.
func (a *linkAhead) halt() {
	if a == nil {
		return
	}
	close(a.stop)
	<-a.done
}

// aheadLinks returns commit h's links from the chain reader when it is
// reading h next; chain (a walk going to h's parent next, see parentLinks)
// starts a reader at h when none is. verified: the cache is on, h is
// queued for verification as readLinksVerified queues it. ok is false when
// the caller must read h itself: a commit-graph answers (cheaply), no
// reader is at h, or the reader stopped.
func (r *Repo) aheadLinks(h plumbing.Hash, chain, verified bool) (links, bool) {
	if r.packs == nil || r.noAhead || r.commitGraph() != nil {
		return links{}, false
	}
	a := r.ahead
	if a == nil || a.next != h || a.verified != verified {
		if !chain {
			return links{}, false
		}
		a.halt()
		r.ahead = startLinkAhead(r.packs.Fork(), h, verified, r.shallow)
		if a = r.ahead; a == nil {
			return links{}, false
		}
	}
	it, ok := a.take()
	if !ok {
		return links{}, false
	}
	if verified {
		r.verify.Check(plumbing.CommitObject, h, it.raw)
	}
	return it.l, true
}
