package plan

import (
	"strings"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// kiroTrack lays out a Kiro (or cc-sdd) spec as spec-kit's feature is laid
// out: one step per group of its tasks.md (a top-level task with its
// sub-tasks, or the tasks under a heading), completed when no required leaf
// in it is open, resuming at the group of the first open required leaf
// whatever validation finds changed in earlier groups. The resume step's
// note names the framework's own command ("Start task 2.3 …" in the IDE,
// "/kiro:spec-impl <feature> 2.3" with cc-sdd), which the handoff carries.
// The spec's files are never edited: the agent ticks the boxes itself.
func kiroTrack(c workflow.Candidate) track {
	t := speckitTrack(c)
	r := c.Resume
	if r == nil || r.FrameworkCommand == "" || len(c.Phases) == 0 {
		return t
	}
	if cur := t.firstWith(workflow.PhaseCurrent); cur >= 0 {
		note := "resume at " + r.Item
		if len(r.Labels) > 0 {
			note += " " + strings.Join(r.Labels, " ")
		}
		t.slots[cur].note = note + " -- " + r.FrameworkCommand
	}
	return t
}
