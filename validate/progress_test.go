package validate

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// ownGit is a fakeGit that can also tell the files a commit changed and
// who last changed a path at the base (an OwnershipGit).
type ownGit struct {
	*fakeGit
	changed map[string][]string       // ChangedPaths by commit hash
	more    map[string]bool           // ChangedPaths' more by commit hash
	last    map[string]gitrepo.Commit // LastChangeAt by path
	asked   int                       // ChangedPaths calls
}

func (g *ownGit) ChangedPaths(c gitrepo.Commit, max int) ([]string, bool, error) {
	g.asked++
	ps, ok := g.changed[c.Hash]
	if !ok {
		return nil, false, fmt.Errorf("no commit %s", c.Short)
	}
	return ps, g.more[c.Hash], nil
}

func (g *ownGit) LastChangeAt(c gitrepo.Commit, paths []string, max int) map[string]gitrepo.Commit {
	out := map[string]gitrepo.Commit{}
	for _, p := range paths {
		if cm, ok := g.last[p]; ok {
			out[p] = cm
		}
	}
	return out
}

// commitBy is a commit by author (name, e-mail) at t0+d.
func commitBy(hash, name, email string, d time.Duration) gitrepo.Commit {
	h := strings.Repeat(hash, 40/len(hash)+1)[:40]
	return gitrepo.Commit{Hash: h, Short: h[:7], Author: name, Email: email, When: t0.Add(d)}
}

