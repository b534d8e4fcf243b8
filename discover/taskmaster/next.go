package taskmaster

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Next is the framework's own `task-master next` over one tag's tasks, by
// its rules (find-next-task): first the subtasks, pending or in-progress with
// every dependency done, of parents whose status is exactly in-progress,
// ranked by priority, then fewer dependencies, then parent id, then subtask
// id; else the top-level tasks, pending or in-progress with every dependency
// done, ranked by priority, dependency count and id. Like the framework it
// passes over in-progress subtasks of pending parents and `todo` subtasks;
// an item without a status is never chosen. ok is false when nothing is
// eligible.
func Next(tasks []Task) (Task, bool) {
	done := doneIDs(tasks)
	ready := func(t Task) bool {
		switch t.statusKey() {
		case "pending", "in-progress":
		default:
			return false
		}
		for _, d := range t.Deps {
			if !done[d] {
				return false
			}
		}
		return true
	}
	var subs []cand
	for _, p := range tasks {
		if p.statusKey() != "in-progress" {
			continue
		}
		for _, s := range p.Subtasks {
			if !ready(s) {
				continue
			}
			prio := s.Priority
			if prio == "" {
				prio = p.Priority
			}
			subs = append(subs, cand{s, priorityRank(prio)})
		}
	}
	if len(subs) > 0 {
		sort.SliceStable(subs, func(i, j int) bool {
			a, b := subs[i], subs[j]
			if less, ok := a.before(b); ok {
				return less
			}
			if c := compareIDs(a.t.Parent, b.t.Parent); c != 0 {
				return c < 0
			}
			return compareIDs(a.t.Local, b.t.Local) < 0
		})
		return subs[0].t, true
	}
	var tops []cand
	for _, t := range tasks {
		if ready(t) {
			tops = append(tops, cand{t, priorityRank(t.Priority)})
		}
	}
	if len(tops) == 0 {
		return Task{}, false
	}
	sort.SliceStable(tops, func(i, j int) bool {
		a, b := tops[i], tops[j]
		if less, ok := a.before(b); ok {
			return less
		}
		return compareIDs(a.t.ID, b.t.ID) < 0
	})
	return tops[0].t, true
}

// doneIDs is the set of the ids of the tasks and subtasks that are done.
func doneIDs(tasks []Task) map[string]bool {
	done := map[string]bool{}
	for _, t := range tasks {
		if t.isDone() {
			done[t.ID] = true
		}
		for _, s := range t.Subtasks {
			if s.isDone() {
				done[s.ID] = true
			}
		}
	}
	return done
}

// whyNotNext says why the framework's own next (Next) does not pick item,
// the item orchestrate resumes inside task t, by Next's rules: it takes
// subtasks only of tasks exactly in-progress, only pending or in-progress
// items, only items whose dependencies are done, and ranks the rest.
// done is doneIDs of the tag's tasks, found once for all its candidates (a
// tag of thousands of tasks in flight would find it once per task).
func whyNotNext(done map[string]bool, t, item Task) string {
	var open []string
	for _, d := range item.Deps {
		if !done[d] {
			open = append(open, d)
		}
	}
	what := "task " + item.ID
	if item.Parent != "" {
		what = "subtask " + item.ID
	}
	switch k := item.statusKey(); {
	case item.Parent != "" && t.statusKey() != "in-progress":
		return fmt.Sprintf("task-master next takes subtasks only of in-progress tasks; task %s is %s, so it passes over %s", t.ID, statusWords(t), what)
	case k != "pending" && k != "in-progress":
		return fmt.Sprintf("task-master next takes only pending or in-progress items; %s is %s", what, statusWords(item))
	case len(open) > 0:
		return fmt.Sprintf("task-master next waits for the dependencies of %s: %s not done", what, strings.Join(open, ", "))
	}
	return "task-master next ranks by priority, dependency count and id"
}

// statusWords names an item's status for a message.
func statusWords(t Task) string {
	if t.StatusRaw == "" {
		return "without a status"
	}
	return t.StatusRaw
}

// cand is a task that could be next, with the rank of its priority.
type cand struct {
	t    Task
	prio int
}

// before orders two candidates by what Task Master weighs first: the higher
// priority, then the fewer dependencies. ok is false when they tie on both
// (the caller breaks the tie by id).
func (a cand) before(b cand) (less, ok bool) {
	if a.prio != b.prio {
		return a.prio > b.prio, true
	}
	if len(a.t.Deps) != len(b.t.Deps) {
		return len(a.t.Deps) < len(b.t.Deps), true
	}
	return false, false
}

// isDone is what the framework's next counts as complete: done or completed.
func (t Task) isDone() bool {
	k := t.statusKey()
	return k == "done" || k == "completed"
}

// priorityRank orders priorities: critical (tm-core) above high, medium,
// low; anything else ranks as medium.
func priorityRank(p string) int {
	switch strings.ToLower(strings.TrimSpace(p)) {
	case "critical":
		return 4
	case "high":
		return 3
	case "low":
		return 1
	}
	return 2
}

// compareIDs compares two ids numerically when both are numbers, else as
// text; numbers sort before text.
func compareIDs(a, b string) int {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	switch {
	case errA == nil && errB == nil:
		if x < y {
			return -1
		}
		if x > y {
			return 1
		}
		return strings.Compare(a, b)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}
