package validate

import (
	"reflect"
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// The rivals are the resumable workflows (no story candidate), in order,
// with their story ids normalised once; sharedStories finds the open
// stories among them however they are spelled, each once, as the validated
// candidate spells it.
func TestRivalsSharedStories(t *testing.T) {
	wf := &workflow.Candidate{ID: "w1", Resumable: true, Stories: []string{"Story 1.2", " 3.1"},
		StoryRefs: []workflow.StoryRef{{ID: "story-1.2"}, {ID: "9.9"}}}
	idle := &workflow.Candidate{ID: "w2", Stories: []string{"1.2"}}
	story := &workflow.Candidate{ID: "s", Resumable: true, Stories: []string{"1.2"}}
	story.Source.Kind = workflow.KindStory
	rv := rivalsOf([]*workflow.Candidate{wf, idle, story})
	if len(rv) != 1 || rv[0].c != wf || !reflect.DeepEqual(rv[0].ids, []string{"1.2", "3.1", "1.2", "9.9"}) {
		t.Fatalf("rivals %+v", rv)
	}
	for _, tc := range []struct {
		name string
		open map[string]string
		want []string
	}{
		{"none open", map[string]string{}, nil},
		{"one, twice named", map[string]string{"1.2": "1.2"}, []string{"1.2"}},
		{"spelled by the candidate", map[string]string{"1.2": "STORY-1.2", "3.1": "3.1"}, []string{"3.1", "STORY-1.2"}},
	} {
		if got := sharedStories(rv[0].ids, tc.open); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