// TestProgress: the workflow's own changes since the interruption (an
// uncommitted edit of its own files; commits by its authors touching only
// its own files) are "progress" and move the interruption time; anyone
// else's change, a commit reaching outside its files, a wholesale rewrite
// and changed Acceptance Criteria are conflicts.
func TestProgress(t *testing.T) {
	const (
		storyP = "docs/stories/2.1.story.md"
		login  = "src/login.ts"
		prd    = "docs/prd.md"
	)
	anaBase := commitBy("aa", "Ana Lima", "ana@example.com", -2*time.Hour)
	anaWIP := commitBy("a1", "Ana Lima", "ANA@example.com", 40*time.Minute) // e-mails match case-insensitively
	anaWide := commitBy("a2", "Ana Lima", "ana@example.com", 50*time.Minute)
	anaHuge := commitBy("a3", "Ana Lima", "ana@example.com", 50*time.Minute)
	bruno := commitBy("b1", "Bruno Costa", "bruno@example.com", 60*time.Minute)
	anaNoMail := commitBy("a4", "ana lima", "", 45*time.Minute)
	many := make([]gitrepo.Commit, ownCommitLimit)
	for i := range many {
		many[i] = anaWIP
	}
	changed := map[string][]string{
		anaWIP.Hash: {login}, anaWide.Hash: {"README.md", login}, anaHuge.Hash: {login},
		bruno.Hash: {login}, anaNoMail.Hash: {login, storyP}, commitBy("c1", "", "", 0).Hash: {login},
	}
	lines := "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\n"

	cases := []struct {
		name      string
		path      string
		state     gitrepo.PathState
		commits   []gitrepo.Commit
		disk, old string // the file now and at the base ("" for a story: written by the case)
		oldAC     string // a story case's Acceptance Criteria at the base
		oldDev    string // a story case's Dev Notes at the base
		mtime     time.Duration
		noAuthors bool
		wantCode  string
		wantSev   workflow.Severity
		wantMsg   string
		wantAt    time.Duration // InterruptedAt - t0
	}{
		{name: "uncommitted edit of a File List file", path: login, state: uncommittedChange(), disk: lines + "line 10\n", old: lines, mtime: 70 * time.Minute,
			wantCode: "progress", wantSev: workflow.Info, wantAt: 70 * time.Minute,
			wantMsg: "src/login.ts has the workflow's own work in progress since the interruption: an uncommitted edit (modified 2026-03-02T11:10:00Z) (output of phase implement)"},
		{name: "own commit", path: login, state: committedChange(), commits: []gitrepo.Commit{anaWIP}, disk: lines + "x\n", old: lines,
			wantCode: "progress", wantSev: workflow.Info, wantAt: 40 * time.Minute,
			wantMsg: "src/login.ts has the workflow's own work in progress since the interruption: commit a1a1a1a (Ana Lima, 2026-03-02T10:40:00Z)"},
		{name: "own commit, then an uncommitted edit", path: login, state: gitrepo.PathState{BaseHash: "b", HeadHash: "h", DiskHash: "d", OnDisk: true, Changed: true, Committed: true, Uncommited: true},
			commits: []gitrepo.Commit{anaWIP}, disk: lines + "x\ny\n", old: lines, mtime: 80 * time.Minute,
			wantCode: "progress", wantSev: workflow.Info, wantAt: 80 * time.Minute,
			wantMsg: "commit a1a1a1a (Ana Lima, 2026-03-02T10:40:00Z) and an uncommitted edit (modified 2026-03-02T11:20:00Z)"},
		{name: "matched by name without an e-mail", path: login, state: committedChange(), commits: []gitrepo.Commit{anaNoMail}, disk: lines, old: lines,
			wantCode: "progress", wantSev: workflow.Info, wantAt: 45 * time.Minute, wantMsg: "commit a4a4a4a (ana lima, 2026-03-02T10:45:00Z)"},
		{name: "same name, another e-mail", path: login, state: committedChange(), commits: []gitrepo.Commit{commitBy("c1", "Ana Lima", "ana@elsewhere.org", time.Hour)}, disk: lines, old: lines,
			wantCode: "file-changed", wantSev: workflow.Blocking, wantMsg: "by c1c1c1c (Ana Lima"},
		{name: "another author's commit after the own one", path: login, state: committedChange(), commits: []gitrepo.Commit{bruno, anaWIP}, disk: lines, old: lines,
			wantCode: "file-changed", wantSev: workflow.Blocking,
			wantMsg: "src/login.ts was changed since the interruption by b1b1b1b (Bruno Costa, 2026-03-02T11:00:00Z) (output of phase implement)"},
		{name: "own author, commit reaching outside", path: login, state: committedChange(), commits: []gitrepo.Commit{anaWide}, disk: lines, old: lines,
			wantCode: "file-changed", wantSev: workflow.Blocking, wantMsg: "by a2a2a2a (Ana Lima"},
		{name: "own author, too many files to tell", path: login, state: committedChange(), commits: []gitrepo.Commit{anaHuge}, disk: lines, old: lines,
			wantCode: "file-changed", wantSev: workflow.Blocking, wantMsg: "by a3a3a3a (Ana Lima"},
		{name: "more commits than can be vouched for", path: login, state: committedChange(), commits: many, disk: lines, old: lines,
			wantCode: "file-changed", wantSev: workflow.Blocking, wantMsg: "by a1a1a1a (Ana Lima"},
		{name: "authors unknown", path: login, state: committedChange(), commits: []gitrepo.Commit{anaWIP}, disk: lines, old: lines, noAuthors: true,
			wantCode: "file-changed", wantSev: workflow.Blocking, wantMsg: "by a1a1a1a (Ana Lima"},
		{name: "input file, own author's commit", path: prd, state: committedChange(), commits: []gitrepo.Commit{anaWIP}, disk: lines, old: lines,
			wantCode: "file-changed", wantSev: workflow.Blocking, wantMsg: "docs/prd.md was changed since the interruption by a1a1a1a"},
		{name: "input file, uncommitted edit after the interruption", path: prd, state: uncommittedChange(), disk: lines, old: lines, mtime: 30 * time.Minute,
			wantCode: "file-changed-uncommitted", wantSev: workflow.Blocking, wantMsg: "docs/prd.md has an uncommitted edit made after the interruption"},
		{name: "rewritten wholesale", path: login, state: uncommittedChange(), disk: "module.exports = {};\n", old: lines, mtime: 30 * time.Minute,
			wantCode: "file-rewritten", wantSev: workflow.Blocking,
			wantMsg: "src/login.ts was rewritten wholesale since the interruption (fewer than a quarter of its lines are left) by an uncommitted edit"},
		{name: "a short file replaced is an edit", path: login, state: uncommittedChange(), disk: "new\n", old: "old\n", mtime: 30 * time.Minute,
			wantCode: "progress", wantSev: workflow.Info, wantAt: 30 * time.Minute},
		{name: "modified in the future: the age stops at now", path: login, state: uncommittedChange(), disk: lines + "x\n", old: lines, mtime: 5 * time.Hour,
			wantCode: "progress", wantSev: workflow.Info, wantAt: now.Sub(t0)},
		{name: "story Dev Notes by an own commit", path: storyP, state: committedChange(), commits: []gitrepo.Commit{anaWIP}, oldAC: "AC", oldDev: "old notes",
			wantCode: "progress", wantSev: workflow.Info, wantAt: 40 * time.Minute,
			wantMsg: "story 2.1 has the workflow's own work in progress since the interruption (Dev Notes section updated): commit a1a1a1a (Ana Lima, 2026-03-02T10:40:00Z)"},
		{name: "story Dev Notes by another author", path: storyP, state: committedChange(), commits: []gitrepo.Commit{bruno}, oldAC: "AC", oldDev: "old notes",
			wantCode: "story-edited", wantSev: workflow.Warning,
			wantMsg: "story 2.1 was modified since the interruption (Dev Notes section updated) by b1b1b1b (Bruno Costa"},
		{name: "story Acceptance Criteria by an own uncommitted edit", path: storyP, state: uncommittedChange(), oldAC: "old AC", oldDev: "notes", mtime: 30 * time.Minute,
			wantCode: "acceptance-changed", wantSev: workflow.Blocking,
			wantMsg: "the Acceptance Criteria of story 2.1 changed since the interruption by an uncommitted edit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRepo(t)
			mtime := t0.Add(tc.mtime)
			if tc.mtime == 0 {
				mtime = t0.Add(-time.Hour)
			}
			var st *workflow.Story
			old := map[string]string{}
			if tc.path == storyP {
				st = r.story("2.1", "InProgress", "AC", "notes", mtime)
				old[storyP] = storyText("2.1", "InProgress", tc.oldAC, tc.oldDev)
			} else {
				st = r.story("2.1", "InProgress", "AC", "notes", time.Time{})
				r.write(tc.path, tc.disk, mtime)
				old[tc.path] = tc.old
			}
			last := map[string]gitrepo.Commit{storyP: anaBase}
			if tc.noAuthors {
				last = nil
			}
			g := &ownGit{
				fakeGit: &fakeGit{base: baseCommit, states: map[string]gitrepo.PathState{tc.path: tc.state},
					commits: map[string][]gitrepo.Commit{tc.path: tc.commits}, old: old},
				changed: changed, more: map[string]bool{anaHuge.Hash: true}, last: last,
			}
			c := sdc("2.1",
				workflow.RefFile{Path: storyP, Phase: "implement", Critical: true, From: "story"},
				workflow.RefFile{Path: login, Phase: "implement", Produced: true, From: "file-list"},
				workflow.RefFile{Path: prd, Phase: "create"},
			)
			if tc.path != prd {
				r.write(prd, "prd\n", time.Time{})
			}
			if tc.path != login {
				r.write(login, "x\n", time.Time{})
			}
			in := input(r, c, st)
			in.Git = g
			rep := Validate(in)
			var got []workflow.Finding
			for _, f := range rep.Findings {
				if f.Check == workflow.CheckConflict && f.Code == tc.wantCode {
					got = append(got, f)
				}
			}
			if len(got) != 1 || got[0].Severity != tc.wantSev || !strings.Contains(got[0].Message, tc.wantMsg) || got[0].Path != tc.path {
				t.Fatalf("findings %v\nwant one %s %s on %s containing %q", rep.Findings, tc.wantSev, tc.wantCode, tc.path, tc.wantMsg)
			}
			blocking := false
			for _, f := range rep.Findings {
				if f.Severity == workflow.Blocking {
					blocking = true
					if tc.wantSev != workflow.Blocking {
						t.Errorf("unexpected blocking finding %+v", f)
					}
				}
			}
			if blocking != (tc.wantSev == workflow.Blocking) {
				t.Errorf("blocking = %v", blocking)
			}
			wantAt := t0.Add(tc.wantAt)
			if !rep.InterruptedAt.Equal(wantAt) {
				t.Errorf("interrupted at %s, want %s", rep.InterruptedAt, wantAt)
			}
			if wantAge := now.Sub(wantAt); rep.Age != wantAge {
				t.Errorf("age %s, want %s", rep.Age, wantAge)
			}
			if tc.wantCode == "progress" && (len(rep.ChangedPhases) != 0 || rep.Status != StatusClean) {
				t.Errorf("progress made phases %v / status %s", rep.ChangedPhases, rep.Status)
			}
			fr := fileReport(t, rep, tc.path)
			if tc.wantCode == "progress" && !strings.HasPrefix(fr.Detail, "work in progress: ") {
				t.Errorf("file report %+v", fr)
			}
		})
	}
}

