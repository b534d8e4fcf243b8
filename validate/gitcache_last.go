package validate

// Who last changed a workflow's record files, asked for every resumable
// candidate in one batch (prefetchLast), and the record paths it asks about.

import (
	"errors"
	"iter"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
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

// lastAnswer is one path's LastChangeAt answer at a commit.
type lastAnswer struct {
	c     gitrepo.Commit
	found bool
}

// lastChangeAt is og.LastChangeAt(base, paths, max) (who last changed the
// workflow's record files at its interruption commit). In a run that
// validates several workflows (status), the first call asks the question of
// every resumable candidate of the run at once (prefetchLast): one walk of
// the history for all of them instead of one each. A path's answer does not
// depend on the paths asked beside it, so the answers are the same.
func (v *validator) lastChangeAt(og OwnershipGit, base gitrepo.Commit, paths []string, max int) map[string]gitrepo.Commit {
	gc, ok := og.(*gitCache)
	if !ok || v.in.Run == nil || gc.run != v.in.Run || base.Hash == "" {
		return og.LastChangeAt(base, paths, max)
	}
	return gc.lastChangeAt(v, base, paths, max)
}

func (c *gitCache) lastChangeAt(v *validator, base gitrepo.Commit, paths []string, max int) map[string]gitrepo.Commit {
	og, ok := c.Git.(OwnershipGit)
	if !ok {
		return map[string]gitrepo.Commit{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.lastTried {
		c.lastTried = true
		c.prefetchLast(v, max)
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
// keeps the answers for lastChangeAt. The paths are a superset of what
// each validation asks (cleaned as written; the stories as the story
// index names them): a path a validation asks that is not among them is
// asked then. Nothing is asked with fewer than two resumable candidates,
// or of a Git that cannot batch.
func (c *gitCache) prefetchLast(v *validator, max int) {
	lb, ok := c.Git.(lastBatcher)
	if !ok || c.run.resumable() < 2 {
		return
	}
	var qs []gitrepo.LastChangeQuestion
	for cand, base := range c.resumableBases() {
		if paths := v.recordPathsOf(cand); len(paths) > 0 {
			qs = append(qs, gitrepo.LastChangeQuestion{At: base, Paths: paths})
		}
	}
	if len(qs) < 2 {
		return
	}
	answers, known := lb.LastChangesAt(qs, max)
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

// interruptionCommit is InterruptionCommit with c.mu held.
func (c *gitCache) interruptionCommit(recorded string, at time.Time) (gitrepo.Commit, error) {
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

// recordPathsOf is a superset of the record files ownFiles finds for
// candidate cand (its sources, its stories' files, the files it references
// as its record), cleaned lexically; sorted, without repeats.
func (v *validator) recordPathsOf(cand *workflow.Candidate) []string {
	set := map[string]bool{}
	add := func(p string) {
		if p == "" || strings.ContainsRune(p, 0) {
			return
		}
		if filepath.IsAbs(p) && v.in.Root != "" {
			rel, err := filepath.Rel(v.in.Root, p)
			if err != nil {
				return
			}
			p = rel
		}
		cl := path.Clean(filepath.ToSlash(p))
		if cl != "." && cl != ".." && !strings.HasPrefix(cl, "../") && !path.IsAbs(cl) {
			set[cl] = true
		}
	}
	add(cand.Source.Path)
	for _, e := range cand.Evidence {
		add(e.Path)
	}
	story := func(id, recorded string) {
		add(recorded)
		if id = strings.TrimSpace(id); id != "" {
			if st := v.lookupStory(id); st != nil {
				add(st.Path)
			}
		}
	}
	for _, r := range cand.StoryRefs {
		story(r.ID, r.Path)
	}
	for _, id := range cand.Stories {
		story(id, "")
	}
	for _, rf := range cand.Files {
		cl := filepath.ToSlash(filepath.Clean(filepath.FromSlash(rf.Path)))
		if recordFroms[rf.From] || (rf.From == "feature" && path.Base(cl) == "tasks.md") {
			add(rf.Path)
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// resumableBases yields every resumable candidate of the run that has an
// interruption commit, in the run's order, with that commit: the
// candidates a run's shared answers (the batched last changes, the one
// history walk) are asked for.
func (c *gitCache) resumableBases() iter.Seq2[*workflow.Candidate, gitrepo.Commit] {
	return func(yield func(*workflow.Candidate, gitrepo.Commit) bool) {
		for _, cand := range c.run.order {
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
