package validate

// The Run's git answers (gitmemo.Memo) and what the Memo asks of the Run.

import (
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/validate/gitmemo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// git returns g answered through the Run's cache: the first Git the Run
// sees is cached, any other one (a test's fake, another repository) is
// used as it is.
func (r *Run) git(g Git) Git {
	if g == nil || !reflect.TypeOf(g).Comparable() {
		return g
	}
	r.gitOnce.Do(func() {
		r.gitFor, r.gitCache = g, gitmemo.New(g, memoRun{r})
	})
	if r.gitFor != g {
		return g
	}
	return r.gitCache
}

// Prepare starts, beside the validations to come, what the first of them
// to compare files would start, for a run about to validate every
// resumable candidate with g (app/loaded's ValidateAll): the run's one
// history walk and the index read (gitmemo.Memo.Prepare). It returns a
// channel closed once the walk is done; nil when none was started (see
// Memo.Prepare; a g the Run does not answer through its Memo). maxRefs is
// the validations' bound on a candidate's referenced files (config
// MaxRefFiles, the default when 0): the paths compared are estimated from
// it as the first Compare would.
func (r *Run) Prepare(g Git, maxRefs int) <-chan struct{} {
	m, ok := r.git(g).(*gitmemo.Memo)
	if !ok {
		return nil
	}
	if maxRefs <= 0 {
		maxRefs = defaults.MaxRefFiles
	}
	expected := 0
	for _, c := range r.sorted {
		if c.Resumable {
			expected += min(len(c.Files), maxRefs)
		}
	}
	return m.Prepare(expected)
}

// memoRun is what the Run's Memo asks of the Run (gitmemo.Run).
type memoRun struct{ r *Run }

// Candidates is every candidate in the caller's order.
func (m memoRun) Candidates() []*workflow.Candidate { return m.r.order }

// Resumable is Run.resumable.
func (m memoRun) Resumable() int { return m.r.resumable() }

// RefPaths is Run.refPaths.
func (m memoRun) RefPaths() []string { return m.r.refPaths() }

// Lstat is Run.lstat.
func (m memoRun) Lstat(clean string) (fs.FileInfo, bool) { return m.r.lstat(clean) }

// lastChangeAt is og.LastChangeAt(base, paths, max) (who last changed the
// workflow's record files at its interruption commit). In a run that
// validates several workflows (status), the first call asks the question of
// every resumable candidate of the run at once (gitmemo's
// Memo.LastChangeAtFor).
func (v *validator) lastChangeAt(og OwnershipGit, base gitrepo.Commit, paths []string, max int) map[string]gitrepo.Commit {
	// v.in.Git is v.in.Run.git's answer (newValidator): its gitCache is set
	gc, ok := og.(*gitmemo.Memo)
	if !ok || v.in.Run == nil || v.in.Run.gitCache != gc || base.Hash == "" {
		return og.LastChangeAt(base, paths, max)
	}
	return gc.LastChangeAtFor(v.recordPathsOf, base, paths, max)
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
