package validate

import (
	"errors"
	"fmt"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// --- (a) another workflow ---------------------------------------------------

func TestConflictAnotherWorkflow(t *testing.T) {
	r := newRepo(t)
	st := r.story("2.1", "InProgress", "AC", "notes", time.Time{})
	other := func(id string, updated time.Time) workflow.Candidate {
		return workflow.Candidate{ID: id, Type: workflow.TypeQALoop, Stories: []string{"2.1"}, Resumable: true, UpdatedAt: updated,
			Source: workflow.SourceRef{Kind: workflow.KindQALoop, Path: "qa/loop-status.json"}}
	}
	cases := []struct {
		name   string
		other  workflow.Candidate
		live   bool
		want   bool
		substr string
	}{
		{"started-after", other("qa-loop:2.1", t0.Add(time.Minute)), false, true, "started for story 2.1 after this one was interrupted: qa-loop:2.1 (qa/loop-status.json)"},
		{"older", other("qa-loop:2.1", t0.Add(-time.Minute)), false, false, ""},
		{"live-lock", other("qa-loop:2.1", t0.Add(-time.Hour)), true, true, "holds a live lock"},
		{"not-resumable", func() workflow.Candidate { o := other("qa-loop:2.1", t0.Add(time.Hour)); o.Resumable = false; return o }(), false, false, ""},
		{"same-id", other("workflow:sdc-2.1", t0.Add(time.Hour)), false, false, ""},
		{"story-candidate", func() workflow.Candidate {
			o := other("sdc:2.1", t0.Add(time.Hour))
			o.Source.Kind = workflow.KindStory
			return o
		}(), false, false, ""},
		{"other-story", func() workflow.Candidate {
			o := other("qa-loop:2.2", t0.Add(time.Hour))
			o.Stories = []string{"2.2"}
			return o
		}(), false, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := input(r, sdc("2.1"), st)
			in.Others = []workflow.Candidate{tc.other}
			in.LiveLock = func(id string) bool { return tc.live && id == tc.other.ID }
			rep := Validate(in)
			if got := has(rep, "another-workflow"); got != tc.want {
				t.Fatalf("another-workflow = %v, want %v; findings %v", got, tc.want, rep.Findings)
			}
			if tc.want {
				f := find(t, rep, "another-workflow")
				if f.Severity != workflow.Blocking || !strings.Contains(f.Message, tc.substr) || f.Path != "qa/loop-status.json" {
					t.Errorf("finding = %+v", f)
				}
			}
		})
	}
}

// --- (b) story edits --------------------------------------------------------

