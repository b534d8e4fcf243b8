package discover

import (
	"reflect"
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestMerge checks which state-file candidate absorbs a story candidate
// and what it keeps of it.
func TestMerge(t *testing.T) {
	story := func(id string, typ workflow.Type) workflow.Candidate {
		p := "docs/stories/" + id + ".md"
		return workflow.Candidate{ID: string(typ) + ":" + id, Type: typ, Resumable: true, Stories: []string{id},
			Source: workflow.SourceRef{Kind: workflow.KindStory, Path: p, Priority: workflow.PriorityInProgress},
			Files:  []workflow.RefFile{{Path: p}, {Path: "src/shared.go"}}}
	}
	state := func(id string, prio int, resumable bool, stories ...string) workflow.Candidate {
		return workflow.Candidate{ID: id, Type: workflow.TypeEpic, Resumable: resumable, Stories: stories,
			Source: workflow.SourceRef{Kind: workflow.KindEpicState, Path: id + ".yaml", Priority: prio},
			Files:  []workflow.RefFile{{Path: "src/shared.go"}}}
	}
	tests := []struct {
		name  string
		in    []workflow.Candidate
		ids   []string            // candidate ids left, in order
		files map[string][]string // id -> file paths after the merge
		ev    map[string][]string // id -> evidence paths
	}{
		{
			name: "fewest stories wins",
			in:   []workflow.Candidate{story("1.1", workflow.TypeSDC), state("big", 1, true, "1.1", "1.2"), state("small", 3, true, "1.1")},
			ids:  []string{"big", "small"},
			// the story's files are added once, the shared one not twice
			files: map[string][]string{"small": {"src/shared.go", "docs/stories/1.1.md"}, "big": {"src/shared.go"}},
			ev:    map[string][]string{"small": {"docs/stories/1.1.md"}},
		},
		{
			name: "equal size: lower priority number wins",
			in:   []workflow.Candidate{state("b", 3, true, "2.1"), state("a", 1, true, "2.1"), story("2.1", workflow.TypeQAReview)},
			ids:  []string{"b", "a"},
			ev:   map[string][]string{"a": {"docs/stories/2.1.md"}},
		},
		{
			name: "a state that is not resumable absorbs nothing",
			in:   []workflow.Candidate{state("done", 1, false, "3.1"), story("3.1", workflow.TypeSDC)},
			ids:  []string{"done", "sdc:3.1"},
		},
		{
			name: "a plain story is never absorbed",
			in:   []workflow.Candidate{state("e", 1, true, "4.1"), story("4.1", workflow.TypeStory)},
			ids:  []string{"e", "story:4.1"},
		},
		{
			name: "same id: the more specific source is kept, the other is evidence",
			in: []workflow.Candidate{state("x", 3, true), func() workflow.Candidate {
				c := state("x", 1, true)
				c.Source.Path = "first.yaml"
				return c
			}()},
			ids: []string{"x"},
			ev:  map[string][]string{"x": {"x.yaml"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Merge(tt.in)
			var ids []string
			for _, c := range out {
				ids = append(ids, c.ID)
				if want, ok := tt.files[c.ID]; ok {
					var got []string
					for _, f := range c.Files {
						got = append(got, f.Path)
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%s files = %v, want %v", c.ID, got, want)
					}
				}
				var ev []string
				for _, e := range c.Evidence {
					ev = append(ev, e.Path)
				}
				if want := tt.ev[c.ID]; !reflect.DeepEqual(ev, want) {
					t.Errorf("%s evidence = %v, want %v", c.ID, ev, want)
				}
			}
			if !reflect.DeepEqual(ids, tt.ids) {
				t.Errorf("ids = %v, want %v", ids, tt.ids)
			}
		})
	}
}
