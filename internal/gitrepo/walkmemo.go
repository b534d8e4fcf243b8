package gitrepo

// The walk table: the answers of CommitsTouching and LastChange, kept
// across runs in the user's cache folder, so that a later run asking the
// same question about the same history (the 200 workflows of a status,
// none of whose bases or references changed) takes each answer in one
// look-up instead of a walk of its 60 commits, even with the history table
// warm.
//
// One table, git-walks-<repo> (<repo> as for the history table, see
// histcache.go), keyed by the SHA-256 of the question (gitcache.WalkKey):
// which walk, HEAD's commit, the base commit and whether it could be read,
// the limit, the repository's shallow boundary, and the paths in the order
// given. Its value (gitcache.EncodeWalk) lists, for each path with commits,
// the path's index and its commits' hashes; the commits are described
// again (commitInfo) when the answer is used.
//
// Why it is sound: a walk's answer is a function of the commits and trees
// reachable from HEAD, which git names by HEAD's hash, of the base (named
// by its hash; whether it can be read is in the key) and of the shallow
// boundary (in the key). Only walks that ended on their own — at the base,
// once no path was followed, at the bound, or at a root commit — are
// recorded: one stopped by a missing parent or a shallow boundary is not,
// as a later fetch could extend it. As for the history table, the commits
// and trees a walk reads are checked against their hashes (a run that met
// a lie saves nothing, see verify.go), and the table is per repository; a
// value that does not decode is a miss, and the walk runs as without the
// table.

import (
	"bytes"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/orchestrate-dev/orchestrate/internal/gitcache"
)

// shallowList is r's shallow boundary, sorted (for gitcache.WalkKey).
func (r *Repo) shallowList() []plumbing.Hash {
	out := make([]plumbing.Hash, 0, len(r.shallow))
	for h := range r.shallow {
		out = append(out, h)
	}
	slices.SortFunc(out, func(a, b plumbing.Hash) int { return bytes.Compare(a[:], b[:]) })
	return out
}

// walkAsked returns the key of a walk's question and whether the walk
// table is there to answer it.
func (r *Repo) walkAsked(kind byte, head links, base plumbing.Hash, limit int, paths []string) ([gitcache.WalkKeySize]byte, bool) {
	if !r.wmemo.Open() {
		return [gitcache.WalkKeySize]byte{}, false
	}
	q := gitcache.WalkQuestion{Kind: kind, Head: head.hash, Base: base, Limit: limit, Shallow: r.shallowList(), Paths: paths}
	if !base.IsZero() {
		_, err := r.readLinks(base)
		q.BaseOK = err == nil
	}
	return gitcache.WalkKey(q), true
}

// walkAnswer returns the commits the walk table has for key, described.
func (r *Repo) walkAnswer(key [gitcache.WalkKeySize]byte, paths []string) (map[string][]Commit, bool) {
	v, fresh, ok := r.wmemo.Get(key)
	var got map[string][]plumbing.Hash
	if ok {
		if got, ok = gitcache.DecodeWalk(v, paths); !ok && !fresh {
			r.wmemo.Unhit() // a value that does not decode is a miss
		}
	}
	if !ok {
		return nil, false
	}
	out := make(map[string][]Commit, len(got))
	for p, hs := range got {
		cs := make([]Commit, len(hs))
		for i, h := range hs {
			c, err := r.commitInfo(h)
			if err != nil {
				r.wmemo.Unhit()
				return nil, false
			}
			cs[i] = c
		}
		out[p] = cs
	}
	return out, true
}

// recordWalk records a walk's answer.
func (r *Repo) recordWalk(key [gitcache.WalkKeySize]byte, paths []string, out map[string][]Commit) {
	hs := make(map[string][]plumbing.Hash, len(out))
	for p, cs := range out {
		l := make([]plumbing.Hash, 0, len(cs))
		for _, c := range cs {
			h, ok := fullHash(c.Hash)
			if !ok {
				return
			}
			l = append(l, h)
		}
		hs[p] = l
	}
	r.wmemo.Add(key, gitcache.EncodeWalk(paths, hs))
}
