package validate

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// optionsGit is a fakeGit that also takes what the run knows (the
// CompareWith of *gitrepo.Repo), recording what it was given.
type optionsGit struct {
	fakeGit
	index    *gitrepo.Index
	indexFor [][]string // what IndexFor was asked
	expected []int
	lstats   map[string]bool // paths CompareWith had an lstat for
	indexed  []bool          // per CompareWith call: an Index given
}

func (g *optionsGit) IndexFor(paths []string, expected int) *gitrepo.Index {
	g.indexFor = append(g.indexFor, append([]string(nil), paths...))
	g.expected = append(g.expected, expected)
	return g.index
}

func (g *optionsGit) CompareWith(base gitrepo.Commit, paths []string, o gitrepo.CompareOptions) ([]gitrepo.PathState, error) {
	g.indexed = append(g.indexed, o.Index != nil)
	for _, p := range paths {
		if o.Lstat == nil {
			continue
		}
		if fi, ok := o.Lstat(p); ok {
			want, err := os.Lstat(filepath.Join(g.root, p))
			if err != nil || !sameStat(fi, want) {
				g.t.Errorf("lstat of %s: %v, not the file's (%v)", p, fi, err)
			}
			g.lstats[p] = true
		}
	}
	return g.fakeGit.Compare(base, paths)
}

// With a Run, the integrity checks' findings are shared: the plan's
// existence checks (Run.Exists) and Compare's lstats; the index is read once
// for every workflow's paths from the second Compare on, with an estimate
// of the paths to compare; the reports are the ones without a Run.
func TestRunSharesIntegrityFindings(t *testing.T) {
	r := newRepo(t)
	r.write("src/a.go", "x", time.Time{})
	r.write("src/b.go", "x", time.Time{})
	r.write("src/dir/c.go", "x", time.Time{})
	if err := os.Symlink("a.go", filepath.Join(r.root, "src", "link.go")); err != nil {
		t.Skipf("symlink: %v", err)
	}
	a := sdc("1.1", workflow.RefFile{Path: "src/a.go"}, workflow.RefFile{Path: "src/gone.go"}, workflow.RefFile{Path: "src/link.go"})
	b := sdc("1.2", workflow.RefFile{Path: "./src/b.go"}, workflow.RefFile{Path: "src/dir"}, workflow.RefFile{Path: "../out"})
	b.ID = "workflow:sdc-1.2"
	b.Stories, b.StoryRefs = nil, nil
	all := []workflow.Candidate{a, b}

	var want []Report
	for _, c := range all {
		in := withOthers(input(r, c), all)
		in.Git = &fakeGit{base: baseCommit}
		want = append(want, Validate(in))
	}
	g := &optionsGit{fakeGit: fakeGit{base: baseCommit}, lstats: map[string]bool{}}
	g.fakeGit.t, g.fakeGit.root = t, r.root
	run := NewRun(r.root, all)
	t.Cleanup(run.waitPrefetch) // the prefetch (probe.go) ends before the next test
	for i, c := range all {
		in := input(r, c)
		in.Git, in.Run = g, run
		if got := Validate(in); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("%s with Run:\n%+v\nwithout:\n%+v", c.ID, got, want[i])
		}
	}
	for _, tc := range []struct {
		path   string
		exists bool
	}{
		{"src/a.go", true}, {"src/b.go", true}, {"src/dir", true}, {"src/link.go", true},
		{"src/gone.go", false}, {"./src/b.go", false}, {"../out", false}, {"src/dir/c.go", false},
	} {
		if got := run.Exists(tc.path); got != tc.exists {
			t.Errorf("Run.Exists(%q) = %v, want %v", tc.path, got, tc.exists)
		}
	}
	if (*Run)(nil).Exists("src/a.go") {
		t.Error("a nil Run knows a path")
	}
	// The symlink has no lstat that stands for a stat: Compare makes its own.
	if wantL := map[string]bool{"src/a.go": true, "src/b.go": true}; !reflect.DeepEqual(g.lstats, wantL) {
		t.Errorf("lstats given for %v, want %v", g.lstats, wantL)
	}
	wantIdx := [][]string{{"src/a.go", "src/gone.go", "src/link.go", "src/b.go", "src/dir", "../out"}}
	if !reflect.DeepEqual(g.indexFor, wantIdx) {
		t.Errorf("IndexFor asked %v, want %v", g.indexFor, wantIdx)
	}
	// two calls, 3 and 1 paths: about 2 each for 2 resumable workflows
	if !reflect.DeepEqual(g.expected, []int{4}) {
		t.Errorf("IndexFor expected %v, want [4]", g.expected)
	}
	if !reflect.DeepEqual(g.indexed, []bool{false, false}) { // the fake's IndexFor gives nil
		t.Errorf("CompareWith given an index %v", g.indexed)
	}
}
