package validate

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestHistoryRunEqualsAlone: workflows interrupted at different commits of
// a real repository (one of them on a merged side branch), validated
// through one Run (one walk of the history for all of them, see
// gitmemo.Memo's history) give the reports of validations each with a Repo of
// its own and no Run.
func TestHistoryRunEqualsAlone(t *testing.T) {
	r := newRepo(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(gitfixture.Init(r.root))
	var files []string
	for i := 0; i < 12; i++ {
		files = append(files, fmt.Sprintf("src/m%d/f%d.ts", i%3, i))
	}
	var stories []*workflow.Story
	for i := 1; i <= 5; i++ {
		stories = append(stories, r.story(fmt.Sprintf("2.%d", i), "InProgress", "AC", "notes", time.Time{}))
	}
	for _, f := range files {
		r.write(f, "v0\n", time.Time{})
	}
	when := t0.Add(-5 * time.Hour)
	_, err := gitfixture.Commit(r.root, "import", "Ana Lima", "ana@example.com", when)
	must(err)
	rng := rand.New(rand.NewSource(7))
	var chain []time.Time // the commit times of the chain, after the import
	var side string
	authors := [][2]string{{"Ana Lima", "ana@example.com"}, {"Bo Chen", "bo@example.com"}}
	for i := 0; i < 16; i++ {
		when = when.Add(15 * time.Minute)
		for n := 1 + rng.Intn(3); n > 0; n-- {
			r.write(files[rng.Intn(len(files))], fmt.Sprintf("v%d\n", rng.Intn(3)), when)
		}
		a := authors[rng.Intn(2)]
		if i == 5 { // a side branch, merged
			head, err := gitfixture.Commit(r.root, "before side", a[0], a[1], when)
			must(err)
			r.write(files[1], "side\n", when)
			side, err = gitfixture.Commit(r.root, "side", "Bo Chen", "bo@example.com", when.Add(time.Minute))
			must(err)
			must(gitfixture.ResetBranch(r.root, head))
			when = when.Add(2 * time.Minute)
			_, err = gitfixture.Merge(r.root, "merge side", "Ana Lima", "ana@example.com", when, side)
			must(err)
			chain = append(chain, when)
			continue
		}
		if _, err := gitfixture.Commit(r.root, fmt.Sprint("step ", i), a[0], a[1], when); err == nil {
			chain = append(chain, when)
		}
	}
	r.write(files[4], "on disk\n", time.Time{})

	var all []workflow.Candidate
	for i, st := range stories {
		refs := []workflow.RefFile{{Path: st.Path, Phase: "implement", Critical: true, From: "story"}}
		for k := 0; k < 6; k++ {
			refs = append(refs, workflow.RefFile{Path: files[(i*2+k)%len(files)], Phase: "implement", From: "file-list"})
		}
		c := sdc(st.ID, refs...)
		c.UpdatedAt = chain[(i*3)%len(chain)].Add(time.Minute)
		if i == 4 {
			c.Commit = side
		}
		all = append(all, c)
	}

	var want []Report
	for _, c := range all {
		repo, err := gitrepo.Open(r.root)
		must(err)
		in := withOthers(input(r, c, stories...), all)
		in.Git = repo
		want = append(want, Validate(in))
		must(repo.Close())
	}
	repo, err := gitrepo.Open(r.root)
	must(err)
	defer repo.Close()
	run := NewRun(r.root, all)
	t.Cleanup(run.waitPrefetch)
	for i, c := range all {
		in := input(r, c, stories...)
		in.Git, in.Run = repo, run
		if got := Validate(in); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("%s through a Run:\n%+v\nwant\n%+v", c.ID, got, want[i])
		}
	}
	gc := run.gitCache
	if gc == nil || gc.Walked() == nil {
		t.Fatal("the Run walked no History")
	}
	covered := 0
	for _, rep := range want {
		if gc.Walked().Covers(rep.Base) {
			covered++
		}
	}
	if covered != len(all)-1 || gc.Walked().Covers(gitrepo.Commit{Hash: side}) {
		t.Errorf("the History covers %d bases (side %v), want %d and not the side commit", covered, gc.Walked().Covers(gitrepo.Commit{Hash: side}), len(all)-1)
	}
	committed := 0
	for _, rep := range want {
		for _, f := range rep.Files {
			if len(f.By) > 0 {
				committed++
			}
		}
	}
	if committed == 0 {
		t.Error("no file has commits: the fixture does not ask CommitsTouching")
	}
}