func TestConflictStoryEdits(t *testing.T) {
	const path = "docs/stories/2.1.story.md"
	cases := []struct {
		name    string
		oldAC   string
		oldDev  string
		oldText string // replaces the whole old story when set
		state   gitrepo.PathState
		code    string
		sev     workflow.Severity
		substr  string
	}{
		{name: "acceptance", oldAC: "old AC", oldDev: "notes", state: committedChange(), code: "acceptance-changed", sev: workflow.Blocking,
			substr: "the Acceptance Criteria of story 2.1 changed since the interruption by a1b2c3d (Jane Doe, 2026-03-02T10:30:00Z)"},
		{name: "scope", oldText: strings.Replace(storyText("2.1", "InProgress", "AC", "notes"), "The scope.", "A smaller scope.", 1),
			state: committedChange(), code: "scope-changed", sev: workflow.Blocking, substr: "the Scope of story 2.1 changed"},
		{name: "dependencies", oldText: strings.Replace(storyText("2.1", "InProgress", "AC", "notes"), "None.", "Story 1.9.", 1),
			state: committedChange(), code: "dependencies-changed", sev: workflow.Warning, substr: "the Dependencies of story 2.1 changed"},
		{name: "dev-notes", oldAC: "AC", oldDev: "old notes", state: committedChange(), code: "story-edited", sev: workflow.Warning,
			substr: "story 2.1 was modified since the interruption (Dev Notes section updated) by a1b2c3d (Jane Doe, 2026-03-02T10:30:00Z)"},
		// the workflow's own story, edited in the working tree: progress
		{name: "dev-notes-uncommitted", oldAC: "AC", oldDev: "old notes", state: uncommittedChange(), code: "progress", sev: workflow.Info,
			substr: "story 2.1 has the workflow's own work in progress since the interruption (Dev Notes section updated): an uncommitted edit (modified 2026-03-02T10:20:00Z)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRepo(t)
			st := r.story("2.1", "InProgress", "AC", "notes", t0.Add(20*time.Minute))
			old := tc.oldText
			if old == "" {
				old = storyText("2.1", "InProgress", tc.oldAC, tc.oldDev)
			}
			g := &fakeGit{base: baseCommit,
				states:  map[string]gitrepo.PathState{path: tc.state},
				commits: map[string][]gitrepo.Commit{path: {janeCommit}},
				old:     map[string]string{path: old}}
			c := sdc("2.1", workflow.RefFile{Path: path, Phase: "implement", Critical: true})
			in := input(r, c, st)
			in.Git = g
			rep := Validate(in)
			var conflicts []workflow.Finding
			for _, f := range rep.Findings {
				if f.Check == workflow.CheckConflict {
					conflicts = append(conflicts, f)
				}
			}
			if len(conflicts) != 1 || conflicts[0].Code != tc.code || conflicts[0].Severity != tc.sev {
				t.Fatalf("conflict findings = %+v, want one %s %s", conflicts, tc.sev, tc.code)
			}
			if f := conflicts[0]; !strings.Contains(f.Message, tc.substr) || f.Path != path || f.Phase != "implement" {
				t.Errorf("finding = %+v\nwant message containing %q", f, tc.substr)
			}
			fr := fileReport(t, rep, path)
			blocking := tc.sev == workflow.Blocking
			if (len(rep.ChangedPhases) == 1) != blocking {
				t.Errorf("ChangedPhases = %v for a %s change", rep.ChangedPhases, tc.sev)
			}
			if fr.State != FileChangedCommitted && fr.State != FileChangedUncommitted || fr.Detail == "" {
				t.Errorf("file report = %+v", fr)
			}
			if rep.GitMode != GitModeGit || rep.Base != baseCommit {
				t.Errorf("git mode %q base %+v", rep.GitMode, rep.Base)
			}
		})
	}
}

func TestConflictStoryEditsSkipped(t *testing.T) {
	const path = "docs/stories/2.1.story.md"
	r := newRepo(t)
	st := r.story("2.1", "InProgress", "AC", "notes", t0.Add(20*time.Minute))
	old := storyText("2.1", "InProgress", "old AC", "notes")

	// Not at base: the story was created after the interruption — no (b).
	g := &fakeGit{base: baseCommit, states: map[string]gitrepo.PathState{path: {BaseHash: "", HeadHash: "h", DiskHash: "h", OnDisk: true, Changed: true, Committed: true}}}
	in := input(r, sdc("2.1"), st)
	in.Git = g
	if rep := Validate(in); has(rep, "acceptance-changed") || rep.Status != StatusClean {
		t.Errorf("story absent at base: findings %v", rep.Findings)
	}

	// A story candidate's own file is its state: no (b).
	g = &fakeGit{base: baseCommit, states: map[string]gitrepo.PathState{path: committedChange()}, old: map[string]string{path: old}}
	c := workflow.Candidate{ID: "sdc:2.1", Type: workflow.TypeSDC, Stories: []string{"2.1"}, UpdatedAt: t0, Resumable: true,
		Source: workflow.SourceRef{Kind: workflow.KindStory, Path: path, Priority: workflow.PriorityInProgress},
		Files:  []workflow.RefFile{{Path: path, Critical: true}}}
	in = input(r, c, st)
	in.Git = g
	if rep := Validate(in); rep.Status != StatusClean {
		t.Errorf("story candidate: findings %v", rep.Findings)
	}

	// An uncommitted edit from before the interruption is the workflow's own.
	r.write(path, storyText("2.1", "InProgress", "AC", "notes"), t0.Add(-time.Minute))
	g = &fakeGit{base: baseCommit, states: map[string]gitrepo.PathState{path: uncommittedChange()}, old: map[string]string{path: old}}
	in = input(r, sdc("2.1"), st)
	in.Git = g
	rep := Validate(in)
	if f := find(t, rep, "own-uncommitted-work"); f.Severity != workflow.Info || rep.Status != StatusClean {
		t.Errorf("own work: %+v, status %s", f, rep.Status)
	}

	// A story the state regards as done is not compared.
	g = &fakeGit{base: baseCommit, states: map[string]gitrepo.PathState{path: committedChange()}, old: map[string]string{path: old}}
	c = sdc("2.1")
	c.StoryRefs[0].Status = "done"
	done := r.story("2.1", "Done", "AC", "notes", t0.Add(20*time.Minute))
	in = input(r, c, done)
	in.Git = g
	if rep := Validate(in); has(rep, "acceptance-changed") {
		t.Errorf("done story compared: %v", rep.Findings)
	}
}

