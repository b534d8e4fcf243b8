package workflow

import (
	"fmt"
	"time"
)

// Checklist is a kind of work item that a framework driven by a tasks.md
// keeps (a spec-kit feature, an OpenSpec change): what the candidates of
// every item of the kind share.
type Checklist struct {
	IDPrefix string // the candidate id's prefix, "feature:"
	Type     Type
	Kind     string // the SourceRef kind
	Workflow string
	Agent    string
}

// ChecklistItem is one work item of a Checklist kind as its reader found
// it.
type ChecklistItem struct {
	Key string
	// TasksPath is its tasks.md ("" when it has none), Dir its folder.
	TasksPath, Dir string
	// Current: the framework's own rule picks it as the item worked on.
	Current   bool
	Status    Status
	StatusRaw string
	// ModTime is when it last changed; From says where that time came
	// from when it is not the files' modification time.
	ModTime   time.Time
	From      string
	Framework string
	Findings  []Finding
}

// Candidate is the candidate of item it, before its position, phases and
// resume point: its source is its tasks.md (else its folder), at spec
// priority or, when it is the current item, in-progress priority; its time
// comes from it.From, else the files' modification time ("mtime"), and
// from nowhere when there is none; its findings are a copy of the item's.
func (k Checklist) Candidate(it ChecklistItem) Candidate {
	src := SourceRef{Kind: k.Kind, Path: it.TasksPath, Priority: PrioritySpec}
	if src.Path == "" {
		src.Path = it.Dir
	}
	if it.Current {
		src.Priority = PriorityInProgress
	}
	c := Candidate{
		ID: k.IDPrefix + it.Key, Type: k.Type, Key: it.Key, Source: src, Workflow: k.Workflow, Stories: []string{},
		Status: string(it.Status), StatusRaw: it.StatusRaw, UpdatedAt: it.ModTime, UpdatedFrom: "mtime",
		Agent: k.Agent, Framework: it.Framework, Findings: append([]Finding(nil), it.Findings...),
	}
	if it.From != "" {
		c.UpdatedFrom = it.From
	}
	if c.UpdatedAt.IsZero() {
		c.UpdatedFrom = ""
	}
	return c
}

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
