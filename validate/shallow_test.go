package validate

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestTimeFromHistoryCut: a candidate dated by git at the commit where the
// clone's history ends (a depth-1 clone's only commit) was last updated at
// or before that time, not at it. Drift is the blocking history-missing
// finding (never "clean" against the boundary taken for the interruption
// commit), the report names no interruption commit, and the age is a lower
// bound: "at least", class unknown unless the bound is already stale. The
// same candidate dated by a commit inside the history is checked as always.
func TestTimeFromHistoryCut(t *testing.T) {
	r := newRepo(t)
	st := r.story("2.1", "InProgress", "AC", "notes", time.Time{})
	r.write("src/x.ts", "x", time.Time{})
	for _, tc := range []struct {
		name     string
		shallow  bool
		promisor string
		cut      bool
		recorded string
		at       time.Time
		class    string
		ageCode  string
		ageMsg   string
		complete bool
	}{
		{name: "depth-1", shallow: true, cut: true, at: t0, class: AgeUnknown, ageCode: "age-unknown",
			ageMsg: "interrupted at least 1 hour ago (at or before b0bb1e5, where the clone's history ends): the exact age of the state is unknown"},
		{name: "partial", promisor: "origin", cut: true, at: t0, class: AgeUnknown, ageCode: "age-unknown"},
		{name: "moderate-bound", shallow: true, cut: true, at: now.Add(-3 * 24 * time.Hour), class: AgeUnknown, ageCode: "age-moderate",
			ageMsg: "interrupted at least 3 days ago: resume with careful validation"},
		{name: "stale-bound", shallow: true, cut: true, at: now.Add(-9 * 24 * time.Hour), class: AgeStale, ageCode: "age-stale",
			ageMsg: "interrupted at least 9 days ago: the state is stale, consider restarting"},
		{name: "inside-history", shallow: true, cut: false, at: t0, class: AgeRecent},
		{name: "recorded-commit", shallow: true, cut: true, recorded: "0123456", at: t0, class: AgeUnknown, ageCode: "age-unknown"},
		// neither shallow nor partial: not asked (a missing parent there is damage)
		{name: "complete-clone", cut: true, complete: true, at: t0, class: AgeRecent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := sdc("2.1", workflow.RefFile{Path: "src/x.ts", Phase: "implement"})
			c.UpdatedAt, c.UpdatedFrom, c.Commit = tc.at, "git:b0bb1e5", tc.recorded
			g := &fakeGit{shallow: tc.shallow, promisor: tc.promisor, base: baseCommit, cuts: map[string]bool{"b0bb1e5": tc.cut}}
			in := input(r, c, st)
			in.Git = g
			rep := Validate(in)
			cut := tc.cut && !tc.complete
			if rep.AgeClass != tc.class || rep.AgeAtLeast != cut {
				t.Errorf("age class %q, at least %v", rep.AgeClass, rep.AgeAtLeast)
			}
			if tc.ageCode != "" {
				if f := find(t, rep, tc.ageCode); tc.ageMsg != "" && f.Message != tc.ageMsg {
					t.Errorf("age finding %q", f.Message)
				}
			}
			if !cut || tc.recorded != "" {
				// the interruption commit is known: compared as always
				if has(rep, "history-missing") || rep.Base.IsZero() || rep.GitMode != GitModeGit || len(g.compared) == 0 {
					t.Errorf("base %v, mode %s, findings %v", rep.Base, rep.GitMode, rep.Findings)
				}
				return
			}
			f := find(t, rep, "history-missing")
			if f.Severity != workflow.Blocking || f.Check != workflow.CheckConflict || rep.Status != StatusConflicts {
				t.Errorf("finding %+v, status %s: must decide like a conflict", f, rep.Status)
			}
			kind, fix := "shallow clone", "`git fetch --unshallow`"
			if !tc.shallow {
				kind, fix = "partial clone", "`git fetch --refetch --no-filter origin`"
			}
			want := fmt.Sprintf("the git history does not reach the interruption (at or before %s, the time of b0bb1e5, where this %s's history ends): changes by others to 2 referenced files (docs/stories/2.1.story.md, src/x.ts) cannot be ruled out", stamp(tc.at), kind)
			if !strings.HasPrefix(f.Message, want) || !strings.Contains(f.Message, fix) {
				t.Errorf("message %q\nwant prefix %q and %s", f.Message, want, fix)
			}
			if !rep.Base.IsZero() || rep.GitMode != GitModeHistoryMissing || len(g.compared) != 0 {
				t.Errorf("the boundary was taken for the interruption commit: base %v, mode %s, compared %v", rep.Base, rep.GitMode, g.compared)
			}
			if fr := fileReport(t, rep, "src/x.ts"); fr.State != FileUnknown {
				t.Errorf("src/x.ts = %+v", fr)
			}
		})
	}
}

