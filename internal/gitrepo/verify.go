package gitrepo

// Verification of what the caches keep. The history, path and walk tables
// (histcache.go, internal/gitcache's paths.go, walkmemo.go) key what a run
// derived from git objects by those objects' hashes: a commit's tree and
// parent and what differs from its parent's tree by the commit's hash,
// what a path names in a tree by the tree's hash. Such an entry is true for every repository
// that holds those objects only if the objects read had the content their
// hashes name. The pack reader and go-git do not check that (a replaced
// loose object, a rewritten pack, a commit-graph that says otherwise than
// the commits all read as whatever they hold). So a Repo that keeps what
// it derives (UseCache) checks every commit whose links it records and
// every tree it reads: the git hash of the content read must be the name
// it was read under, and a commit-graph's links those of the commit
// object. Nothing else changes: the answers are taken from what was read,
// as without the cache, so they are the same with the cache on or off.
// Any mismatch marks the Repo unverified, and SaveCache then writes
// nothing at all: a repository that lies about one object leaves no entry
// a later run (of a genuine repository created at the same path, say)
// could read.

import (
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/orchestrate-dev/orchestrate/internal/gitverify"

	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// readLinksVerified is readLinksUncached for a Repo whose links are
// recorded (the cache is on), giving the same links: a commit the
// commit-graph holds has the graph's links, checked against the commit
// object (verifyLinks); any other is read whole once, checked, and its
// links parsed from it (the same as from its first bytes). When the whole
// commit cannot be read or parsed, the links are read as without the
// cache, and the Repo is marked unverified when they can be.
func (r *Repo) readLinksVerified(h plumbing.Hash) (links, error) {
	if _, inGraph := r.graphLinks(h); !inGraph {
		obj, err := r.objects.EncodedObject(plumbing.CommitObject, h)
		var raw []byte
		if err == nil {
			raw, err = gitobj.ObjectBytes(obj)
		}
		if err == nil {
			r.verify.Check(plumbing.CommitObject, h, raw)
			if l, _, err := parseLinks(h, raw, true); err == nil {
				return l, nil
			}
		}
	}
	l, err := r.readLinksUncached(h)
	if err == nil {
		r.verifyLinks(l)
	}
	return l, err
}

// verifyLinks checks links l, read from the repository for commit l.hash
// (from the commit-graph, or from the commit's first bytes), against the
// commit object read whole: its hash must be l.hash and its tree and first
// parent l's. Anything else marks the Repo unverified.
func (r *Repo) verifyLinks(l links) {
	if !r.verify.Enabled() || r.verify.Bad.Load() {
		return
	}
	// checked with the objects (see verifier): the commit is read again,
	// whole, maybe on the other processor
	r.verify.Later(func() bool {
		obj, err := r.objects.EncodedObject(plumbing.CommitObject, l.hash)
		if err != nil {
			return false
		}
		raw, err := gitobj.ObjectBytes(obj)
		if err != nil || gitverify.ObjectHash(plumbing.CommitObject, raw) != l.hash {
			return false
		}
		got, _, err := parseLinks(l.hash, raw, true)
		return err == nil && got == l
	}, 512)
}

// Verified reports whether everything this run read of git was checked to
// be what its name says: the cache is on (reads are checked only then) and
// no check failed, waiting for the checks in flight. Only then may what a
// run derived from its reads be kept beyond the git tables (the verdict
// memo, app/verdict).
func (r *Repo) Verified() bool { return r.verify.Enabled() && !r.verify.Failed() }
