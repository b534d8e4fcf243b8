package source

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestWithFiles: WithFiles gives what a set holding the files, then the
// added ones, gives (NewFileSet, Add, Sorted), on sets' own outputs (the
// shortcut) and on lists that are not (unsorted, repeated, unclean, empty
// paths), and never changes its input; AddToSorted gives the same on sets'
// outputs.
func TestWithFiles(t *testing.T) {
	paths := []string{"a.go", "b/c.go", "b/c.go ", "./b/d.go", "b//e.go", "z.md", "", "docs/stories/1.1.md", `src\x.go`, "../out.go", "a-b.go", "a/b.go"}
	rnd := rand.New(rand.NewPCG(1, 2))
	file := func() workflow.RefFile {
		return workflow.RefFile{Path: paths[rnd.IntN(len(paths))], Phase: []string{"", "p1", "p2"}[rnd.IntN(3)],
			Critical: rnd.IntN(2) == 0, Produced: rnd.IntN(3) == 0, Hash: []string{"", "h1"}[rnd.IntN(2)], From: "x"}
	}
	want := func(files, add []workflow.RefFile) []workflow.RefFile {
		set := NewFileSet(files)
		for _, f := range add {
			set.Add(f)
		}
		return set.Sorted()
	}
	shortcut := 0
	for i := range 2000 {
		var files, add []workflow.RefFile
		for range rnd.IntN(6) {
			files = append(files, file())
		}
		for range rnd.IntN(4) {
			add = append(add, file())
		}
		if i%2 == 0 { // a set's own output: the shortcut
			files = want(files, nil)
		}
		if len(files) > 0 && cleanSorted(files) {
			shortcut++
		}
		before := append([]workflow.RefFile(nil), files...)
		got, exp := WithFiles(files, add), want(files, add)
		if !reflect.DeepEqual(got, exp) {
			t.Fatalf("WithFiles(%+v, %+v)\n = %+v\nwant %+v", files, add, got, exp)
		}
		if !reflect.DeepEqual(files, before) {
			t.Fatalf("WithFiles changed its input: %+v, was %+v", files, before)
		}
		if i%2 == 0 { // AddToSorted, on the set's output it owns: the same
			if got := AddToSorted(files, add); !reflect.DeepEqual(got, exp) {
				t.Fatalf("AddToSorted(%+v, %+v)\n = %+v\nwant %+v", before, add, got, exp)
			}
		}
	}
	if shortcut < 500 {
		t.Errorf("only %d cases took the shortcut", shortcut)
	}
}
