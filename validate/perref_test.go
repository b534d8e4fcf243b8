package validate

import (
	"math/rand"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// reorderGit answers Compare with the fake's states in reverse order, and
// without the paths in drop: gitDrift then finds each state by path (the
// map), not by position.
type reorderGit struct {
	*fakeGit
	drop map[string]bool
}

func (g reorderGit) Compare(base gitrepo.Commit, paths []string) ([]gitrepo.PathState, error) {
	states, err := g.fakeGit.Compare(base, paths)
	var out []gitrepo.PathState
	for _, ps := range slices.Backward(states) {
		if !g.drop[ps.Path] {
			out = append(out, ps)
		}
	}
	return out, err
}

// TestDriftStatesByPositionOrByPath: the states Compare gives in the
// order of the paths (found by position) and the same states in another
// order (found by path) give the same report, for every kind of change, a
// folder, an unsafe path, repeated and uncleaned paths and a story's file
// among the referenced ones; a path Compare leaves out is unknown either
// way. Lists and no lists.
func TestDriftStatesByPositionOrByPath(t *testing.T) {
	r := newRepo(t)
	st := r.story("3.1", "InProgress", "AC", "notes", time.Time{})
	after := t0.Add(10 * time.Minute)
	files := []workflow.RefFile{
		{Path: "docs/stories/3.1.story.md", Phase: "implement", Critical: true, From: "story"},
		{Path: "docs/prd.md", Phase: "plan", Critical: true},
	}
	states := map[string]gitrepo.PathState{}
	commits := map[string][]gitrepo.Commit{}
	for i := 0; i < 40; i++ {
		p := "src/f" + strconv.Itoa(i) + ".go"
		rf := workflow.RefFile{Path: p, Phase: "implement", From: "file-list"}
		switch i % 5 {
		case 0: // committed by someone else
			states[p] = committedChange()
			commits[p] = []gitrepo.Commit{janeCommit}
		case 1: // an uncommitted edit after the interruption
			states[p] = uncommittedChange()
			r.write(p, "x\n", after)
			rf.From = "context"
		case 2: // deleted
			states[p] = gitrepo.PathState{BaseHash: "b", HeadHash: "", OnDisk: false, Changed: true, Committed: true}
			commits[p] = []gitrepo.Commit{janeCommit}
		case 3: // own uncommitted work from before the interruption
			states[p] = uncommittedChange()
		}
		if i%5 != 2 && i%5 != 1 {
			r.write(p, "x\n", time.Time{})
		}
		files = append(files, rf)
	}
	r.write("docs/prd.md", "prd\n", time.Time{})
	r.write("src/dir/keep", "k\n", time.Time{})
	files = append(files,
		workflow.RefFile{Path: "./src/f0.go", Phase: "review"},
		workflow.RefFile{Path: "src/f5.go", Critical: true},
		workflow.RefFile{Path: "src/dir", Phase: "implement"},
		workflow.RefFile{Path: "../outside.md"},
	)
	states["docs/stories/3.1.story.md"] = committedChange()
	commits["docs/stories/3.1.story.md"] = []gitrepo.Commit{janeCommit}
	c := sdc("3.1", files...)
	for _, noLists := range []bool{false, true} {
		for _, drop := range []map[string]bool{nil, {"src/f10.go": true, "docs/prd.md": true}} {
			run := func(reorder bool) Report {
				fg := &fakeGit{base: baseCommit, states: states, commits: commits,
					old: map[string]string{"docs/stories/3.1.story.md": storyText("3.1", "InProgress", "AC", "old notes")}}
				in := input(r, c, st)
				in.NoLists = noLists
				in.Git = reorderGit{fakeGit: fg, drop: drop}
				if !reorder && drop == nil {
					in.Git = fg
				}
				return Validate(in)
			}
			inOrder, byPath := run(false), run(true)
			if !reflect.DeepEqual(inOrder, byPath) {
				t.Fatalf("noLists %v, drop %v: by position\n%+v\nby path\n%+v", noLists, drop, inOrder, byPath)
			}
			if len(inOrder.Findings) < 20 {
				t.Fatalf("only %d findings: the cases were not made", len(inOrder.Findings))
			}
			if drop != nil && !noLists {
				if fr := fileReport(t, byPath, "src/f10.go"); fr.State != FileUnknown {
					t.Errorf("a path Compare left out: %+v", fr)
				}
			}
		}
	}
}

// TestDisplayBytesIsRunes: display's byte test finds a control character
// exactly when a rune test does, on valid and invalid UTF-8.
func TestDisplayBytesIsRunes(t *testing.T) {
	runes := func(p string) bool {
		for _, r := range p {
			if r < 0x20 || r == 0x7f {
				return true
			}
		}
		return false
	}
	for _, s := range []string{"", "plain/path.go", "tab\there", "nl\n", "del\x7f", "é/ü", "\xc3", "\xc3\n", "\xe2\x82", "\xe2\x82\x1b[31m",
		"\xff\x00", "\u0085next-line", "\xf0\x9f\x98\x80", "\xf0\x9f\x98", "\xf0\x9f\x0a"} {
		want := s
		if runes(s) {
			q := strconv.Quote(s)
			want = q[1 : len(q)-1]
		}
		if got := display(s); got != want {
			t.Errorf("display(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestIntegrityDistinctIsLongWay: a reference list tried as it is (no
// repeat, within the cap) gives the report the long way (de-duplication
// on the path as written first) gives, and a list with repeats — as
// written, by another spelling of the cleaned path, unsafe ones — falls
// back to it: random lists, with a Run and without, lists and no lists.
func TestIntegrityDistinctIsLongWay(t *testing.T) {
	r := newRepo(t)
	for _, p := range []string{"a/b.md", "a/c.md", "d.md", "e/f/g.md"} {
		r.write(p, "x\n", time.Time{})
	}
	spellings := []string{"a/b.md", "./a/b.md", "a//b.md", "a/c.md", "d.md", "e/f/g.md", "e/f/../f/g.md", "missing.md",
		"gone/x.md", "../out.md", "/abs.md", "a/../../up.md", "e/f"}
	rng := rand.New(rand.NewSource(11))
	tried := map[bool]int{}
	defer func() { tryDistinct = true }()
	for round := 0; round < 300; round++ {
		var refs []workflow.RefFile
		for k := rng.Intn(8); k >= 0; k-- {
			refs = append(refs, workflow.RefFile{
				Path: spellings[rng.Intn(len(spellings))], Phase: []string{"", "plan", "implement"}[rng.Intn(3)],
				Critical: rng.Intn(3) == 0, Hash: []string{"", "abc"}[rng.Intn(2)], From: []string{"", "file-list", "context"}[rng.Intn(3)],
				Produced: rng.Intn(4) == 0,
			})
		}
		c := sdc("4.1", refs...)
		c.Files = refs // exactly these, in this order
		withRun, noLists := rng.Intn(2) == 0, rng.Intn(2) == 0
		report := func(try bool) Report {
			tryDistinct = try
			in := input(r, c)
			in.NoLists = noLists
			if withRun {
				in.Run = NewRun(r.root, []workflow.Candidate{c})
			}
			return Validate(in)
		}
		long, first := report(false), report(true)
		if !reflect.DeepEqual(first, long) {
			t.Fatalf("round %d, refs %+v: tried as it is\n%+v\nthe long way\n%+v", round, refs, first, long)
		}
		paths := map[string]bool{}
		for _, rf := range refs {
			paths[rf.Path] = true
		}
		tried[len(paths) == len(refs)]++
	}
	if tried[true] == 0 || tried[false] == 0 {
		t.Fatalf("lists without and with repeats: %v", tried)
	}
}
