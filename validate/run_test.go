package validate

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// withOthers is the Input a command built before Run: every candidate but
// c in Others.
func withOthers(in Input, all []workflow.Candidate) Input {
	in.Others = nil
	for _, o := range all {
		if o.ID != in.Candidate.ID {
			in.Others = append(in.Others, o)
		}
	}
	return in
}

// Validating with a shared Run gives the same report as with Others, for
// every candidate: conflicts with other workflows, unsafe and missing
// paths, symlinks in and out of the repository.
func TestRunMatchesOthers(t *testing.T) {
	r := newRepo(t)
	outside := t.TempDir()
	st1 := r.story("1.1", "InProgress", "AC one", "notes", time.Time{})
	st2 := r.story("1.2", "InProgress", "AC two", "notes", time.Time{})
	r.write("src/a/b/c.go", "x", time.Time{})
	r.write("src/a/b/d.go", "x", t0.Add(time.Minute))
	if err := os.Symlink(outside, filepath.Join(r.root, "src", "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(r.root, "src", "a"), filepath.Join(r.root, "src", "in")); err != nil {
		t.Fatal(err)
	}
	a := sdc("1.1", workflow.RefFile{Path: "src/a/b/c.go", Critical: true}, workflow.RefFile{Path: "src/out/secret"},
		workflow.RefFile{Path: "src/in/b/d.go"}, workflow.RefFile{Path: "src/a/b/missing.go", Critical: true})
	b := sdc("1.1", workflow.RefFile{Path: "src/a/b/c.go"})
	b.ID, b.UpdatedAt = "workflow:other-1.1", t0.Add(time.Hour)
	c := sdc("1.2", workflow.RefFile{Path: "../escape"}, workflow.RefFile{Path: "src/in/b/c.go"})
	story := sdc("1.2")
	story.ID, story.Source.Kind, story.Resumable = "sdc:1.2", workflow.KindStory, true
	all := []workflow.Candidate{c, a, story, b}
	run := NewRun(r.root, all)
	t.Cleanup(run.waitPrefetch) // the prefetch (probe.go) ends before the next test
	tests := []struct {
		name string
		cand workflow.Candidate
		want []string // a few codes the report must hold
	}{
		{"conflicts and paths", a, []string{"another-workflow", "unsafe-path", "missing-critical"}},
		{"the later workflow", b, nil},
		{"escape and a symlinked folder", c, []string{"unsafe-path"}},
		{"a story candidate", story, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := input(r, tt.cand, st1, st2)
			want := Validate(withOthers(in, all))
			in.Run = run
			got := Validate(in)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("with Run:\n%+v\nwith Others:\n%+v", got, want)
			}
			for _, code := range tt.want {
				if !has(got, code) {
					t.Errorf("no %s finding: %v", code, codes(got))
				}
			}
		})
	}
	// a Run made for another root is not used for this one's paths
	in := input(r, c, st1, st2)
	in.Run = NewRun(outside, all)
	if got, want := Validate(in), Validate(withOthers(input(r, c, st1, st2), all)); !reflect.DeepEqual(got, want) {
		t.Errorf("Run of another root changed the report:\n%+v\n%+v", got, want)
	}
}

// benchWorkflows writes a repository with n workflow candidates, each
// referencing four files four folders deep (and sharing one), and returns
// its root and the candidates.
func benchWorkflows(b *testing.B, n int) (string, []workflow.Candidate) {
	b.Helper()
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	write := func(rel string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write("src/shared/config.go")
	var cs []workflow.Candidate
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%d.%d", i/10+1, i%10+1)
		c := sdc(id)
		c.UpdatedAt = t0.Add(time.Duration(i) * time.Minute)
		for j := 0; j < 3; j++ {
			rel := fmt.Sprintf("src/module%d/pkg%d/internal/file%d.go", i%20, i, j)
			write(rel)
			c.Files = append(c.Files, workflow.RefFile{Path: rel, Phase: "implement"})
		}
		c.Files = append(c.Files, workflow.RefFile{Path: "src/shared/config.go", Critical: true})
		cs = append(cs, c)
	}
	return root, cs
}

// BenchmarkValidateWorkflows validates 200 workflows as status does: each
// one with Others built and sorted per workflow (per-workflow), or with
// one shared Run (run).
func BenchmarkValidateWorkflows(b *testing.B) {
	root, cs := benchWorkflows(b, 200)
	base := Input{Root: root, Now: now, Config: config.Default()}
	b.Run("per-workflow", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for _, c := range cs {
				in := base
				in.Candidate = c
				Validate(withOthers(in, cs))
			}
		}
	})
	b.Run("run", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			run := NewRun(root, cs)
			for _, c := range cs {
				in := base
				in.Candidate, in.Run = c, run
				Validate(in)
			}
			run.waitPrefetch() // the prefetch (probe.go) ends before the next run
		}
	})
}

// With a Run, git is asked once per path and base: the second validation
// of a shared file takes the first one's answers, and both reports are the
// ones each validation gets without a Run.
func TestRunGitAnswersOncePerPath(t *testing.T) {
	r := newRepo(t)
	r.write("src/shared.go", "x", time.Time{})
	r.write("src/a.go", "x", time.Time{})
	r.write("src/b.go", "x", time.Time{})
	newGit := func() *fakeGit {
		return &fakeGit{base: baseCommit,
			states:  map[string]gitrepo.PathState{"src/shared.go": committedChange()},
			commits: map[string][]gitrepo.Commit{"src/shared.go": {janeCommit}}}
	}
	a := sdc("1.1", workflow.RefFile{Path: "src/shared.go"}, workflow.RefFile{Path: "src/a.go"})
	b := sdc("1.2", workflow.RefFile{Path: "src/shared.go"}, workflow.RefFile{Path: "src/b.go"})
	b.ID = "workflow:sdc-1.2"
	all := []workflow.Candidate{a, b}

	var want []Report
	for _, c := range all {
		in := withOthers(input(r, c), all)
		in.Git = newGit()
		want = append(want, Validate(in))
	}
	g := newGit()
	run := NewRun(r.root, all)
	t.Cleanup(run.waitPrefetch) // the prefetch (probe.go) ends before the next test
	for i, c := range all {
		in := input(r, c)
		in.Git, in.Run = g, run
		if got := Validate(in); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("%s with Run:\n%+v\nwithout:\n%+v", c.ID, got, want[i])
		}
		if !has(want[i], "file-changed") {
			t.Errorf("%s: no file-changed finding: %v", c.ID, codes(want[i]))
		}
	}
	wantCompared := [][]string{{"src/a.go", "src/shared.go"}, {"src/b.go"}}
	if !reflect.DeepEqual(g.compared, wantCompared) {
		t.Errorf("Compare asked %v, want %v", g.compared, wantCompared)
	}
	if len(g.touched) != 1 {
		t.Errorf("CommitsTouching asked %v, want once", g.touched)
	}
}