// --- (c) referenced files ---------------------------------------------------

func TestConflictFiles(t *testing.T) {
	r := newRepo(t)
	st := r.story("4.2", "InProgress", "AC", "notes", time.Time{})
	r.write("src/committed.ts", "x", t0.Add(30*time.Minute))
	r.write("src/uncommitted.ts", "x", t0.Add(40*time.Minute))
	r.write("src/own.ts", "x", t0.Add(-10*time.Minute))
	r.write("src/same.ts", "x", time.Time{})
	r.write("src/recorded.ts", "x", t0.Add(40*time.Minute))
	r.write("src/recorded-diff.ts", "x", t0.Add(-10*time.Minute))
	r.write("src/unreferenced.ts", "x", t0.Add(40*time.Minute))
	const rec = "1111111111111111111111111111111111111111"
	g := &fakeGit{base: baseCommit,
		states: map[string]gitrepo.PathState{
			"src/committed.ts":   committedChange(),
			"src/uncommitted.ts": uncommittedChange(),
			"src/own.ts":         uncommittedChange(),
			// Differs from base, but equals the hash the state recorded.
			"src/recorded.ts": {BaseHash: "b", HeadHash: "b", DiskHash: rec, OnDisk: true, Changed: true, Uncommited: true},
			// Equals base, but not the recorded hash.
			"src/recorded-diff.ts": {BaseHash: "2222222222222222222222222222222222222222", HeadHash: "2222222222222222222222222222222222222222", DiskHash: "2222222222222222222222222222222222222222", OnDisk: true},
			"src/unreferenced.ts":  committedChange(),
		},
		commits: map[string][]gitrepo.Commit{"src/committed.ts": {janeCommit, baseCommit, janeCommit, baseCommit}},
	}
	c := sdc("4.2",
		workflow.RefFile{Path: "src/committed.ts", Phase: "implement", Produced: true},
		workflow.RefFile{Path: "src/uncommitted.ts", Phase: "review"},
		workflow.RefFile{Path: "src/own.ts", Phase: "implement"},
		workflow.RefFile{Path: "src/same.ts", Phase: "implement"},
		workflow.RefFile{Path: "src/recorded.ts", Phase: "implement", Hash: rec},
		workflow.RefFile{Path: "src/recorded-diff.ts", Phase: "validate", Hash: rec},
	)
	in := input(r, c, st)
	in.Git = g
	rep := Validate(in)

	f := find(t, rep, "file-changed")
	if f.Severity != workflow.Blocking || f.Path != "src/committed.ts" ||
		!strings.Contains(f.Message, "src/committed.ts was changed since the interruption by a1b2c3d (Jane Doe, 2026-03-02T10:30:00Z), 0123456 (Dev Bot, 2026-03-02T09:00:00Z), a1b2c3d") {
		t.Errorf("file-changed = %+v", f)
	}
	if strings.Count(f.Message, "(") > 4 { // three commits + the phase note
		t.Errorf("more than 3 commits named: %q", f.Message)
	}
	var uncommitted []string
	for _, f := range rep.Findings {
		if f.Code == "file-changed-uncommitted" {
			uncommitted = append(uncommitted, f.Path)
			if f.Path == "src/uncommitted.ts" && !strings.Contains(f.Message, "src/uncommitted.ts has an uncommitted edit") {
				t.Errorf("message = %q", f.Message)
			}
		}
	}
	if fmt.Sprint(uncommitted) != "[src/recorded-diff.ts src/uncommitted.ts]" {
		t.Errorf("file-changed-uncommitted paths = %v", uncommitted)
	}
	if f := find(t, rep, "own-uncommitted-work"); f.Path != "src/own.ts" || f.Severity != workflow.Info {
		t.Errorf("own work = %+v", f)
	}
	for _, f := range rep.Findings {
		if f.Path == "src/unreferenced.ts" || f.Path == "src/same.ts" || f.Path == "src/recorded.ts" {
			t.Errorf("unexpected finding %+v", f)
		}
	}
	for _, ps := range g.compared {
		for _, p := range ps {
			if p == "src/unreferenced.ts" {
				t.Error("an unreferenced file was compared")
			}
		}
	}
	states := map[string]string{}
	for _, fr := range rep.Files {
		states[fr.Path] = fr.State
	}
	want := map[string]string{
		"docs/stories/4.2.story.md": "", // not referenced
		"src/committed.ts":          FileChangedCommitted, "src/uncommitted.ts": FileChangedUncommitted,
		"src/own.ts": FileChangedUncommitted, "src/same.ts": FileUnchanged,
		"src/recorded.ts": FileUnchanged, "src/recorded-diff.ts": FileChangedUncommitted,
	}
	delete(want, "docs/stories/4.2.story.md")
	if fmt.Sprint(states) != fmt.Sprint(want) {
		t.Errorf("file states\n got %v\nwant %v", states, want)
	}
	if fr := fileReport(t, rep, "src/committed.ts"); len(fr.By) != 3 || fr.By[0].Short != "a1b2c3d" {
		t.Errorf("By = %+v", fr.By)
	}
	if want := "[implement review validate]"; fmt.Sprint(rep.ChangedPhases) != want {
		t.Errorf("ChangedPhases = %v, want %s (own work excluded)", rep.ChangedPhases, want)
	}
	if rep.Status != StatusConflicts {
		t.Errorf("status = %s", rep.Status)
	}
}

