package cli

import (
	"strings"

	"github.com/orchestrate-dev/orchestrate/app/cli/views"
	"github.com/orchestrate-dev/orchestrate/app/resumeflow"
	"github.com/orchestrate-dev/orchestrate/modes"
)

// rebuildIfCorrupt handles a selected state file that is corrupt
// (resumeflow.RebuildCorrupt decides: rebuilt, or left corrupt so that the
// halt names the file) and prints the rebuilt block. When the state is
// rebuilt, the rebuilt candidate replaces the selected one: interactive
// asks the usual confirmation, pre-flight its proceed (or --approve), and
// autopilot halts (exit 17, also in a dry run) on the blocking "rebuild"
// finding RebuildCorrupt adds.
func (a *app) rebuildIfCorrupt(r *resumeRun) error {
	if r == nil || r.selected == nil {
		return nil
	}
	rb, ok := resumeflow.RebuildCorrupt(r.s.Session, r.all, *r.selected, r.mode, r.s.conf.Get("resume.mode") != "")
	if !ok {
		return nil
	}
	view := views.Rebuilt{Path: rb.Path, Code: rb.Code, Line: rb.Line, Reason: rb.Reason, ID: r.selected.ID, Parts: rb.Parts}
	if !rb.Rebuilt {
		*r.selected = rb.Candidate
		return a.renderTo(a.humanOut(r.opts), r.s, "rebuilt", view)
	}
	r.mode = rb.Mode
	c := rb.Candidate
	view.Rebuilt, view.Autopilot = true, r.mode == modes.ModeAutopilot
	view.Title = views.CandidateLabel(c)
	view.Story = strings.Join(c.Stories, ", ")
	view.Position = c.Position.String()
	view.Completed, view.Next = rb.Completed, rb.Next
	if err := a.renderTo(a.humanOut(r.opts), r.s, "rebuilt", view); err != nil {
		return err
	}
	*r.selected, r.all = c, rb.All
	return nil
}