// TestOwnFiles: which of a candidate's files are its own (record and
// work) and which it depends on.
func TestOwnFiles(t *testing.T) {
	r := newRepo(t)
	for _, p := range []string{"a/story.md", "src/x.ts", "src/y.ts", "src/out.md", "docs/prd.md", "specs/1/tasks.md", "specs/1/spec.md", "ctx.md", "src/sub.ts"} {
		r.write(p, "x\n", time.Time{})
	}
	c := sdc("9.9",
		workflow.RefFile{Path: "a/story.md", From: "story"},
		workflow.RefFile{Path: "src/x.ts", From: "file-list"},
		workflow.RefFile{Path: "src/y.ts", From: "task T003"},
		workflow.RefFile{Path: "src/sub.ts", From: "subtask 2.2"},
		workflow.RefFile{Path: "src/out.md", Produced: true, From: "phases_completed"},
		workflow.RefFile{Path: "docs/prd.md", From: "taskmaster"},
		workflow.RefFile{Path: "specs/1/tasks.md", From: "feature"},
		workflow.RefFile{Path: "specs/1/spec.md", From: "feature"},
		workflow.RefFile{Path: "ctx.md", From: "context"},
		workflow.RefFile{Path: "../out.ts", From: "file-list"},
	)
	c.Evidence = []workflow.SourceRef{{Path: "./.ai/notes.md"}}
	v := newValidator(input(r, c))
	v.resolveStories()
	v.integrity()
	want := map[string]bool{
		".orchestrate/workflows/sdc-9.9.yaml": true, ".ai/notes.md": true, "docs/stories/9.9.story.md": true,
		"a/story.md": true, "src/x.ts": true, "src/y.ts": true, "src/sub.ts": true, "src/out.md": true, "specs/1/tasks.md": true,
		"docs/prd.md": false, "specs/1/spec.md": false, "ctx.md": false, "../out.ts": false, "README.md": false,
	}
	for p, own := range want {
		if got := v.isOwn(p); got != own {
			t.Errorf("isOwn(%q) = %v, want %v", p, got, own)
		}
	}
}