// TestConflictDeletedFile: a referenced file deleted by a commit is reported
// missing by integrity, and the file report names the commit.
func TestConflictDeletedFile(t *testing.T) {
	r := newRepo(t)
	st := r.story("4.2", "InProgress", "AC", "notes", time.Time{})
	g := &fakeGit{base: baseCommit,
		states:  map[string]gitrepo.PathState{"src/gone.ts": {BaseHash: "b", OnDisk: false, Changed: true, Committed: true}},
		commits: map[string][]gitrepo.Commit{"src/gone.ts": {janeCommit}}}
	in := input(r, sdc("4.2", workflow.RefFile{Path: "src/gone.ts", Phase: "implement", Critical: true}), st)
	in.Git = g
	rep := Validate(in)
	find(t, rep, "missing-critical")
	if fr := fileReport(t, rep, "src/gone.ts"); fr.State != FileMissing || len(fr.By) != 1 || !strings.Contains(fr.Detail, "a1b2c3d") {
		t.Errorf("file report = %+v", fr)
	}
	if has(rep, "file-changed") {
		t.Error("a deletion was reported twice")
	}
}

// --- (d) epic stories -------------------------------------------------------

func TestConflictEpicStoriesAdded(t *testing.T) {
	r := newRepo(t)
	s1 := r.story("3.1", "Done", "AC", "n", time.Time{})
	s2 := r.story("3.2", "InProgress", "AC", "n", time.Time{})
	s9 := r.story("3.9", "Draft", "AC", "n", time.Time{})
	s31 := r.story("31.1", "Draft", "AC", "n", time.Time{})
	other := r.story("4.1", "Draft", "AC", "n", time.Time{})
	tagged := r.story("7.7", "Draft", "AC", "n", time.Time{})
	tagged.Epic = "Epic 3"
	c := workflow.Candidate{ID: "epic:EPIC-3", Type: workflow.TypeEpic, Key: "EPIC-3", UpdatedAt: t0, Resumable: true,
		Source:    workflow.SourceRef{Kind: workflow.KindEpicState, Path: ".aiox/epic-3-state.yaml", Priority: 1},
		Stories:   []string{"3.1", "3.2"},
		StoryRefs: []workflow.StoryRef{{ID: "3.1", Status: "done"}, {ID: "3.2", Status: "in_progress"}},
		Epic:      &workflow.Epic{EpicID: "EPIC-3", Waves: []workflow.Wave{{Number: 1, Stories: []workflow.StoryRef{{ID: "3.1"}, {ID: "3.2"}}}}},
	}
	rep := Validate(input(r, c, s1, s2, s9, s31, other, tagged))
	var added []string
	for _, f := range rep.Findings {
		if f.Code == "epic-stories-added" {
			if f.Severity != workflow.Warning {
				t.Errorf("severity %s", f.Severity)
			}
			added = append(added, f.Path)
		}
	}
	if want := "[docs/stories/3.9.story.md docs/stories/7.7.story.md]"; fmt.Sprint(added) != want {
		t.Errorf("epic-stories-added paths = %v, want %s", added, want)
	}
	// An epic id without a number only matches stories by their epic field.
	if storyid.EpicNumber("EPIC-ACT") != "" || storyid.EpicNumber("epic 12") != "12" || storyid.EpicNumber("3") != "3" {
		t.Error("storyid.EpicNumber")
	}
}

