package gitmemo

import (
	"path/filepath"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
)

// historian is a Git (*gitrepo.Repo is) that walks HEAD's history once for
// the paths and base commits of many workflows (see gitrepo.HistoryFor).
type historian interface {
	HistoryFor(bases []gitrepo.Commit, paths []string, maxCommits int) *gitrepo.History
}

// minHistoryWalk is the fewest commits the run's History may walk (see
// history): more when the workflows reference more files, as a walk
// back to an old base reads commits (about what a look-up in a base's
// tree costs each) where the per-workflow look-ups and walks did not.
const minHistoryWalk = 1024

// history returns the run's History, walked once, at the first question
// that can use it, when the run validates several resumable candidates
// with a Git that can walk for all of them: HEAD's first-parent chain back
// to the oldest interruption commit (at most as many commits as the
// workflows reference files, and minHistoryWalk), for the union of the files the
// resumable candidates reference. Compare then takes each base's blobs
// from it, and CommitsTouching its answers, instead of one look-up per
// workflow and path in each base's tree and one walk per workflow; what it
// does not cover (a base off the chain, a path not referenced, a story's
// file) is asked as before. nil when there is none. c.mu is held.
func (c *Memo) history() *gitrepo.History {
	if c.histTried || c.run == nil {
		return c.hist
	}
	c.histTried = true
	hg, ok := c.Git.(historian)
	if !ok || c.run.Resumable() < 2 {
		return nil
	}
	var bases []gitrepo.Commit
	seen := map[string]bool{}
	var paths []string
	refs := 0 // the look-ups the walk replaces
	for cand, base := range c.resumableBases() {
		bases = append(bases, base)
		refs += len(cand.Files)
		for _, rf := range cand.Files {
			if clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(rf.Path))); !seen[clean] {
				seen[clean] = true
				paths = append(paths, clean)
			}
		}
	}
	if len(bases) < 2 {
		return nil
	}
	c.hist = hg.HistoryFor(bases, paths, max(minHistoryWalk, refs))
	return c.hist
}

// commitsFromHistory answers CommitsTouching(base, paths, limit) for the
// paths the run's History covers; rest is the paths it does not (all of
// them when it does not cover base). c.mu is held.
func (c *Memo) commitsFromHistory(base gitrepo.Commit, paths []string, limit int) (got map[string][]gitrepo.Commit, rest []string) {
	h := c.history()
	if !h.Covers(base) {
		return nil, paths
	}
	var known []string
	for _, p := range paths {
		if h.Has(p) {
			known = append(known, p)
		} else {
			rest = append(rest, p)
		}
	}
	if len(known) == 0 {
		return nil, paths
	}
	got, ok := h.CommitsTouching(base, known, limit)
	if !ok {
		return nil, paths
	}
	return got, rest
}

// commitsOnce is CommitsTouching(base, paths, limit) for a base no other
// workflow of the run asks about: from the History for the paths it
// covers, from the underlying Git for the rest, nothing kept. c.mu is
// held.
func (c *Memo) commitsOnce(base gitrepo.Commit, paths []string, limit int) (map[string][]gitrepo.Commit, error) {
	known, rest := c.commitsFromHistory(base, paths, limit)
	out := make(map[string][]gitrepo.Commit, len(known))
	for p, cs := range known {
		if len(cs) > 0 {
			out[p] = cs
		}
	}
	if len(rest) == 0 {
		return out, nil
	}
	got, err := c.Git.CommitsTouching(base, rest, limit)
	if err != nil {
		return nil, err
	}
	for p, cs := range got {
		if len(cs) > 0 {
			out[p] = append([]gitrepo.Commit(nil), cs...)
		}
	}
	return out, nil
}

// Prepare starts, once and on goroutines of their own, what the run's
// first Compare would start when every resumable candidate of the run is
// about to be validated (app/loaded's ValidateAll): the index read
// (indexEarly, expected being the paths the validations will compare) and
// the run's History walk (history). The validations' checks that ask git
// nothing then run beside the walk (validate.Begin) instead of after the
// first validation reaches its Compare, while the others wait on c.mu. It
// returns a channel closed once the walk is done; nil when none is
// started: no run, a Git that cannot walk for all, fewer than two
// resumable candidates, or a walk tried already. The answers are the
// same: each is the Git's for its question, whoever asks it first.
//
// c.mu is taken here and handed to the walk's goroutine, which releases it
// once the walk is done: a goroutine just started waits for a processor
// behind the validations, and the first of them to ask the Memo anything
// would take the lock and walk itself while the goroutine waited (131 ms
// of a traced run).
func (c *Memo) Prepare(expected int) <-chan struct{} {
	c.mu.Lock()
	if c.run == nil || c.histTried || c.run.Resumable() < 2 {
		c.mu.Unlock()
		return nil
	}
	if _, ok := c.Git.(historian); !ok {
		c.mu.Unlock()
		return nil
	}
	if _, ok := c.Git.(optionsComparer); ok {
		c.indexEarly(expected)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer c.mu.Unlock() // taken by Prepare for this goroutine
		c.history()
	}()
	return done
}
