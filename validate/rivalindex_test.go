package validate

import (
	"fmt"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"math/rand"
	"reflect"
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestRivalsSharing: through a Run, the rivals found in its story index
// are exactly, in the same order, the rivals that share an open story
// (sharedStories not empty), for random workflows naming random stories.
func TestRivalsSharing(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var all []workflow.Candidate
	for i := 0; i < 60; i++ {
		c := workflow.Candidate{ID: fmt.Sprintf("w%02d", i), Resumable: rng.Intn(5) != 0}
		for n := rng.Intn(3); n > 0; n-- {
			c.Stories = append(c.Stories, fmt.Sprintf("Story %d.%d", 1+rng.Intn(3), rng.Intn(5)))
		}
		for n := rng.Intn(2); n > 0; n-- {
			c.StoryRefs = append(c.StoryRefs, workflow.StoryRef{ID: fmt.Sprintf("%d.%d", 1+rng.Intn(3), rng.Intn(5))})
		}
		if rng.Intn(8) == 0 {
			c.Source.Kind = workflow.KindStory
		}
		all = append(all, c)
	}
	run := NewRun("", all)
	t.Cleanup(run.waitPrefetch)
	v := &validator{in: Input{Run: run}}
	for round := 0; round < 40; round++ {
		open := map[string]string{}
		for n := rng.Intn(4); n > 0; n-- {
			id := fmt.Sprintf("%d.%d", 1+rng.Intn(3), rng.Intn(5))
			open[storyid.Loose(id)] = id
		}
		var want []*workflow.Candidate
		for _, rv := range v.rivals() {
			if len(sharedStories(rv.ids, open)) > 0 {
				want = append(want, rv.c)
			}
		}
		var got []*workflow.Candidate
		for _, rv := range v.rivalsSharing(open) {
			got = append(got, rv.c)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d open %v: got %d rivals, want %d", round, open, len(got), len(want))
		}
	}
}
