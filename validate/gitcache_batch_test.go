package validate

import (
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// batchGit is an ownGit that also answers LastChangeAt questions in a
// batch (as *gitrepo.Repo does), counting both kinds of call.
type batchGit struct {
	*ownGit
	batches, single int
	asked           [][]string // the paths of each batch question
	unknown         bool       // answer every batch question as not known
}

func (g *batchGit) LastChangeAt(c gitrepo.Commit, paths []string, max int) map[string]gitrepo.Commit {
	g.single++
	return g.ownGit.LastChangeAt(c, paths, max)
}

func (g *batchGit) LastChangesAt(qs []gitrepo.LastChangeQuestion, max int) ([]map[string]gitrepo.Commit, []bool) {
	g.batches++
	answers, known := make([]map[string]gitrepo.Commit, len(qs)), make([]bool, len(qs))
	for i, q := range qs {
		g.asked = append(g.asked, q.Paths)
		if !g.unknown {
			answers[i], known[i] = g.ownGit.LastChangeAt(q.At, q.Paths, max), true
		}
	}
	return answers, known
}

// TestLastChangesPrefetched: with a Run over several resumable workflows,
// who last changed each workflow's record files is asked once for all of
// them (a superset of each validation's paths), and the reports are those
// of validations without a Run; a batch that cannot answer leaves each
// validation to ask on its own.
func TestLastChangesPrefetched(t *testing.T) {
	const login, signup = "src/login.ts", "src/signup.ts"
	r := newRepo(t)
	st1 := r.story("2.1", "InProgress", "AC", "notes", time.Time{})
	st2 := r.story("2.2", "InProgress", "AC", "notes", time.Time{})
	r.write(login, "a\nb\n", time.Time{})
	r.write(signup, "a\nb\n", time.Time{})
	wip := commitBy("a1", "Ana Lima", "ana@example.com", 40*time.Minute)
	other := commitBy("b2", "Bo Chen", "bo@example.com", 50*time.Minute)
	newGit := func() *ownGit {
		fg := &fakeGit{base: baseCommit, states: map[string]gitrepo.PathState{login: committedChange(), signup: committedChange()},
			commits: map[string][]gitrepo.Commit{login: {wip}, signup: {other}}, old: map[string]string{login: "a\n", signup: "a\n"}}
		return &ownGit{fakeGit: fg, changed: map[string][]string{wip.Hash: {login}, other.Hash: {signup}},
			last: map[string]gitrepo.Commit{
				"docs/stories/2.1.story.md": commitBy("aa", "Ana Lima", "ana@example.com", -time.Hour),
				"docs/stories/2.2.story.md": commitBy("cc", "Cy Diaz", "cy@example.com", -time.Hour)}}
	}
	a := sdc("2.1",
		workflow.RefFile{Path: "docs/stories/2.1.story.md", Phase: "implement", Critical: true, From: "story"},
		workflow.RefFile{Path: login, Phase: "implement", From: "file-list"})
	b := sdc("2.2",
		workflow.RefFile{Path: "docs/stories/2.2.story.md", Phase: "implement", Critical: true, From: "story"},
		workflow.RefFile{Path: signup, Phase: "implement", From: "file-list"})
	b.UpdatedAt = t0.Add(time.Minute)
	all := []workflow.Candidate{a, b}
	stories := []*workflow.Story{st1, st2}

	var want []Report
	for _, c := range all {
		in := withOthers(input(r, c, stories...), all)
		in.Git = newGit()
		want = append(want, Validate(in))
	}
	if find(t, want[0], "progress").Path != login || find(t, want[1], "file-changed").Path != signup {
		t.Fatal("the fixture does not tell own progress from another's change")
	}
	for _, tc := range []struct{ unknown, sideBySide bool }{{false, false}, {true, false}, {false, true}} {
		unknown := tc.unknown
		g := &batchGit{ownGit: newGit(), unknown: unknown}
		run := NewRun(r.root, all)
		t.Cleanup(run.waitPrefetch)
		// side by side: the first to ask gathers the record paths without
		// the Memo's lock, the other waits for the batch (never asks alone)
		var wg sync.WaitGroup
		for i, c := range all {
			in := input(r, c, stories...)
			in.Git, in.Run = g, run
			check := func() {
				defer wg.Done()
				if got := Validate(in); !reflect.DeepEqual(got, want[i]) {
					t.Errorf("%s through a Run (batch unknown %v, side by side %v):\n%+v\nwant\n%+v", c.ID, unknown, tc.sideBySide, got, want[i])
				}
			}
			wg.Add(1)
			if tc.sideBySide {
				go check()
			} else {
				check()
			}
		}
		wg.Wait()
		wantSingle := 0
		if unknown {
			wantSingle = 2
		}
		if g.batches != 1 || g.single != wantSingle {
			t.Errorf("batch unknown %v: %d batches, %d single questions; want 1, %d", unknown, g.batches, g.single, wantSingle)
		}
		wantAsked := [][]string{
			{".orchestrate/workflows/sdc-2.1.yaml", "docs/stories/2.1.story.md"},
			{".orchestrate/workflows/sdc-2.2.yaml", "docs/stories/2.2.story.md"}}
		if !reflect.DeepEqual(g.asked, wantAsked) {
			t.Errorf("batch asked %q, want %q", g.asked, wantAsked)
		}
	}
}
