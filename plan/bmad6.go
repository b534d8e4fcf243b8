package plan

import "github.com/orchestrate-dev/orchestrate/workflow"

// bmad6Phases are the phase names a story in progress (implement) or in
// review resumes at, in the story development cycle a repository defines.
var bmad6Phases = map[workflow.Type][]string{
	workflow.TypeSDC:      {"implement", "develop", "development", "implementation", "dev"},
	workflow.TypeQAReview: {"review", "qa-gate", "qa-review", "qa gate", "qa"},
}

// bmad6Track lays out a BMAD v6 ledger story as a story development cycle
// resuming at implement (in progress) or review (in review) — the ledger
// records a status, not a phase — and names on that step where, inside the
// story, work stopped: the open review follow-up or unchecked task, and
// BMAD's own command for it.
func bmad6Track(c workflow.Candidate, def workflow.Definition) track {
	at := -1
	for _, n := range bmad6Phases[c.Type] {
		if at = def.Index(n); at >= 0 {
			break
		}
	}
	if at < 0 {
		if c.Type != workflow.TypeSDC && c.Type != workflow.TypeQAReview {
			return genericTrack(c, def) // a quick-spec: its own steps
		}
		return sdcTrack(c, def)
	}
	t := defTrack(c, def)
	t.impliedBefore(at)
	t.natural = at
	t.useStateAgent(c, t.stateCurrent(c, def))
	if rp := c.Resume; rp != nil && rp.Item != "" {
		note := "resume at " + rp.Item
		if rp.Title != "" {
			note += ": " + rp.Title
		}
		if rp.FrameworkCommand != "" {
			note += " (" + rp.FrameworkCommand + ")"
		}
		t.slots[at].note = note
	}
	return t
}
