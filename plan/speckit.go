package plan

import (
	"fmt"
	"strings"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// speckitTrack lays out a spec-kit feature: one step per phase heading of
// its tasks.md (the groups /speckit.implement runs in order), completed when
// every task under it is ticked. The resume point is the phase of the first
// unchecked task (the one the candidate marks current), whatever validation
// finds changed in earlier phases, else the phase after the last completed
// one; a feature without task lines is one step that runs
// /speckit.implement. The candidate's own files are never edited: the agent
// ticks the boxes itself.
func speckitTrack(c workflow.Candidate) track {
	t := newTrack()
	t.storyFiles = storyFiles(c)
	if len(c.Phases) == 0 {
		s := singleSlot(c)
		s.id, s.title, s.aliases, s.keys = "implement", "Implement the feature's tasks", []string{"implement"}, []string{"implement"}
		if c.Resume != nil && c.Resume.FrameworkCommand != "" {
			s.note = c.Resume.FrameworkCommand
		}
		t.slots = []slot{s}
		t.names = []string{s.id}
		t.total = 1
		return t
	}
	t.slots, _ = phaseSlots(c)
	// The resume point is the candidate's: the first unchecked task. The
	// phases are groups of tasks the agent ticks in any order (holes are
	// common), and later tasks edit the files earlier ones produced, so a
	// changed or missing file of a completed phase stays a finding and never
	// sends the plan back to that phase; completed phases after the resume
	// point are not run again.
	t.chain = false
	t.independent = true
	for i := range t.slots {
		t.names = appendUnique(t.names, t.slots[i].id)
		if t.slots[i].agent == "" {
			t.slots[i].agent = orchestratorAgent
		}
		t.slots[i].keys = nil
	}
	t.total = len(t.slots)
	if cur := t.firstWith(workflow.PhaseCurrent); cur >= 0 {
		t.natural = cur
		if r := c.Resume; r != nil && r.Item != "" {
			note := fmt.Sprintf("resume at %s", r.Item)
			if len(r.Labels) > 0 {
				note += " " + strings.Join(r.Labels, " ")
			}
			t.slots[cur].note = note
		}
	} else if i, ok := t.afterLastCompleted(); ok {
		t.natural = i
	}
	return t
}
