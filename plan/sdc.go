package plan

import "github.com/orchestrate-dev/orchestrate/workflow"

// sdcTrack lays out a story development cycle (create → validate →
// implement → review). The resume point is the phase after the last
// completed one; when the state marks none, its current phase or position;
// a story InProgress with no state at all is in implement, a story InReview
// (qa-review) in review.
func sdcTrack(c workflow.Candidate, def workflow.Definition) track {
	if len(def.Phases) == 0 {
		return genericTrack(c, def)
	}
	t := sdcNatural(c, def)
	t.useStateAgent(c, t.stateCurrent(c, def))
	return t
}

// sdcNatural lays out the cycle and finds its natural resume point.
func sdcNatural(c workflow.Candidate, def workflow.Definition) track {
	t := newTrack()
	t.slots, _ = defSlots(c, def)
	t.total = len(def.Phases)
	t.names = defNames(def)
	t.storyFiles = storyFiles(c)

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
