package cli

import (
	"fmt"
	"strings"

	"github.com/orchestrate-dev/orchestrate/app/resumeflow"
	"github.com/orchestrate-dev/orchestrate/discover/rebuild"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// rebuiltView feeds templates/rebuilt.tmpl: the corruption (file, line,
// reason) and, when the state could be rebuilt, what it says and where each
// part came from; otherwise what was tried.
type rebuiltView struct {
	Path, Reason, Code string
	Line               int
	Rebuilt            bool
	ID, Title, Story   string
	Position, Next     string
	Completed          []string
	Parts              []rebuild.Provenance
	Autopilot          bool
}

// rebuildIfCorrupt handles a selected state file that is corrupt (task,
// Error Handling: "Corrupted state file"). It reports the corruption and
// asks rebuild.Rebuild to reconstruct the state. When nothing usable is
// found, the candidate is left as it is, its parse finding worded so the
// halt names the file (exit 17). When the state is rebuilt, the rebuilt
// block is printed and the rebuilt candidate replaces the selected one:
// interactive asks the usual confirmation, pre-flight its proceed (or
// --approve), and autopilot halts (exit 17, also in a dry run) because the
// rebuilt candidate then carries a blocking "rebuild" finding
// (rebuilt-needs-confirmation) that modes.Decide never resumes over, not
// even with --force.
func (a *app) rebuildIfCorrupt(r *resumeRun) error {
	if r == nil || r.selected == nil || r.selected.Status != rebuild.StatusUnreadable {
		return nil
	}
	c := *r.selected
	pf, corrupt := rebuild.CorruptFinding(c)
	if !corrupt {
		return nil // a file that cannot be opened is reported as it is
	}
	var others []workflow.Candidate
	for _, o := range r.s.Res.Candidates {
		if o.ID != c.ID {
			others = append(others, o)
		}
	}
	rebuilt, prov, ok := rebuild.Rebuild(r.s.Repo, c, others)

	view := rebuiltView{Path: c.Source.Path, Code: pf.Code, Line: pf.Line, Reason: pf.Message, ID: c.ID, Parts: prov}
	if pf.Code == "binary" {
		view.Reason = "binary data (NUL bytes) in a text state file: a torn or overwritten write"
		for _, f := range rebuilt.Findings {
			if f.Check == pf.Check && f.Code == pf.Code && f.Path == pf.Path && f.Line > 0 {
				view.Line = f.Line
			}
		}
	}
	if view.Line > 0 {
		view.Reason = strings.TrimPrefix(view.Reason, fmt.Sprintf("line %d: ", view.Line))
	}
	if !ok {
		reason := view.Reason
		if view.Line > 0 {
			reason = fmt.Sprintf("line %d: %s", view.Line, reason)
		}
		for i, f := range r.selected.Findings {
			if f == pf {
				r.selected.Findings[i].Message = fmt.Sprintf("the state file %s is corrupt and could not be rebuilt (%s)", c.Source.Path, reason)
			}
		}
		resumeflow.Replace(r.all, *r.selected)
		return a.renderTo(a.humanOut(r.opts), r.s, "rebuilt", view)
	}

	// A rebuilt state recorded as started in pre-flight resumes in pre-flight
	// when no mode was asked for; it is never promoted to autopilot.
	if r.s.conf.Get("resume.mode") == "" {
		if m, err := modes.ParseMode(rebuilt.Mode); err == nil && m == modes.ModePreflight {
			r.mode = m
		}
	}
	if r.mode == modes.ModeAutopilot {
		rebuilt.Findings = append(rebuilt.Findings, workflow.Finding{
			Check:    rebuild.CheckRebuild,
			Severity: workflow.Blocking,
			Code:     rebuild.CodeRebuiltNeedsConfirmation,
			Message:  fmt.Sprintf("autopilot never resumes a rebuilt state: review and confirm it with orchestrate resume %s --mode interactive (without a terminal: --mode interactive --approve)", c.ID),
			Path:     c.Source.Path,
		})
	}

	view.Rebuilt, view.Autopilot = true, r.mode == modes.ModeAutopilot
	view.Title = candidateLabel(rebuilt)
	view.Story = strings.Join(rebuilt.Stories, ", ")
	view.Position = rebuilt.Position.String()
	if rebuilt.Epic != nil {
		// an epic moves story by story: the stories done, the first one open
		for _, w := range rebuilt.Epic.Waves {
			for _, st := range w.Stories {
				switch {
				case st.Status == "done" || st.Status == "completed":
					view.Completed = append(view.Completed, "story "+st.ID)
				case view.Next == "":
					view.Next = fmt.Sprintf("story %s (wave %d)", st.ID, w.Number)
				}
			}
		}
	}
	for _, p := range rebuilt.Phases {
		if rebuilt.Epic != nil {
			break
		}
		switch p.Status {
		case workflow.PhaseCompleted:
			view.Completed = append(view.Completed, orDash(p.Name))
		case workflow.PhaseCurrent:
			view.Next = p.Name
			if p.Agent != "" {
				view.Next += " -- @" + strings.TrimPrefix(p.Agent, "@")
			}
		}
	}
	if view.Next == "" {
		view.Next = "-"
	}
	if err := a.renderTo(a.humanOut(r.opts), r.s, "rebuilt", view); err != nil {
		return err
	}
	rebuilt, r.all = resumeflow.AbsorbStories(r.all, rebuilt)
	*r.selected = rebuilt
	resumeflow.Replace(r.all, rebuilt)
	return nil
}
