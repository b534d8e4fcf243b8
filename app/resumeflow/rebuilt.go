package resumeflow

import (
	"sort"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// AbsorbStories folds into the rebuilt candidate c the story candidates of
// all (a story InProgress or InReview) it names, as discovery merges a
// story into the state file that names it: they are the same work, and
// stay as evidence. It returns c and all without the absorbed stories.
func AbsorbStories(all []workflow.Candidate, c workflow.Candidate) (workflow.Candidate, []workflow.Candidate) {
	kept := all[:0:0]
	for _, o := range all {
		if o.ID != c.ID && o.Source.Kind == workflow.KindStory && (o.Type == workflow.TypeSDC || o.Type == workflow.TypeQAReview) &&
			len(o.Stories) > 0 && c.HasStory(o.Stories[0]) {
			dup := false
			for _, e := range c.Evidence {
				dup = dup || e.Path == o.Source.Path
			}
			if !dup {
				c.Evidence = append(c.Evidence, o.Source)
			}
			continue
		}
		kept = append(kept, o)
	}
	sort.SliceStable(c.Evidence, func(i, j int) bool {
		if c.Evidence[i].Priority != c.Evidence[j].Priority {
			return c.Evidence[i].Priority < c.Evidence[j].Priority
		}
		return c.Evidence[i].Path < c.Evidence[j].Path
	})
	return c, kept
}

// Replace puts c in place of the candidate with its id in all.
func Replace(all []workflow.Candidate, c workflow.Candidate) {
	for i := range all {
		if all[i].ID == c.ID {
			all[i] = c
		}
	}
}
