package gitrepo

import (
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// A history walk without a commit-graph reads each commit of HEAD's first-parent
// chain for its tree and parent lines (20,000 commits since an interruption:
// a quarter of a cold walk), one after the other, because a commit names
// the next one to read. A gitobj.ChainReader reads that chain ahead of the walk on a
// goroutine of its own, with an object reader of its own (gitobj.Store.Fork),
// while the walk compares the trees it has: on two processors the chain's
// reading leaves the walk's path.
//
// Why the answers are the same: the reader reads what readLinks would,
// from the same packs, and parses it the same way (gitobj.ParseLinks); with the
// cache on (verified) it reads each commit whole and the walk queues it for
// verification as readLinksVerified does. Anything it cannot read or parse
// (a missing object, one only go-git reads, an error, a header too long)
// stops it there, and the walk reads that commit itself, meeting the same
// error. It stops at a shallow boundary and at a root as parentLinks does,
// never reads more than gitobj.ChainAhead commits past what the walk took, and
// is stopped (and waited for) before the Repo's packs close.

// aheadLinks returns commit h's links from the chain reader when it is
// reading h next; chain (a walk going to h's parent next, see parentLinks)
// starts a reader at h when none is. verified: the cache is on, h is
// queued for verification as readLinksVerified queues it. ok is false when
// the caller must read h itself: a commit-graph answers (cheaply), no
// reader is at h, or the reader stopped.
func (r *Repo) aheadLinks(h plumbing.Hash, chain, verified bool) (links, bool) {
	it, ok := r.aheadItem(h, chain, verified)
	if !ok {
		return links{}, false
	}
	if verified {
		r.verify.Check(plumbing.CommitObject, h, it.Raw)
	}
	return links{hash: it.Links.Commit, tree: it.Links.Tree, parent: it.Links.Parent}, true
}

// aheadItem is aheadLinks's item of h, its trees offered to the walk. A
// walk takes a commit whose links it remembers (read, and verified, once
// already) from the reader too (readLinksOf): the reader then reads its
// trees ahead, and stays in step past it. The answers are the same: the
// walk takes the links it remembers, and the trees as above.
func (r *Repo) aheadItem(h plumbing.Hash, chain, verified bool) (gitobj.ChainItem, bool) {
	if r.packs == nil || r.noAhead || r.commitGraph() != nil {
		return gitobj.ChainItem{}, false
	}
	a := r.ahead
	if a == nil || a.Next != h || a.Verified != verified {
		if !chain {
			return gitobj.ChainItem{}, false
		}
		a.Halt()
		r.ahead = gitobj.StartChain(r.packs.Fork(), h, verified, func(c plumbing.Hash) bool { return r.shallow[c] }, r.want)
		if a = r.ahead; a == nil {
			return gitobj.ChainItem{}, false
		}
	}
	a.Want(r.want)
	it, ok := a.Take()
	if !ok {
		return gitobj.ChainItem{}, false
	}
	r.trees.Offer(it.Trees) // the trees of h the walk compares next, read ahead
	return it, true
}