// --- fallbacks --------------------------------------------------------------

func TestNoGitFallback(t *testing.T) {
	r := newRepo(t)
	st := r.story("2.1", "InProgress", "AC", "notes", t0.Add(2*time.Hour))
	r.write("src/after.ts", "x", t0.Add(time.Hour))
	r.write("src/before.ts", "x", t0.Add(-time.Hour))
	r.write("src/same-second.ts", "x", t0.Add(500*time.Millisecond))
	r.write("src/hashed.ts", "hello\n", t0.Add(time.Hour))
	r.write("src/hashed-diff.ts", "changed\n", t0.Add(-time.Hour))
	const helloBlob = "ce013625030ba8dba906f756967f9e9ca394464a" // git hash-object of "hello\n"
	c := sdc("2.1",
		workflow.RefFile{Path: "src/after.ts", Phase: "implement"},
		workflow.RefFile{Path: "src/before.ts", Phase: "implement"},
		workflow.RefFile{Path: "src/same-second.ts", Phase: "implement"},
		workflow.RefFile{Path: "src/hashed.ts", Phase: "implement", Hash: helloBlob},
		workflow.RefFile{Path: "src/hashed-diff.ts", Phase: "review", Hash: helloBlob},
	)
	rep := Validate(input(r, c, st))
	if rep.GitMode != GitModeMtime || !rep.Base.IsZero() {
		t.Errorf("git mode %q base %+v", rep.GitMode, rep.Base)
	}
	if f := find(t, rep, "no-git"); f.Severity != workflow.Info {
		t.Errorf("no-git = %+v", f)
	}
	var since []string
	for _, f := range rep.Findings {
		if f.Code == "changed-since" {
			if f.Severity != workflow.Warning {
				t.Errorf("changed-since is %s", f.Severity)
			}
			since = append(since, f.Path)
		}
	}
	if want := "[docs/stories/2.1.story.md src/after.ts]"; fmt.Sprint(since) != want {
		t.Errorf("changed-since = %v, want %s", since, want)
	}
	if f := find(t, rep, "file-changed"); f.Path != "src/hashed-diff.ts" || f.Severity != workflow.Blocking {
		t.Errorf("recorded-hash mismatch = %+v", f)
	}
	if fr := fileReport(t, rep, "src/hashed.ts"); fr.State != FileUnchanged {
		t.Errorf("hashed.ts = %+v (equal to the recorded hash)", fr)
	}
	if fr := fileReport(t, rep, "src/after.ts"); fr.State != FileChanged {
		t.Errorf("after.ts = %+v", fr)
	}
	if fmt.Sprint(rep.ChangedPhases) != "[review]" {
		t.Errorf("ChangedPhases = %v (mtime changes are not certain)", rep.ChangedPhases)
	}
}