// TestProgressThroughRun: through a Run's git cache (what every command
// uses) an own commit is still progress, each commit's files are asked
// once for all validations, and a Git that cannot list a commit's files
// vouches for no commit.
func TestProgressThroughRun(t *testing.T) {
	const login = "src/login.ts"
	r := newRepo(t)
	st := r.story("2.1", "InProgress", "AC", "notes", time.Time{})
	r.write(login, "a\nb\n", time.Time{})
	wip := commitBy("a1", "Ana Lima", "ana@example.com", 40*time.Minute)
	fg := &fakeGit{base: baseCommit, states: map[string]gitrepo.PathState{login: committedChange()},
		commits: map[string][]gitrepo.Commit{login: {wip}}, old: map[string]string{login: "a\n"}}
	c := sdc("2.1",
		workflow.RefFile{Path: "docs/stories/2.1.story.md", Phase: "implement", Critical: true, From: "story"},
		workflow.RefFile{Path: login, Phase: "implement", From: "file-list"})
	for _, tc := range []struct {
		name string
		git  Git
		code string
	}{
		{"own commit", &ownGit{fakeGit: fg, changed: map[string][]string{wip.Hash: {login}},
			last: map[string]gitrepo.Commit{"docs/stories/2.1.story.md": commitBy("aa", "Ana Lima", "ana@example.com", -time.Hour)}}, "progress"},
		{"no ownership answers", fg, "file-changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := NewRun(r.root, []workflow.Candidate{c})
			for i := 0; i < 2; i++ {
				in := input(r, c, st)
				in.Git, in.Run = tc.git, run
				rep := Validate(in)
				if f := find(t, rep, tc.code); f.Path != login {
					t.Errorf("%s on %s", tc.code, f.Path)
				}
			}
			if og, ok := tc.git.(*ownGit); ok && og.asked != 1 {
				t.Errorf("ChangedPaths asked %d times for two validations, want 1", og.asked)
			}
		})
	}
}

