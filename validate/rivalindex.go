package validate

import "sort"

// indexRivals lists, for each normalised story id, the rivals (by their
// place in rivals) that name it.
func indexRivals(rivals []rival) map[string][]int {
	by := map[string][]int{}
	for i, rv := range rivals {
		for _, id := range rv.ids {
			if l := by[id]; len(l) == 0 || l[len(l)-1] != i {
				by[id] = append(l, i)
			}
		}
	}
	return by
}

// rivalsSharing is the rivals (see rivals) that name one of the open
// stories (keyed by normalised id), in the rivals' order: the others share
// no story with the validated workflow and otherWorkflows passes them by.
// Through a Run they are found in its index instead of by weighing every
// rival (1,000 workflows weighed 1,000 rivals each).
func (v *validator) rivalsSharing(open map[string]string) []rival {
	all := v.rivals()
	r := v.in.Run
	if r == nil {
		return all
	}
	var at []int
	for id := range open {
		at = append(at, r.byStory[id]...)
	}
	sort.Ints(at)
	out := make([]rival, 0, len(at))
	for k, i := range at {
		if k == 0 || i != at[k-1] {
			out = append(out, all[i])
		}
	}
	return out
}
