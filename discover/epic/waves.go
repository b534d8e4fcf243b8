package epic

import (
	"cmp"
	"fmt"
	"sort"
	"strings"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// epicCount is the number of waves and stories a state lists (the waves,
// the stories of each, the top-level stories), counted before any is read:
// merging a wave's stories compares each with the ones before it.
func epicCount(st map[string]any) int {
	n := tolerant.ListLen(st, "stories")
	var waves []any
	switch t := st["waves"].(type) {
	case []any:
		waves = t
	case map[string]any:
		for _, w := range t {
			waves = append(waves, w)
		}
	}
	n += len(waves)
	for _, w := range waves {
		switch t := w.(type) {
		case []any:
			n += len(t)
		case map[string]any:
			n += tolerant.ListLen(t, "stories", "story_ids", "storyIds")
		}
	}
	return n
}

// epicCurrentWave reads currentWave|current_wave|wave: the number, the key
// used, and whether a usable number is recorded (0 included: waves may be
// numbered from 0; a negative number means not started). An unusable value
// is a finding.
func epicCurrentWave(f *source.Fields, st map[string]any) (int, string, bool) {
	v, k, ok := tolerant.Lookup(st, []string{"currentWave", "current_wave", "wave"})
	if !ok || v == nil {
		return 0, k, false
	}
	if n, ok := tolerant.ToInt(v); ok && n < 0 {
		return 0, k, false // not started
	}
	n, ok := epicNumber(v)
	if !ok {
		f.Wrong(k, "a wave number", v)
		return 0, k, false
	}
	return n, k, true
}

// epicWaves reads the waves field: a list of wave mappings (or of story
// lists), or a mapping keyed by wave number. It returns the waves in the
// order read and an index by number; repeated numbers are merged.
func epicWaves(f *source.Fields, st map[string]any) ([]workflow.Wave, map[int]int) {
	idx := map[int]int{}
	var waves []workflow.Wave
	v, ok := st["waves"]
	if !ok || v == nil {
		return waves, idx
	}
	addWave := func(w workflow.Wave) {
		if i, ok := idx[w.Number]; ok {
			f.Findings = append(f.Findings, workflow.Finding{
				Check:    workflow.CheckParse,
				Severity: workflow.Warning,
				Code:     "duplicate-wave",
				Message:  fmt.Sprintf("wave %d is listed more than once; its stories are merged", w.Number),
				Path:     f.Path,
			})
			if waves[i].Status == "" {
				waves[i].Status = w.Status
			}
			for _, s := range w.Stories {
				waves[i].Stories = epicMergeStory(waves[i].Stories, s)
			}
			return
		}
		idx[w.Number] = len(waves)
		waves = append(waves, w)
	}
	switch t := v.(type) {
	case []any:
		for i, it := range t {
			if w, ok := epicWave(f, it, i+1, fmt.Sprintf("waves[%d]", i)); ok {
				addWave(w)
			}
		}
	case map[string]any:
		keys := source.SortedKeys(t)
		sort.SliceStable(keys, func(i, j int) bool {
			a, _ := epicNumber(keys[i])
			b, _ := epicNumber(keys[j])
			return a < b
		})
		for i, k := range keys {
			n, ok := epicNumber(k)
			if !ok {
				n = i + 1
			}
			if w, ok := epicWave(f, t[k], n, "waves."+k); ok {
				addWave(w)
			}
		}
	default:
		f.Wrong("waves", "a list of waves", v)
	}
	return waves, idx
}

// epicWave reads one wave: a mapping {wave|number|id, status, stories}, a
// list of stories, or (in a mapping keyed by number) a status text.
func epicWave(f *source.Fields, v any, defNumber int, where string) (workflow.Wave, bool) {
	w := workflow.Wave{Number: defNumber}
	switch t := v.(type) {
	case map[string]any:
		for _, k := range []string{"wave", "number", "id"} {
			if x, ok := t[k]; ok && x != nil {
				if n, ok := epicNumber(x); ok {
					w.Number = n
				}
				break
			}
		}
		w.Status = workflow.NormalizeStateStatus(f.Str(t, "status", "state"))
		for _, k := range []string{"stories", "story_ids", "storyIds"} {
			if x, ok := t[k]; ok && x != nil {
				w.Stories = epicMergeAll(w.Stories, epicStories(f, x, where+"."+k))
				break
			}
		}
	case []any:
		w.Stories = epicMergeAll(w.Stories, epicStories(f, t, where))
	case nil:
	default:
		s, ok := tolerant.ScalarString(t)
		if !ok {
			f.Wrong(where, "a wave", v)
			return w, false
		}
		w.Status = workflow.NormalizeStateStatus(s)
	}
	return w, true
}

// epicStories reads a story collection: a list of ids, a list of mappings
// {id|storyId|story_id, status, path|file, wave}, a mapping id -> status, or
// a mapping id -> {status, path, wave, …}.
func epicStories(f *source.Fields, v any, key string) []epicStory {
	var out []epicStory
	fromMap := func(id string, m map[string]any) {
		if id == "" {
			f.Findings = append(f.Findings, workflow.Finding{
				Check:    workflow.CheckParse,
				Severity: workflow.Warning,
				Code:     "no-story-id",
				Message:  fmt.Sprintf("an entry of %s names no story id; it is ignored", key),
				Path:     f.Path,
			})
			return
		}
		s := epicStory{}
		s.ref.ID = id
		s.ref.Status = workflow.NormalizeStateStatus(f.Str(m, "status", "state"))
		p, _ := source.PathField(f, m, "path", "file", "story_path", "storyPath", "story_file", "storyFile")
		s.ref.Path = refpath.KeepUnsafe(p)
		s.ref.Executor = strings.TrimPrefix(f.Str(m, "executor"), "@")
		if x, ok := m["wave"]; ok && x != nil {
			if n, ok := epicNumber(x); ok {
				s.wave, s.hasWave = n, true
			} else {
				f.Wrong(key+".wave", "a wave number", x)
			}
		}
		out = append(out, s)
	}
	switch t := v.(type) {
	case []any:
		for _, it := range t {
			if m, ok := it.(map[string]any); ok {
				fromMap(f.Str(m, "id", "storyId", "story_id", "story"), m)
				continue
			}
			s, ok := tolerant.ScalarString(it)
			if !ok {
				f.Wrong(key+"[]", "a story", it)
				continue
			}
			if s != "" {
				out = append(out, epicStory{ref: workflow.StoryRef{ID: s}})
			}
		}
	case map[string]any:
		for _, id := range source.SortedKeys(t) {
			id2 := strings.TrimSpace(id)
			switch x := t[id].(type) {
			case map[string]any:
				fromMap(id2, x)
			case nil:
				if id2 != "" {
					out = append(out, epicStory{ref: workflow.StoryRef{ID: id2}})
				}
			default:
				st, ok := tolerant.ScalarString(x)
				if !ok {
					f.Wrong(key+"."+id, "a story status", x)
					st = ""
				}
				if id2 != "" {
					out = append(out, epicStory{ref: workflow.StoryRef{ID: id2, Status: workflow.NormalizeStateStatus(st)}})
				}
			}
		}
	default:
		s, ok := tolerant.ScalarString(v)
		if !ok {
			f.Wrong(key, "a list of stories", v)
			return nil
		}
		if s != "" {
			out = append(out, epicStory{ref: workflow.StoryRef{ID: s}})
		}
	}
	return out
}

// epicMergeAll merges each of stories into list as epicMergeStory does,
// finding the entry with the same id through an index: a wave of thousands
// of stories is merged in linear time, not compared pairwise.
func epicMergeAll(list []workflow.StoryRef, stories []epicStory) []workflow.StoryRef {
	idx := make(map[string]int, len(list)+len(stories))
	for i, r := range list {
		if _, dup := idx[r.ID]; !dup {
			idx[r.ID] = i
		}
	}
	for _, s := range stories {
		r := s.ref
		if i, ok := idx[r.ID]; ok {
			epicFillRef(&list[i], r)
			continue
		}
		idx[r.ID] = len(list)
		list = append(list, r)
	}
	return list
}

// epicMergeStory appends r to list, or fills the missing status, path and
// executor of the entry with the same id.
func epicMergeStory(list []workflow.StoryRef, r workflow.StoryRef) []workflow.StoryRef {
	for i := range list {
		if list[i].ID == r.ID {
			if list[i].Status == "" {
				list[i].Status = r.Status
			}
			if list[i].Path == "" {
				list[i].Path = r.Path
			}
			if list[i].Executor == "" {
				list[i].Executor = r.Executor
			}
			return list
		}
	}
	return append(list, r)
}

// epicFillInWaves fills status, path and executor of the waves' entries
// for r.ID; it reports whether any wave lists the story.
func epicFillInWaves(waves []workflow.Wave, r workflow.StoryRef) bool {
	found := false
	for i := range waves {
		for j := range waves[i].Stories {
			s := &waves[i].Stories[j]
			if s.ID != r.ID {
				continue
			}
			found = true
			epicFillRef(s, r)
		}
	}
	return found
}

func epicWaveByNumber(waves []workflow.Wave, n int) (workflow.Wave, bool) {
	for _, w := range waves {
		if w.Number == n {
			return w, true
		}
	}
	return workflow.Wave{}, false
}

// epicFillRef fills the status, path and executor dst lacks from r.
func epicFillRef(dst *workflow.StoryRef, r workflow.StoryRef) {
	dst.Status = cmp.Or(dst.Status, r.Status)
	dst.Path = cmp.Or(dst.Path, r.Path)
	dst.Executor = cmp.Or(dst.Executor, r.Executor)
}
