package validate

import (
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// basesGit is a fakeGit with one interruption commit per interruption time
// and the files' contents per base commit, counting the reads.
type basesGit struct {
	*fakeGit
	bases map[time.Time]gitrepo.Commit
	at    map[string]map[string]string // base hash → path → content

	mu    sync.Mutex
	reads map[string]int // "base path" → reads
}

func (g *basesGit) InterruptionCommit(recorded string, at time.Time) (gitrepo.Commit, error) {
	return g.bases[at], nil
}

func (g *basesGit) ReadAt(c gitrepo.Commit, path string) ([]byte, error) {
	g.mu.Lock()
	g.reads[c.Hash[:7]+" "+path]++
	g.mu.Unlock()
	s, ok := g.at[c.Hash][path]
	if !ok {
		return nil, os.ErrNotExist
	}
	return []byte(s), nil
}

// TestAtBaseShared: workflows interrupted at one commit share what is read
// there (a story's sections, whether a file was rewritten), once per run,
// and a workflow interrupted at another commit gets its own answers: the
// reports through a Run are those of validations without one.
func TestAtBaseShared(t *testing.T) {
	const storyP, login = "docs/stories/2.1.story.md", "src/login.ts"
	r := newRepo(t)
	st := r.story("2.1", "InProgress", "new AC", "new notes", t0.Add(30*time.Minute))
	lines := "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n"
	r.write(login, lines, t0.Add(30*time.Minute))
	baseX := baseCommit
	baseY := gitrepo.Commit{Hash: "fedcba9876543210fedcba9876543210fedcba98", Short: "fedcba9", When: t0}
	later := t0.Add(10 * time.Minute)
	newGit := func() *basesGit {
		fg := &fakeGit{base: baseX, states: map[string]gitrepo.PathState{storyP: uncommittedChange(), login: uncommittedChange()}}
		return &basesGit{fakeGit: fg, reads: map[string]int{},
			bases: map[time.Time]gitrepo.Commit{t0: baseX, later: baseY},
			at: map[string]map[string]string{
				// at X: other Acceptance Criteria, and another file
				baseX.Hash: {storyP: storyText("2.1", "InProgress", "old AC", "notes"), login: "o1\no2\no3\no4\no5\no6\no7\no8\no9\n"},
				// at Y: only the Dev Notes differ, the file had a line less
				baseY.Hash: {storyP: storyText("2.1", "InProgress", "new AC", "notes"), login: "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\n"},
			}}
	}
	refs := []workflow.RefFile{
		{Path: storyP, Phase: "implement", Critical: true, From: "story"},
		{Path: login, Phase: "implement", From: "file-list"},
	}
	var all []workflow.Candidate
	for i, at := range []time.Time{t0, t0, later} {
		c := sdc("2.1", refs...)
		c.ID, c.Key = c.ID+"-"+string(rune('a'+i)), c.Key+"-"+string(rune('a'+i))
		c.Source.Path = strings.TrimSuffix(c.Source.Path, ".yaml") + "-" + string(rune('a'+i)) + ".yaml"
		c.UpdatedAt = at
		all = append(all, c)
	}

	var want []Report
	for _, c := range all {
		in := withOthers(input(r, c, st), all)
		in.Git = newGit()
		want = append(want, Validate(in))
	}
	for i, wantCodes := range [][]string{{"acceptance-changed", "file-rewritten"}, {"acceptance-changed", "file-rewritten"}, {"progress"}} {
		for _, code := range wantCodes {
			if !has(want[i], code) {
				t.Fatalf("%s: no %s finding (the fixture does not tell the bases apart): %v", all[i].ID, code, codes(want[i]))
			}
		}
	}
	if has(want[2], "acceptance-changed") || has(want[2], "file-rewritten") {
		t.Fatalf("%s: %v, want neither acceptance-changed nor file-rewritten", all[2].ID, codes(want[2]))
	}

	wantReads := map[string]int{"0123456 " + storyP: 1, "0123456 " + login: 1, "fedcba9 " + storyP: 1, "fedcba9 " + login: 1}
	for _, concurrent := range []bool{false, true} {
		g := newGit()
		run := NewRun(r.root, all)
		t.Cleanup(run.waitPrefetch)
		got := make([]Report, len(all))
		var wg sync.WaitGroup
		for i, c := range all {
			in := input(r, c, st)
			in.Git, in.Run = g, run
			if !concurrent {
				got[i] = Validate(in)
				continue
			}
			wg.Add(1)
			go func() { defer wg.Done(); got[i] = Validate(in) }()
		}
		wg.Wait()
		for i, c := range all {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("%s through a Run (concurrent %v):\n%+v\nwant\n%+v", c.ID, concurrent, got[i], want[i])
			}
		}
		if !reflect.DeepEqual(g.reads, wantReads) {
			t.Errorf("reads at base through a Run (concurrent %v): %v, want each once: %v", concurrent, g.reads, wantReads)
		}
	}
}

// TestSortedByID: sorted by id, stable (equal ids keep their order),
// whether the input is sorted already or not.
func TestSortedByID(t *testing.T) {
	cases := []struct {
		name string
		ids  []string // "id/n": n tells equal ids apart
		want []string
	}{
		{"sorted", []string{"a/1", "b/1", "c/1"}, []string{"a/1", "b/1", "c/1"}},
		{"reversed", []string{"c/1", "b/1", "a/1"}, []string{"a/1", "b/1", "c/1"}},
		{"equal ids keep their order", []string{"b/1", "a/1", "b/2", "a/2"}, []string{"a/1", "a/2", "b/1", "b/2"}},
		{"sorted with equal ids", []string{"a/2", "a/1", "b/1"}, []string{"a/2", "a/1", "b/1"}},
		{"empty", nil, []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cands := make([]workflow.Candidate, len(tc.ids))
			for i, s := range tc.ids {
				id, n, _ := strings.Cut(s, "/")
				cands[i] = workflow.Candidate{ID: id, Key: n}
			}
			got := []string{}
			for _, c := range sortedByID(cands) {
				got = append(got, c.ID+"/"+c.Key)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("sortedByID(%q) = %q, want %q", tc.ids, got, tc.want)
			}
		})
	}
}
