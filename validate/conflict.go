package validate

import (
	"fmt"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"sort"
	"strings"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// otherWorkflows is conflict (a): another resumable workflow names one of
// this candidate's unfinished stories and was updated after this one was
// interrupted, or holds a live lock. A story candidate (a story file's status
// alone) is not a workflow and is ignored here.
func (v *validator) otherWorkflows() {
	open := map[string]string{} // normalised id -> id as this candidate spells it
	for _, s := range v.stories {
		if !s.complete() {
			open[storyid.Loose(s.id)] = s.id
		}
	}
	if len(open) == 0 {
		return
	}
	for _, rv := range v.rivalsSharing(open) {
		o := rv.c
		if o.ID == v.c.ID {
			continue
		}
		shared := sharedStories(rv.ids, open)
		if len(shared) == 0 {
			continue
		}
		live := v.in.LiveLock != nil && v.in.LiveLock(o.ID)
		later := !v.c.UpdatedAt.IsZero() && o.UpdatedAt.After(v.c.UpdatedAt)
		if !live && !later {
			continue
		}
		what := "story " + strings.Join(shared, ", ")
		if len(shared) > 1 {
			what = "stories " + strings.Join(shared, ", ")
		}
		var msg string
		if live {
			msg = fmt.Sprintf("another workflow is running for %s: %s (%s) holds a live lock",
				what, display(o.ID), display(o.Source.Path))
		} else {
			msg = fmt.Sprintf("another workflow was started for %s after this one was interrupted: %s (%s), updated %s",
				what, display(o.ID), display(o.Source.Path), stamp(o.UpdatedAt))
		}
		v.add(workflow.CheckConflict, workflow.Blocking, "another-workflow", display(o.Source.Path), "", msg)
	}
}

// rival is a candidate otherWorkflows weighs against the validated one (a
// resumable workflow, not a story candidate) with the normalised ids of its
// stories (its story ids, then its story references').
type rival struct {
	c   *workflow.Candidate
	ids []string
}

// rivalsOf lists the rivals among candidates, in their order.
func rivalsOf(candidates []*workflow.Candidate) []rival {
	var out []rival
	for _, o := range candidates {
		if !o.Resumable || o.Source.Kind == workflow.KindStory {
			continue
		}
		ids := make([]string, 0, len(o.Stories)+len(o.StoryRefs))
		for _, id := range o.Stories {
			ids = append(ids, storyid.Loose(id))
		}
		for _, r := range o.StoryRefs {
			ids = append(ids, storyid.Loose(r.ID))
		}
		out = append(out, rival{c: o, ids: ids})
	}
	return out
}

// rivals is rivalsOf the other candidates, sorted by id: the Run's are
// listed once for all its validations.
func (v *validator) rivals() []rival {
	if r := v.in.Run; r != nil {
		r.rivalsOnce.Do(func() {
			r.rivals = rivalsOf(r.sorted)
			r.byStory = indexRivals(r.rivals)
		})
		return r.rivals
	}
	return rivalsOf(v.others())
}

// sharedStories lists (sorted) the stories among ids (normalised) that are
// in open, as open spells them.
func sharedStories(ids []string, open map[string]string) []string {
	var seen map[string]bool
	var out []string
	for _, id := range ids {
		if mine, ok := open[id]; ok && !seen[mine] {
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[mine] = true
			out = append(out, display(mine))
		}
	}
	sort.Strings(out)
	return out
}

// epicStories is conflict (d) for epics: story files that belong to the
// epic (by id prefix, "3.x" for epic "3" or "EPIC-3", or by the story's own
// epic field) but that the saved state does not list.
func (v *validator) epicStories() {
	if v.c.Type != workflow.TypeEpic && v.c.Epic == nil {
		return
	}
	epicID := v.c.Key
	if v.c.Epic != nil && v.c.Epic.EpicID != "" {
		epicID = v.c.Epic.EpicID
	}
	num := storyid.EpicNumber(epicID)
	listed := map[string]bool{}
	for _, s := range v.stories {
		listed[storyid.Loose(s.id)] = true
	}
	if v.c.Epic != nil {
		for _, w := range v.c.Epic.Waves {
			for _, r := range w.Stories {
				listed[storyid.Loose(r.ID)] = true
			}
		}
	}
	ids := make([]string, 0, len(v.in.Stories))
	for id := range v.in.Stories {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		st := v.in.Stories[id]
		if st == nil || listed[storyid.Loose(id)] {
			continue
		}
		byPrefix := num != "" && strings.HasPrefix(storyid.Loose(id), num+".")
		byField := st.Epic != "" && epicID != "" && storyid.SameEpic(st.Epic, epicID)
		if !byPrefix && !byField {
			continue
		}
		listed[storyid.Loose(id)] = true
		path := v.cleanPath(st.Path)
		if path == "" {
			path = v.c.Source.Path
		}
		v.add(workflow.CheckConflict, workflow.Warning, "epic-stories-added", path, "",
			fmt.Sprintf("story %s belongs to epic %s but the saved epic plan does not list it", display(id), display(epicID)))
	}
}
