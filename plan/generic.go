package plan

import (
	"fmt"
	"strings"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// orchestratorAgent takes a step whose agent neither the definition nor the
// state names: the agent that runs workflows (nexos @master).
const orchestratorAgent = "master"

// genericTrack lays out any other workflow (a workflow state with its own
// definition, a progress file, a work session): the definition's phases when
// the state's phases belong to it, else the state's own phases, else one
// step that continues from the saved context. The resume point is the phase
// the state marks current, else its position, else the phase after the last
// completed one; the remaining phases are the later ones.
func genericTrack(c workflow.Candidate, def workflow.Definition) track {
	t := newTrack()
	t.storyFiles = storyFiles(c)

	useDef := len(def.Phases) > 0
	if useDef && len(c.Phases) > 0 {
		useDef = false
		for _, ph := range c.Phases {
			if matchPhase(def, ph.ID) >= 0 || matchPhase(def, ph.Name) >= 0 {
				useDef = true
				break
			}
		}
	}
	var marked bool
	pos := -1
	switch {
	case useDef:
		t.slots, marked = defSlots(c, def)
		t.names = defNames(def)
		pos = positionIndex(c, def)
	case len(c.Phases) > 0:
		t.slots, marked = phaseSlots(c)
		for _, s := range t.slots {
			t.names = appendUnique(t.names, s.id)
		}
		pos = slotPosition(c.Position, t.slots)
	default:
		t.slots = []slot{singleSlot(c)}
		t.names = []string{t.slots[0].id}
		t.total = c.Position.Total
		if c.Position.Kind == "" && c.Position.Name == "" {
			t.findings = append(t.findings, positionUnknown(t.slots[0].id, "the orchestrator continues from the saved context"))
		}
		return t
	}
	t.total = len(t.slots)

	switch {
	case t.firstWith(workflow.PhaseCurrent) >= 0:
		t.natural = t.firstWith(workflow.PhaseCurrent)
		t.impliedBefore(t.natural)
	case pos >= 0 && t.slots[pos].status != workflow.PhaseCompleted:
		t.natural = pos
		if !marked {
			t.impliedBefore(pos)
		}
	default:
		if i, ok := t.afterLastCompleted(); ok {
			t.natural = i
		} else {
			t.natural = t.firstActive()
			if t.natural < len(t.slots) {
				t.findings = append(t.findings, positionUnknown(t.slots[t.natural].id, "resuming from the first phase"))
			}
		}
	}
	if useDef {
		t.useStateAgent(c, t.stateCurrent(c, def))
	} else {
		t.useStateAgent(c, t.stateCurrent(c, workflow.Definition{}))
	}
	if n := t.nextActive(t.natural); n < len(t.slots) && t.slots[n].agent == "" {
		t.slots[n].agent = strings.TrimPrefix(c.Agent, "@")
	}
	for i := range t.slots {
		if t.slots[i].agent == "" {
			t.slots[i].agent = orchestratorAgent
		}
	}
	return t
}

// phaseSlots lays out the phases a state lists itself.
func phaseSlots(c workflow.Candidate) (slots []slot, marked bool) {
	for i, ph := range c.Phases {
		id, title := slotNames(ph.ID, ph.Name, i)
		s := slot{
			id: id, title: title, agent: strings.TrimPrefix(ph.Agent, "@"), story: firstStory(c),
			index: i + 1, aliases: []string{title}, keys: []string{id, title},
			outputs: appendPaths(nil, ph.Outputs...),
		}
		if st := phaseStatus(ph.Status); st != "" {
			s.status = st
			marked = true
		}
		slots = append(slots, s)
	}
	attachFiles(c, slots, func(phase string) int {
		k := normKey(phase)
		for i, s := range slots {
			if normKey(s.id) == k || normKey(s.title) == k {
				return i
			}
		}
		return -1
	})
	return slots, marked
}

// slotPosition is the slot a position names (by name, else by index), or -1.
func slotPosition(pos workflow.Position, slots []slot) int {
	if pos.Kind == workflow.PosIteration || pos.Kind == workflow.PosWave {
		return -1
	}
	if k := normKey(pos.Name); k != "" {
		for i, s := range slots {
			if normKey(s.id) == k || normKey(s.title) == k || stripStep(normKey(s.id)) == stripStep(k) {
				return i
			}
		}
	}
	if pos.Index > 0 && pos.Index <= len(slots) {
		return pos.Index - 1
	}
	return -1
}

// singleSlot is the one step of a state that lists no phases: continue
// from the saved context at its position.
func singleSlot(c workflow.Candidate) slot {
	id := slug(c.Position.Name)
	if id == "" && c.Position.Kind != "" && c.Position.Index > 0 {
		id = fmt.Sprintf("%s-%d", c.Position.Kind, c.Position.Index)
	}
	if id == "" {
		id = "continue"
	}
	title := strings.TrimSpace(c.Position.Name)
	if title == "" {
		title = "Continue from the saved context"
	}
	agent := strings.TrimPrefix(c.Agent, "@")
	if agent == "" {
		agent = orchestratorAgent
	}
	s := slot{id: id, title: title, agent: agent, story: firstStory(c), index: c.Position.Index, aliases: []string{title}, keys: []string{id}}
	for _, f := range c.Files {
		if !f.Produced && f.Critical {
			s.inputs = append(s.inputs, input{path: f.Path, producer: -1, critical: true})
		}
	}
	return s
}
