package workflow

import "fmt"

// GroupedTask is one counted task of a checklist (a tasks.md) as
// TaskGroups sees it: the heading it stands under and whether it is done.
type GroupedTask struct {
	// Group is the index of its heading in TaskGroups.Headings, -1 when it
	// stands above the first heading.
	Group int
	Done  bool
}

// TaskGroups are the headings of a checklist and its counted tasks, to be
// laid out as phases (Phases).
type TaskGroups struct {
	Headings []string
	Tasks    []GroupedTask
	// Current is the resume point's task; nil when there is none.
	Current *GroupedTask
	// Agent is the agent of every phase.
	Agent string
	// ID names a heading's phase; repeated ids get -2, -3, … appended.
	ID func(heading string) string
}

// Phases lays out the groups with their status: completed when every task
// under the heading is done, current for the group of g.Current, pending
// otherwise. Tasks above the first heading form a group "Tasks" of their
// own, first. No tasks: no phases.
func (g TaskGroups) Phases() []Phase {
	if len(g.Tasks) == 0 {
		return nil
	}
	names := g.Headings
	lead := false
	for _, t := range g.Tasks {
		if t.Group < 0 {
			lead = true
			break
		}
	}
	if lead {
		names = append([]string{"Tasks"}, names...)
	}
	idx := func(t GroupedTask) int {
		if lead {
			return t.Group + 1
		}
		return t.Group
	}
	open := make([]bool, len(names))
	for _, t := range g.Tasks {
		if !t.Done {
			open[idx(t)] = true
		}
	}
	out := make([]Phase, len(names))
	used := map[string]int{}
	for i, n := range names {
		id := g.ID(n)
		used[id]++
		if used[id] > 1 {
			id = fmt.Sprintf("%s-%d", id, used[id])
		}
		out[i] = Phase{ID: id, Name: n, Agent: g.Agent, Status: PhasePending}
		if !open[i] {
			out[i].Status = PhaseCompleted
		}
	}
	if g.Current != nil {
		out[idx(*g.Current)].Status = PhaseCurrent
	}
	return out
}
