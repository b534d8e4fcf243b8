package gitmemo

// Who last changed a workflow's record files, asked for every resumable
// candidate in one batch (prefetchLast).

import (
	"errors"
	"iter"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// errNoOwnership is ChangedPaths' error when the underlying Git cannot
// tell (no commit is then the workflow's own).
var errNoOwnership = errors.New("the files a commit changed cannot be listed")

// lastBatcher is a Git (*gitrepo.Repo is) that answers many LastChangeAt
// questions in one walk of the history.
type lastBatcher interface {
	LastChangesAt(qs []gitrepo.LastChangeQuestion, maxCommits int) ([]map[string]gitrepo.Commit, []bool)
}

// historyBatcher is a lastBatcher (*gitrepo.Repo is) that takes what the
// run's History knows already (see gitrepo.Repo.LastChangesWith).
type historyBatcher interface {
	LastChangesWith(qs []gitrepo.LastChangeQuestion, maxCommits int, h *gitrepo.History) ([]map[string]gitrepo.Commit, []bool)
}

// lastAnswer is one path's LastChangeAt answer at a commit.
type lastAnswer struct {
	c     gitrepo.Commit
	found bool
}

// LastChangeAtFor is LastChangeAt(base, paths, max) (who last changed a
// workflow's record files at its interruption commit), recordPaths being a
// superset of the record files of a candidate of the run, cleaned. The
// first call asks the question of every resumable candidate of the run at
// once (prefetchLast): one walk of the history for all of them instead of
// one each. A path's answer does not depend on the paths asked beside it,
// so the answers are the same. Without a run, or without a base commit,
// it is LastChangeAt.
func (c *Memo) LastChangeAtFor(recordPaths func(*workflow.Candidate) []string, base gitrepo.Commit, paths []string, max int) map[string]gitrepo.Commit {
	if c.run == nil || base.Hash == "" {
		return c.LastChangeAt(base, paths, max)
	}
	og, ok := c.Git.(OwnershipGit)
	if !ok {
		return map[string]gitrepo.Commit{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.lastTried {
		c.lastTried = true
		c.lastReady = make(chan struct{})
		// the record paths of every candidate are gathered without c.mu
		// (the run's candidates are read only): the other validations go
		// on meanwhile, and those that need the batch wait for it
		var pre map[*workflow.Candidate][]string
		if _, ok := c.Git.(lastBatcher); ok {
			c.mu.Unlock()
			pre = recordPathsAll(c.run, recordPaths)
			c.mu.Lock()
		}
		c.prefetchLast(pre, max)
		close(c.lastReady)
		c.lastReady = nil
	} else if ready := c.lastReady; ready != nil {
		c.mu.Unlock()
		<-ready
		c.mu.Lock()
	}
	out := map[string]gitrepo.Commit{}
	var missing []string
	for _, p := range paths {
		a, ok := c.last[pathKey{base.Hash, p, max}]
		switch {
		case !ok:
			missing = append(missing, p)
		case a.found:
			out[p] = a.c
		}
	}
	if len(missing) == len(paths) {
		return og.LastChangeAt(base, paths, max)
	}
	if len(missing) > 0 {
		for p, cm := range og.LastChangeAt(base, missing, max) {
			out[p] = cm
		}
	}
	return out
}

// prefetchLast asks, in one batch, who last changed the record files of
// every resumable candidate of the run at its interruption commit, and
// keeps the answers for LastChangeAtFor, recordPaths being each
// candidate's record paths (recordPathsAll). The paths are a superset of what
// each validation asks (cleaned as written; the stories as the story
// index names them): a path a validation asks that is not among them is
// asked then. Nothing is asked with fewer than two resumable candidates,
// or of a Git that cannot batch. The run's History, once walked, is
// handed to the batch (gitrepo.Repo.LastChangesWith): a story is both a
// record file and a referenced one, and the History knows its changes in
// the newest commits already.
func (c *Memo) prefetchLast(recordPaths map[*workflow.Candidate][]string, max int) {
	lb, ok := c.Git.(lastBatcher)
	if !ok || c.run.Resumable() < 2 {
		return
	}
	var qs []gitrepo.LastChangeQuestion
	for cand, base := range c.resumableBases() {
		if paths := recordPaths[cand]; len(paths) > 0 {
			qs = append(qs, gitrepo.LastChangeQuestion{At: base, Paths: paths})
		}
	}
	if len(qs) < 2 {
		return
	}
	var answers []map[string]gitrepo.Commit
	var known []bool
	if hb, ok := c.Git.(historyBatcher); ok && c.hist != nil {
		// the run's History knows the changes to the files it was walked
		// for (a story is a record file and a referenced one) in the
		// newest commits: the batch does not compare them again
		answers, known = hb.LastChangesWith(qs, max, c.hist)
	} else {
		answers, known = lb.LastChangesAt(qs, max)
	}
	c.last = map[pathKey]lastAnswer{}
	for i, q := range qs {
		if !known[i] {
			continue
		}
		for _, p := range q.Paths {
			cm, found := answers[i][p]
			c.last[pathKey{q.At.Hash, p, max}] = lastAnswer{cm, found}
		}
	}
}

// recordPathsAll is recordPaths of each candidate of run that
// resumableBases may yield (resumable, with a commit or a time), when the
// run has two resumable candidates or more (else none is asked).
func recordPathsAll(run Run, recordPaths func(*workflow.Candidate) []string) map[*workflow.Candidate][]string {
	if run.Resumable() < 2 {
		return nil
	}
	out := map[*workflow.Candidate][]string{}
	for _, cand := range run.Candidates() {
		if cand.Resumable && (!cand.UpdatedAt.IsZero() || cand.Commit != "") {
			out[cand] = recordPaths(cand)
		}
	}
	return out
}

// interruptionCommit is InterruptionCommit with c.mu held.
func (c *Memo) interruptionCommit(recorded string, at time.Time) (gitrepo.Commit, error) {
	k := baseKey{recorded: recorded, zero: at.IsZero()}
	if !k.zero {
		k.at = at.UnixNano()
	}
	if a, ok := c.bases[k]; ok {
		return a.c, a.err
	}
	got, err := c.Git.InterruptionCommit(recorded, at)
	c.bases[k] = baseAnswer{got, err}
	return got, err
}

// resumableBases yields every resumable candidate of the run that has an
// interruption commit, in the run's order, with that commit: the
// candidates a run's shared answers (the batched last changes, the one
// history walk) are asked for.
func (c *Memo) resumableBases() iter.Seq2[*workflow.Candidate, gitrepo.Commit] {
	return func(yield func(*workflow.Candidate, gitrepo.Commit) bool) {
		for _, cand := range c.run.Candidates() {
			if !cand.Resumable || (cand.UpdatedAt.IsZero() && cand.Commit == "") {
				continue
			}
			base, err := c.interruptionCommit(cand.Commit, cand.UpdatedAt)
			if err != nil || base.Hash == "" {
				continue
			}
			if !yield(cand, base) {
				return
			}
		}
	}
}
