package plan

import "github.com/orchestrate-dev/orchestrate/workflow"

// sdcTrack lays out a story development cycle (create → validate →
// implement → review). The resume point is the phase after the last
// completed one; when the state marks none, its current phase or position;
// a story InProgress with no state at all is in implement, a story InReview
// (qa-review) in review.
func sdcTrack(c workflow.Candidate, def workflow.Definition) track {
	return stateTrack(c, def, sdcNatural)
}

// sdcNatural lays out the cycle and finds its natural resume point.
func sdcNatural(c workflow.Candidate, def workflow.Definition) track {
	t := defTrack(c, def)

	if c.Type == workflow.TypeQAReview {
		if i := def.Index("review"); i >= 0 {
			t.impliedBefore(i)
			t.natural = i
			return t
		}
	}
	if t.stoppedAt(c, def) {
		return t
	}
	if c.Type == workflow.TypeSDC {
		if i := def.Index("implement"); i >= 0 {
			t.impliedBefore(i)
			t.natural = i
			return t
		}
	}
	t.natural = t.firstActive()
	if t.natural < len(t.slots) {
		t.findings = append(t.findings, positionUnknown(t.slots[t.natural].id, "resuming from the first phase"))
	}
	return t
}

// stateTrack lays out c by def with natural, the workflow's own rule for the
// resume point, then lets the state's current phase and agent speak; a
// definition without phases falls back to genericTrack.
func stateTrack(c workflow.Candidate, def workflow.Definition, natural func(workflow.Candidate, workflow.Definition) track) track {
	if len(def.Phases) == 0 {
		return genericTrack(c, def)
	}
	t := natural(c, def)
	t.useStateAgent(c, t.stateCurrent(c, def))
	return t
}

// defTrack lays out def's phases for c (slots, names, total and c's story
// files), before any resume point is chosen.
func defTrack(c workflow.Candidate, def workflow.Definition) track {
	t := newTrack()
	t.slots, _ = defSlots(c, def)
	t.total = len(def.Phases)
	t.names = defNames(def)
	t.storyFiles = storyFiles(c)
	return t
}
