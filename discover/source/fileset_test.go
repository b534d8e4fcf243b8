package source

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// referenceSet is FileSet as it was before it kept sorted input without an
// index: every path indexed in a map, the whole list sorted at the end
// (and, unlike the old set, indexed again once sorted).
type referenceSet struct {
	files   []workflow.RefFile
	index   map[string]int
	dropped int
}

func (s *referenceSet) add(f workflow.RefFile) {
	f.Path = refpath.CleanPath(f.Path)
	if f.Path == "" {
		return
	}
	if s.index == nil {
		s.index = map[string]int{}
	}
	if i, ok := s.index[f.Path]; ok {
		mergeFile(&s.files[i], f)
		return
	}
	if len(s.files) >= MaxFiles {
		s.dropped++
		return
	}
	s.index[f.Path] = len(s.files)
	s.files = append(s.files, f)
}

func (s *referenceSet) sorted() []workflow.RefFile {
	sort.SliceStable(s.files, func(i, j int) bool { return s.files[i].Path < s.files[j].Path })
	for i, f := range s.files { // (the old set left its index stale here)
		s.index[f.Path] = i
	}
	return s.files
}

// TestFileSetOrders: a set gives what indexing every path and sorting at
// the end gives, whatever the order the files come in: in order (no index,
// no sort), in order with a few placed in between, in no order (indexed
// once too many are out of order), with repeats, unclean and empty paths;
// and so does a set added to after it was sorted.
func TestFileSetOrders(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	paths := make([]string, 60)
	for i := range paths {
		paths[i] = fmt.Sprintf("src/p%02d/f%02d.go", i/8, i)
	}
	paths = append(paths, "", "./src/p00/f00.go", "src//p01/f09.go", `src\p02\f17.go`, " docs/a.md", "docs/a.md", "../x.go", "/abs.go")
	file := func(p string) workflow.RefFile {
		return workflow.RefFile{Path: p, Phase: []string{"", "p1", "p2"}[rnd.IntN(3)], Critical: rnd.IntN(3) == 0,
			Produced: rnd.IntN(3) == 0, Hash: []string{"", "h1", "h2"}[rnd.IntN(3)], From: "x"}
	}
	ordered, indexed := 0, 0
	for i := range 3000 {
		var in []workflow.RefFile
		n := rnd.IntN(70)
		switch i % 3 {
		case 0: // in order, some repeated
			for j := 0; j < 60 && len(in) < n; j += 1 + rnd.IntN(2) {
				in = append(in, file(paths[j]))
				if rnd.IntN(5) == 0 {
					in = append(in, file(paths[j]))
				}
			}
		case 1: // in order but for a few
			for j := 0; j < 60 && len(in) < n; j += 1 + rnd.IntN(3) {
				in = append(in, file(paths[j]))
			}
			for range rnd.IntN(maxOrderedInserts + 3) {
				in = insertFile(in, rnd.IntN(len(in)+1), file(paths[rnd.IntN(len(paths))]))
			}
		default: // any order
			for range n {
				in = append(in, file(paths[rnd.IntN(len(paths))]))
			}
		}
		var ref referenceSet
		var set *FileSet
		if i%2 == 0 {
			set = NewFileSetFor(len(in))
			for _, f := range in {
				set.Add(f)
			}
		} else {
			set = NewFileSet(in)
		}
		for _, f := range in {
			ref.add(f)
		}
		if set.index == nil {
			ordered++
		} else {
			indexed++
		}
		got, want := set.Sorted(), ref.sorted()
		if !reflect.DeepEqual(got, want) || set.Dropped != ref.dropped {
			t.Fatalf("files %+v\nset gives %+v\nwant      %+v", in, got, want)
		}
		// added to once sorted: still the reference's answer
		more := file(paths[rnd.IntN(len(paths))])
		set.Add(more)
		ref.add(more)
		if got, want := set.Sorted(), ref.sorted(); !reflect.DeepEqual(got, want) {
			t.Fatalf("after sorting, adding %+v gives %+v\nwant %+v", more, got, want)
		}
	}
	if ordered < 1000 || indexed < 300 {
		t.Errorf("%d sets stayed ordered, %d were indexed: the cases do not cover both ways", ordered, indexed)
	}
}

func insertFile(s []workflow.RefFile, i int, f workflow.RefFile) []workflow.RefFile {
	s = append(s, workflow.RefFile{})
	copy(s[i+1:], s[i:])
	s[i] = f
	return s
}

// TestFileSetBoundOutOfOrder: past MaxFiles a new path is dropped and a
// known one still merges, in order or not, as the reference does.
func TestFileSetBoundOutOfOrder(t *testing.T) {
	for _, reverse := range []bool{false, true} {
		set, ref := NewFileSet(nil), &referenceSet{}
		for i := range MaxFiles + 5 {
			k := i
			if reverse {
				k = MaxFiles + 5 - i
			}
			f := workflow.RefFile{Path: fmt.Sprintf("f/%05d.md", k)}
			set.Add(f)
			ref.add(f)
		}
		for _, f := range []workflow.RefFile{{Path: "f/00003.md", Critical: true}, {Path: "a.md"}, {Path: "z.md"}} {
			set.Add(f)
			ref.add(f)
		}
		if got, want := set.Sorted(), ref.sorted(); !reflect.DeepEqual(got, want) || set.Dropped != ref.dropped || set.Dropped < 7 {
			t.Fatalf("reverse %v: %d files, dropped %d; want %d, dropped %d", reverse, len(got), set.Dropped, len(want), ref.dropped)
		}
	}
}

// BenchmarkFileSetOrdered is a workflow state's 300 files, in order.
func BenchmarkFileSetOrdered(b *testing.B) {
	files := make([]workflow.RefFile, 300)
	for i := range files {
		files[i] = workflow.RefFile{Path: fmt.Sprintf("src/pkg%03d/sub%02d/file%05d.go", i/8, i%8, i), From: "files"}
	}
	for b.Loop() {
		set := NewFileSetFor(len(files))
		for _, f := range files {
			set.Add(f)
		}
		_ = set.Sorted()
	}
}
