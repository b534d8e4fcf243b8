package plan

import "github.com/orchestrate-dev/orchestrate/workflow"

// openspecTrack lays out an OpenSpec change as a spec-kit feature is laid
// out (speckitTrack): one step per task group of its tasks.md, the resume
// point the group of the first open task; a change without counted tasks
// is one step that runs the framework's apply command. The change's files
// are never edited: the agent ticks the boxes itself.
func openspecTrack(c workflow.Candidate) track {
	t := speckitTrack(c)
	if len(c.Phases) == 0 && len(t.slots) == 1 {
		t.slots[0].title = "Apply the change's tasks"
	}
	return t
}
