package validate

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Validations of one Run on a real repository, run side by side (as
// status runs them), give the reports of validations each with a Repo of
// its own: workflows sharing and not sharing interruption commits, with
// committed and uncommitted changes and stories edited since (read at the
// base: ReadAt beside the other questions). Run under -race in make test.
func TestRunValidatesSideBySide(t *testing.T) {
	r := newRepo(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(gitfixture.Init(r.root))
	var files []string
	for i := 0; i < 16; i++ {
		files = append(files, fmt.Sprintf("src/m%d/f%02d.ts", i%3, i))
	}
	for _, f := range files {
		r.write(f, "v0\n", time.Time{})
	}
	var stories []*workflow.Story
	for i := 1; i <= 6; i++ {
		stories = append(stories, r.story(fmt.Sprintf("3.%d", i), "InProgress", "AC", "notes", time.Time{}))
	}
	when := t0.Add(-5 * time.Hour)
	_, err := gitfixture.Commit(r.root, "import", "Ana Lima", "ana@example.com", when)
	must(err)
	var chain []time.Time
	for i := 0; i < 10; i++ {
		when = when.Add(15 * time.Minute)
		r.write(files[(i*5)%len(files)], fmt.Sprintf("v%d\n", i+1), when)
		if i%3 == 0 {
			st := stories[i%len(stories)]
			r.write(st.Path, storyText(st.ID, "InProgress", "AC edited", "notes"), when)
		}
		_, err := gitfixture.Commit(r.root, fmt.Sprint("step ", i), "Bo Chen", "bo@example.com", when)
		must(err)
		chain = append(chain, when)
	}
	r.write(files[3], "on disk\n", time.Time{})
	var all []workflow.Candidate
	for i, st := range stories {
		refs := []workflow.RefFile{{Path: st.Path, Phase: "implement", Critical: true, From: "story"}}
		for k := 0; k < 8; k++ {
			refs = append(refs, workflow.RefFile{Path: files[(i*3+k)%len(files)], Phase: "implement", From: "file-list"})
		}
		c := sdc(st.ID, refs...)
		c.UpdatedAt = chain[(i/2)*3].Add(time.Minute) // two workflows per base
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
	for round := 0; round < 3; round++ {
		repo, err := gitrepo.Open(r.root)
		must(err)
		run := NewRun(r.root, all)
		got := make([]Report, len(all))
		var wg sync.WaitGroup
		for w := 0; w < 3; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(all); i += 3 {
					in := input(r, all[(i+round)%len(all)], stories...)
					in.Git, in.Run = repo, run
					got[(i+round)%len(all)] = Validate(in)
				}
			}()
		}
		wg.Wait()
		run.waitPrefetch()
		must(repo.Close())
		for i := range all {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("round %d, %s side by side:\n%+v\nwant\n%+v", round, all[i].ID, got[i], want[i])
			}
		}
	}
}