// TestHistoryMissing: a shallow or partial clone that does not reach the
// interruption never falls back to modification times (a clone writes every
// file): the referenced files are "unknown" and one blocking conflict names
// them and the fix. A complete history without a commit at the time keeps the
// mtime fallback.
func TestHistoryMissing(t *testing.T) {
	r := newRepo(t)
	st := r.story("2.1", "InProgress", "AC", "notes", time.Time{})
	r.write("src/after.ts", "x", t0.Add(time.Hour))
	r.write("src/hashed.ts", "same", t0.Add(time.Hour))
	c := sdc("2.1", workflow.RefFile{Path: "src/after.ts", Phase: "implement"},
		workflow.RefFile{Path: "src/hashed.ts", Phase: "implement", Hash: gitBlob("same")})
	missing := fmt.Errorf("walk: %w: %w", gitrepo.ErrHistoryMissing, gitrepo.ErrNoCommit)
	for _, tc := range []struct {
		name     string
		shallow  bool
		promisor string
		err      error
		code     string
		sev      workflow.Severity
		msg      string
		mode     string
	}{
		{"shallow", true, "", gitrepo.ErrNoCommit, "history-missing", workflow.Blocking, "(2026-03-02T10:00:00Z; shallow clone): changes by others to 2 referenced files (docs/stories/2.1.story.md, src/after.ts) cannot be ruled out; fetch the full history with `git fetch --unshallow` (GitHub Actions: actions/checkout with fetch-depth: 0)", GitModeHistoryMissing},
		{"partial", false, "origin", missing, "history-missing", workflow.Blocking, "(2026-03-02T10:00:00Z; partial clone): changes by others to 2 referenced files (docs/stories/2.1.story.md, src/after.ts) cannot be ruled out; fetch the missing objects with `git fetch --refetch --no-filter origin` (GitHub Actions: actions/checkout without a filter) and run again", GitModeHistoryMissing},
		{"partial-odd-remote", false, "-x;rm", missing, "history-missing", workflow.Blocking, "(2026-03-02T10:00:00Z; partial clone): changes by others to 2 referenced files (docs/stories/2.1.story.md, src/after.ts) cannot be ruled out; fetch the missing objects with `git fetch --refetch --no-filter origin`", GitModeHistoryMissing},
		{"missing-objects", false, "", missing, "history-missing", workflow.Blocking, "(2026-03-02T10:00:00Z; repository with missing objects)", GitModeHistoryMissing},
		{"no-commit", false, "", fmt.Errorf("find: %w", gitrepo.ErrNoCommit), "git-fallback", workflow.Info, "no commit at or before the interruption (2026-03-02T10:00:00Z)", GitModeMtime},
		{"broken", false, "", errors.New("object not found"), "git-error", workflow.Warning, "object not found", GitModeMtime},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &fakeGit{shallow: tc.shallow, promisor: tc.promisor, baseErr: tc.err}
			in := input(r, c, st)
			in.Git = g
			rep := Validate(in)
			f := find(t, rep, tc.code)
			if f.Severity != tc.sev || !strings.Contains(f.Message, tc.msg) {
				t.Errorf("finding = %+v", f)
			}
			if rep.GitMode != tc.mode {
				t.Errorf("git mode %q", rep.GitMode)
			}
			if len(g.compared) != 0 {
				t.Error("Compare called without a base")
			}
			if fr := fileReport(t, rep, "src/hashed.ts"); fr.State != FileUnchanged {
				t.Errorf("hashed.ts = %+v (equal to the recorded hash)", fr)
			}
			if tc.mode != GitModeHistoryMissing {
				if f := find(t, rep, "changed-since"); f.Path != "src/after.ts" {
					t.Errorf("changed-since = %+v", f)
				}
				return
			}
			if has(rep, "changed-since") {
				t.Errorf("modification times compared in a cut-short history: %v", rep.Findings)
			}
			if fr := fileReport(t, rep, "src/after.ts"); fr.State != FileUnknown {
				t.Errorf("after.ts = %+v", fr)
			}
			if rep.Status != StatusConflicts || f.Check != workflow.CheckConflict {
				t.Errorf("status %s, check %s: must decide like a conflict", rep.Status, f.Check)
			}
		})
	}
}

func TestGitErrors(t *testing.T) {
	r := newRepo(t)
	st := r.story("2.1", "InProgress", "AC", "notes", time.Time{})
	r.write("src/x.ts", "x", t0.Add(time.Hour))
	c := sdc("2.1", workflow.RefFile{Path: "src/x.ts", Phase: "implement"})

	g := &fakeGit{base: baseCommit, compareErr: errors.New("boom")}
	in := input(r, c, st)
	in.Git = g
	rep := Validate(in)
	if !has(rep, "git-error") || !has(rep, "changed-since") || rep.GitMode != GitModeMtime || !rep.Base.IsZero() {
		t.Errorf("compare error: mode %s, findings %v", rep.GitMode, rep.Findings)
	}

	g = &fakeGit{base: baseCommit, states: map[string]gitrepo.PathState{"src/x.ts": committedChange()}, commitsErr: errors.New("walk failed")}
	in.Git = g
	rep = Validate(in)
	f := find(t, rep, "file-changed")
	if !strings.Contains(f.Message, "by commits since the interruption") || !has(rep, "git-error") {
		t.Errorf("commits error: %v", rep.Findings)
	}
}