// TestMissingObjects: objects a partial clone does not hold are never a
// reason to pass. The interruption commit's trees missing (Compare fails)
// is history-missing, not a modification-time fallback; a story's old
// version missing (ReadAt fails) is a blocking history-missing finding, not
// a "story edited" warning; a walk that ends before the interruption commit
// (CommitsTouching: ErrHistoryMissing) adds history-missing to the changes
// it found, and names no commit it could not vouch for.
func TestMissingObjects(t *testing.T) {
	const path = "docs/stories/2.1.story.md"
	r := newRepo(t)
	st := r.story("2.1", "InProgress", "AC new", "notes", time.Time{})
	r.write("src/x.ts", "x", time.Time{})
	notFound := fmt.Errorf("read tree: %w: %w", gitrepo.ErrHistoryMissing, errors.New("object not found"))
	c := sdc("2.1", workflow.RefFile{Path: "src/x.ts", Phase: "implement"})

	t.Run("trees", func(t *testing.T) {
		g := &fakeGit{promisor: "origin", base: baseCommit, compareErr: notFound}
		in := input(r, c, st)
		in.Git = g
		rep := Validate(in)
		f := find(t, rep, "history-missing")
		if f.Severity != workflow.Blocking || !strings.Contains(f.Message, "the trees of the interruption commit 0123456 are missing from this partial clone") ||
			!strings.Contains(f.Message, "`git fetch --refetch --no-filter origin`") {
			t.Errorf("finding %+v", f)
		}
		if has(rep, "changed-since") || has(rep, "git-error") || rep.GitMode != GitModeHistoryMissing || !rep.Base.IsZero() {
			t.Errorf("mode %s, findings %v", rep.GitMode, rep.Findings)
		}
	})

	t.Run("story-blob", func(t *testing.T) {
		g := &fakeGit{promisor: "origin", base: baseCommit, readErr: notFound,
			states:  map[string]gitrepo.PathState{path: committedChange()},
			commits: map[string][]gitrepo.Commit{path: {janeCommit}}}
		in := input(r, c, st)
		in.Git = g
		rep := Validate(in)
		f := find(t, rep, "history-missing")
		want := "story 2.1 was modified since the interruption by a1b2c3d (Jane Doe, 2026-03-02T10:30:00Z), and its version at the interruption commit 0123456 is not in this partial clone: whether its Acceptance Criteria or Scope changed cannot be told; fetch the missing objects with `git fetch --refetch --no-filter origin`"
		if f.Severity != workflow.Blocking || f.Path != path || !strings.HasPrefix(f.Message, want) {
			t.Errorf("finding %+v", f)
		}
		if has(rep, "story-edited") || rep.Status != StatusConflicts {
			t.Errorf("status %s, findings %v", rep.Status, rep.Findings)
		}
	})

	t.Run("other-read-error", func(t *testing.T) {
		// not a missing object: the old version is unreadable, as before
		g := &fakeGit{base: baseCommit, readErr: errors.New("too big"),
			states: map[string]gitrepo.PathState{path: committedChange()}}
		in := input(r, c, st)
		in.Git = g
		rep := Validate(in)
		if !has(rep, "story-edited") || has(rep, "history-missing") {
			t.Errorf("findings %v", rep.Findings)
		}
	})

	t.Run("walk-cut", func(t *testing.T) {
		g := &fakeGit{shallow: true, base: baseCommit,
			states:     map[string]gitrepo.PathState{"src/x.ts": committedChange()},
			commitsErr: fmt.Errorf("walk: %w", gitrepo.ErrHistoryMissing)}
		in := input(r, c, st)
		in.Git = g
		rep := Validate(in)
		f := find(t, rep, "history-missing")
		want := "the git history does not reach the interruption commit 0123456 along HEAD's first parents (shallow clone): who changed 1 referenced file (src/x.ts) since cannot be told; fetch the full history with `git fetch --unshallow`"
		if f.Severity != workflow.Blocking || !strings.HasPrefix(f.Message, want) {
			t.Errorf("finding %+v", f)
		}
		if fc := find(t, rep, "file-changed"); !strings.Contains(fc.Message, "by commits since the interruption") {
			t.Errorf("file-changed %q", fc.Message)
		}
		if has(rep, "git-error") {
			t.Errorf("findings %v", rep.Findings)
		}
	})
}
