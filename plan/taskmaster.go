package plan

import (
	"strings"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// taskTrack lays out a Taskmaster task: one step per subtask in the
// file's order (or the task itself when it has none, plus a last step
// finishing the task when every subtask is closed). Done subtasks are
// completed, cancelled ones skipped; the resume point is the item where
// work stopped (the candidate's resume point). Subtasks are independent:
// a done subtask after the resume point is not run again, and no step is
// sent back for files validation finds changed (those stay findings).
func taskTrack(c workflow.Candidate, def workflow.Definition) track {
	if len(c.Phases) == 0 {
		return genericTrack(c, def)
	}
	t := newTrack()
	t.chain = false
	t.independent = true
	t.storyFiles = storyFiles(c)
	for i, ph := range c.Phases {
		id, title := slotNames(ph.ID, ph.Name, i)
		agent := strings.TrimPrefix(ph.Agent, "@")
		if agent == "" {
			agent = orchestratorAgent
		}
		s := slot{id: id, title: title, agent: agent, index: i + 1, aliases: []string{title}, status: phaseStatus(ph.Status)}
		if s.status == workflow.PhaseCurrent {
			s.status = ""
		}
		t.slots = append(t.slots, s)
		t.names = appendUnique(t.names, id)
	}
	attachFiles(c, t.slots, func(phase string) int {
		for i, s := range t.slots {
			if s.id == phase {
				return i
			}
		}
		return -1
	})
	t.total = len(t.slots)
	t.natural = -1
	if c.Resume != nil {
		for i, s := range t.slots {
			if s.id == c.Resume.Item && s.status != workflow.PhaseCompleted {
				t.natural = i
			}
		}
	}
	if t.natural < 0 {
		t.natural = len(t.slots)
		for i, s := range t.slots {
			if s.status != workflow.PhaseCompleted && s.status != workflow.PhaseSkipped {
				t.natural = i
				break
			}
		}
	}
	return t
}