func TestNoBaseline(t *testing.T) {
	r := newRepo(t)
	st := r.story("2.1", "InProgress", "AC", "notes", time.Time{})
	r.write("src/x.ts", "x", t0.Add(time.Hour))
	c := sdc("2.1", workflow.RefFile{Path: "src/x.ts"})
	c.UpdatedAt = time.Time{}
	for _, g := range []Git{nil, &fakeGit{base: baseCommit}} {
		in := input(r, c, st)
		in.Git = g
		rep := Validate(in)
		if !has(rep, "no-baseline") || !has(rep, "age-unknown") || rep.GitMode != GitModeNone || rep.AgeClass != AgeUnknown {
			t.Errorf("git %v: mode %s age %s findings %v", g != nil, rep.GitMode, rep.AgeClass, rep.Findings)
		}
		if fr := fileReport(t, rep, "src/x.ts"); fr.State != FileUnknown {
			t.Errorf("state = %s", fr.State)
		}
	}
}

// TestStoryEditWithoutParser: without a parser for the old version, a
// changed story is still reported, without naming sections.
func TestStoryEditWithoutParser(t *testing.T) {
	const path = "docs/stories/2.1.story.md"
	r := newRepo(t)
	st := r.story("2.1", "InProgress", "AC", "notes", t0.Add(time.Hour))
	g := &fakeGit{base: baseCommit, states: map[string]gitrepo.PathState{path: uncommittedChange()},
		old: map[string]string{path: storyText("2.1", "InProgress", "old", "notes")}}
	in := input(r, sdc("2.1"), st)
	in.Git, in.ParseStory = g, nil
	rep := Validate(in)
	if f := find(t, rep, "story-edited"); f.Message != "story 2.1 was modified since the interruption by an uncommitted edit" {
		t.Errorf("message = %q", f.Message)
	}
}

// TestConflictStoryEditsTrimmed checks a story whose scan kept only some of
// its sections (Story.SectionsTrimmed: a story not in flight, see
// discover/story): its sections are parsed afresh from the file, so only
// the section that changed is reported, as for a story with all of them.
func TestConflictStoryEditsTrimmed(t *testing.T) {
	const path = "docs/stories/2.1.story.md"
	for _, tc := range []struct{ oldAC, oldDev, code string }{
		{"old AC", "notes", "acceptance-changed"},
		{"AC", "old notes", "story-edited"},
	} {
		r := newRepo(t)
		st := r.story("2.1", "InProgress", "AC", "notes", t0.Add(20*time.Minute))
		var kept workflow.Sections
		for _, sec := range st.Sections {
			if sec.Name == workflow.SectionChangeLog || sec.Name == workflow.SectionDependencies {
				kept = append(kept, sec)
			}
		}
		if len(kept) == len(st.Sections) {
			t.Fatalf("nothing to trim in %+v", st.Sections)
		}
		st.Sections, st.SectionsTrimmed = kept, true
		g := &fakeGit{base: baseCommit,
			states:  map[string]gitrepo.PathState{path: committedChange()},
			commits: map[string][]gitrepo.Commit{path: {janeCommit}},
			old:     map[string]string{path: storyText("2.1", "InProgress", tc.oldAC, tc.oldDev)}}
		in := input(r, sdc("2.1", workflow.RefFile{Path: path, Phase: "implement", Critical: true}), st)
		in.Git = g
		var got []string
		for _, f := range Validate(in).Findings {
			if f.Check == workflow.CheckConflict {
				got = append(got, f.Code)
			}
		}
		if len(got) != 1 || got[0] != tc.code {
			t.Errorf("old AC %q, dev notes %q: conflict findings %v, want [%s]", tc.oldAC, tc.oldDev, got, tc.code)
		}
	}
}
