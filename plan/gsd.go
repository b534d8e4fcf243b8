package plan

import "github.com/orchestrate-dev/orchestrate/workflow"

// gsdAgent runs a GSD plan: the framework's executor.
const gsdAgent = "gsd-executor"

// gsdTrack lays out a GSD phase: one step per plan (completed when its
// SUMMARY exists), then the phase's verification. The resume point is the
// plan the source chose (the lowest-numbered plan without a SUMMARY whose
// dependencies are summarised), else "verify phase N". Plans of one wave
// finish out of order, so the steps are independent: a completed plan after
// the resume point is not run again, and a SUMMARY is no input of the next
// plan.
func gsdTrack(c workflow.Candidate) track {
	t := newTrack()
	t.chain = false
	t.independent = true
	t.slots, _ = phaseSlots(c)
	for i := range t.slots {
		if t.slots[i].agent == "" {
			t.slots[i].agent = gsdAgent
		}
		// a changed or missing SUMMARY of a completed plan stays a finding:
		// it never sends the plan back before the candidate's resume point
		// (GSD itself counts a plan done when its SUMMARY exists, and the
		// source already resumes at a plan whose SUMMARY is missing)
		t.slots[i].keys = nil
	}
	for _, s := range t.slots {
		t.names = appendUnique(t.names, s.id)
	}
	t.total = len(t.slots)
	switch {
	case t.firstWith(workflow.PhaseCurrent) >= 0:
		t.natural = t.firstWith(workflow.PhaseCurrent)
	default:
		t.natural = t.firstWith(workflow.PhasePending)
		if t.natural < 0 {
			t.natural = len(t.slots)
		}
	}
	return t
}