// firstGit is an ownGit that lists the first files of a commit alone, as
// gitrepo.Repo.ChangedPathsFirst does: ChangedPaths(c, first), full when
// that holds every file.
type firstGit struct {
	*ownGit
	firsts int // ChangedPathsFirst calls
}

func (g *firstGit) ChangedPathsFirst(c gitrepo.Commit, max, first int) ([]string, bool, bool, error) {
	g.firsts++
	ps, ok := g.changed[c.Hash]
	if !ok {
		return nil, false, true, fmt.Errorf("no commit %s", c.Short)
	}
	if first >= max || len(ps) <= first {
		return ps, g.more[c.Hash], true, nil
	}
	return ps[:first], true, false, nil
}

// TestJudgeByFirstPaths: a commit judged by its first changed files
// (validator.changedPaths through ChangedPathsFirst) is the workflow's
// own exactly when it is judged by all of them, for random commits of own
// and other files, some too large to tell, some unreadable.
func TestJudgeByFirstPaths(t *testing.T) {
	r := newRepo(t)
	own := []string{"src/a.ts", "src/b.ts", "src/c.ts", "docs/stories/2.1.story.md"}
	others := []string{"README.md", "src/other.ts", ".orchestrate/workflows/x.yaml"}
	for _, p := range append(append([]string(nil), own...), others...) {
		r.write(p, "x\n", time.Time{})
	}
	st := r.story("2.1", "InProgress", "AC", "notes", time.Time{})
	c := sdc("2.1",
		workflow.RefFile{Path: "docs/stories/2.1.story.md", From: "story"},
		workflow.RefFile{Path: "src/a.ts", From: "file-list"},
		workflow.RefFile{Path: "src/b.ts", From: "file-list"},
		workflow.RefFile{Path: "src/c.ts", From: "file-list"},
		workflow.RefFile{Path: "README.md", From: "context"})
	rng := rand.New(rand.NewSource(5))
	changed, more := map[string][]string{}, map[string]bool{}
	var commits []gitrepo.Commit
	for i := 0; i < 300; i++ {
		cm := commitBy(fmt.Sprintf("%02x", i%256)+fmt.Sprint(i), "Ana Lima", "ana@example.com", time.Minute)
		commits = append(commits, cm)
		if rng.Intn(10) == 0 {
			continue // unreadable
		}
		var ps []string
		for n := rng.Intn(8); n >= 0; n-- {
			if rng.Intn(4) == 0 {
				ps = append(ps, others[rng.Intn(len(others))])
			} else {
				ps = append(ps, own[rng.Intn(len(own))])
			}
		}
		changed[cm.Hash], more[cm.Hash] = ps, rng.Intn(8) == 0
	}
	last := map[string]gitrepo.Commit{"docs/stories/2.1.story.md": commitBy("aa", "Ana Lima", "ana@example.com", -time.Hour)}
	judge := func(g Git) []bool {
		in := input(r, c, st)
		in.Git = g
		v := newValidator(in)
		v.resolveStories()
		v.integrity()
		out := make([]bool, len(commits))
		for i, cm := range commits {
			out[i] = v.judgeCommit(baseCommit, cm) == ""
		}
		return out
	}
	all := &ownGit{fakeGit: &fakeGit{base: baseCommit}, changed: changed, more: more, last: last}
	want := judge(all)
	fg := &firstGit{ownGit: &ownGit{fakeGit: &fakeGit{base: baseCommit}, changed: changed, more: more, last: last}}
	got := judge(fg)
	owned := 0
	for i := range commits {
		if got[i] != want[i] {
			t.Fatalf("commit %d %v (more %v): own %v by its first files, %v by all", i, changed[commits[i].Hash], more[commits[i].Hash], got[i], want[i])
		}
		if want[i] {
			owned++
		}
	}
	if owned == 0 || owned == len(commits) || fg.firsts != len(commits) || fg.asked >= all.asked {
		t.Fatalf("own %d of %d; first files asked %d times, all files %d times (without: %d)", owned, len(commits), fg.firsts, fg.asked, all.asked)
	}
}
