package cli

import (
	"fmt"
	"io"

	"github.com/orchestrate-dev/orchestrate/app/cli/views"
	"github.com/orchestrate-dev/orchestrate/modes"
)

// summaryView is the summary of run r (views.NewSummary).
func (a *app) summaryView(r *resumeRun) views.Summary {
	return views.NewSummary(views.SummaryInput{
		Candidate: *r.selected, Plan: r.plan, Report: r.report, Findings: r.findings, Blocking: r.situation.Blocking,
		Mode: r.mode, DryRun: r.opts.DryRun, Now: r.s.Now,
		Definition: r.s.Repo.Definition(r.selected.Workflow), Stories: r.s.Res.Stories,
		RestartOK: r.restartOK, CanPrompt: a.sys.IO.CanPrompt(),
	})
}

// multipleView feeds the multiple template with run r's candidates
// (views.NewMultiple), aged as status ages them: each is validated once,
// all side by side, the first time the list is shown.
func (a *app) multipleView(r *resumeRun, question, withItems bool) views.Multiple {
	if r.listed == nil {
		r.listed = r.s.ValidateAll(r.all, false, nil)
	}
	return views.NewMultiple(r.all, r.listed, r.s.Now, question, withItems)
}

// printBlocks renders the human blocks of a resume to w.
func (a *app) printBlocks(w io.Writer, r *resumeRun) error {
	rd := a.renderer(r.s, w)
	render := func(name string, data any) error {
		out, err := rd.Render(name, data)
		if err != nil {
			return err
		}
		_, err = fmt.Fprint(w, out)
		return err
	}
	if len(r.all) > 1 && r.opts.Workflow == "" && r.mode != "autopilot" && !r.chosen {
		d := a.multipleView(r, false, true)
		if w == a.sys.IO.Out {
			d = views.FitMultiple(d, a.tableWidth()) // cut to a terminal's width
		}
		if err := render("multiple", d); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	v := a.summaryView(r)
	switch {
	case r.mode == "preflight":
		if err := render("preflight", v); err != nil {
			return err
		}
	case r.plan.Decision == modes.DecisionHalt && len(v.Blocking) > 0:
		if err := render("cannot", v); err != nil {
			return err
		}
		v.ReasonShown = true
	default:
		if err := render("summary", v); err != nil {
			return err
		}
	}
	if r.plan.Partial && views.PhaseBased(r.selected.Type) && len(r.plan.InvalidPhases) > 0 && (!v.ReasonShown || v.RestartOK) {
		fmt.Fprintln(w)
		if err := render("partial", v); err != nil {
			return err
		}
	}
	if r.opts.DryRun || r.mode == "preflight" {
		a.printPresetCommand(w, r)
	}
	fmt.Fprintln(w)
	return render("decision", v)
}
