package discover

import (
	"reflect"
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestMergeStoryFiles: the files of the stories a workflow absorbs are
// added after its own, in the stories' order, each path once (a path the
// workflow lists, one an earlier story added, one a story lists twice),
// and each workflow gets only its own stories' files.
func TestMergeStoryFiles(t *testing.T) {
	files := func(paths ...string) []workflow.RefFile {
		var out []workflow.RefFile
		for _, p := range paths {
			out = append(out, workflow.RefFile{Path: p, From: "x"})
		}
		return out
	}
	story := func(id string, paths ...string) workflow.Candidate {
		return workflow.Candidate{ID: "sdc:" + id, Type: workflow.TypeSDC, Resumable: true, Stories: []string{id},
			Source: workflow.SourceRef{Kind: workflow.KindStory, Path: "docs/stories/" + id + ".md", Priority: workflow.PriorityInProgress},
			Files:  files(paths...)}
	}
	state := func(id string, stories []string, paths ...string) workflow.Candidate {
		return workflow.Candidate{ID: id, Type: workflow.TypeEpic, Resumable: true, Stories: stories,
			Source: workflow.SourceRef{Kind: workflow.KindEpicState, Path: id + ".yaml", Priority: 3},
			Files:  files(paths...)}
	}
	in := []workflow.Candidate{
		story("1.1", "docs/stories/1.1.md", "src/b.go", "src/c.go"),
		state("w1", []string{"1.1", "1.2"}, "src/a.go", "src/b.go"),
		story("1.2", "docs/stories/1.2.md", "src/c.go", "src/d.go", "src/d.go"),
		state("w2", []string{"2.1"}, "src/a.go"),
		story("2.1", "docs/stories/2.1.md", "src/a.go", "src/c.go"),
	}
	out := Merge(in)
	got := map[string][]string{}
	for _, c := range out {
		for _, f := range c.Files {
			got[c.ID] = append(got[c.ID], f.Path)
		}
	}
	want := map[string][]string{
		"w1": {"src/a.go", "src/b.go", "docs/stories/1.1.md", "src/c.go", "docs/stories/1.2.md", "src/d.go"},
		"w2": {"src/a.go", "docs/stories/2.1.md", "src/c.go"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("files after the merge:\n got %v\nwant %v", got, want)
	}
}
