package cli

import (
	"fmt"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/app/cli/jsondoc"
	"github.com/orchestrate-dev/orchestrate/app/cli/views"
	"github.com/orchestrate-dev/orchestrate/app/resumeflow"
	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
	"github.com/orchestrate-dev/orchestrate/templates"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// StatusOptions are the dependencies and flags of `orchestrate status`.
type StatusOptions struct {
	Deps Deps
	JSON bool
	All  bool
	// Wide shows every cell whole on a terminal too (by default the table
	// is cut to the terminal's width).
	Wide bool
}

// statusHelp is the help of `orchestrate status`.
const statusHelp = `List every interrupted workflow found in the repository, newest first, with its
position, age, validation status and the file its state came from. --all also lists what
is not resumable: completed, aborted and idle states, and stories in every status.

On a terminal the table is cut to its width (COLUMNS overrides it): the widest of
POSITION, LIFECYCLE, SOURCE and ID lose text first, shown with "…"; an ID keeps
enough to be a unique prefix, or is shown whole. --wide, --json and output that is
not a terminal (a pipe, a file) always show everything whole.`

func (a *app) newStatusCmd() *cobra.Command {
	opts := &StatusOptions{}
	cmd := a.newCmd(cmdSpec{Use: "status", Short: "List interrupted workflows with their age and validation", Long: statusHelp}, &opts.Deps, func(a *app, _ []string) error { return a.runStatus(opts) })
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON document (schema orchestrate/v1)")
	cmd.Flags().BoolVar(&opts.All, "all", false, "also list what is not resumable")
	cmd.Flags().BoolVar(&opts.Wide, "wide", false, "show every column whole, even when wider than the terminal")
	return cmd
}

func (a *app) runStatus(opts *StatusOptions) error {
	fastsys.Allow() // a read-only command with no signal handler (internal/fastsys)
	s, err := a.loadValidating(true)
	if err != nil {
		return err
	}
	a.reportGlobalFindings(s)
	a.trustNotice(s)
	ageClass := func(d time.Duration) string { return validate.ClassifyAge(d, s.Cfg.Age) }
	var shown []workflow.Candidate
	hidden := 0
	for _, c := range s.Res.Candidates {
		if c.Resumable || opts.All {
			shown = append(shown, c)
		} else {
			hidden++
		}
	}
	hist := a.handoffHistory(s)
	shared := a.sharedLifecycle(s)
	if shared.err != nil {
		fmt.Fprintf(a.sys.IO.ErrOut, "warning: the shared handoff records (lifecycle.remote) could not be read; showing this checkout's only: %s\n", cmdutil.SafeErr(sharedUnusable(shared.err)))
	}
	var locks *handoff.LockView // the locks folder listed once, when a row asks
	lifeOf := func(c workflow.Candidate) resumeflow.Lifecycle {
		if locks == nil {
			locks = handoff.ViewLocks(s.Root)
		}
		return resumeflow.LifecycleShared(locks, hist, shared.view, s.Now, c)
	}
	// status shows each report's verdict, age and findings, never its
	// file and story lists: they are not made
	reports := s.ValidateAll(shown, false, resumeflow.KeptFindings(opts.JSON))
	s.SaveCaches()
	if opts.JSON {
		doc := jsondoc.Status{Schema: jsondoc.Schema, Command: "status", Candidates: []jsondoc.Candidate{}, Trust: trustDoc(s)}
		for i, c := range shown {
			cj := jsondoc.NewCandidate(c, reports[i], s.Now, true, ageClass)
			if reports[i] != nil {
				v := resumeflow.ValidationWord(c, reports[i])
				cj.Validation, cj.Lifecycle = &v, jsondoc.NewLifecycle(lifeOf(c), s.Now)
			}
			a.statusPresetJSON(s, c, &cj)
			doc.Candidates = append(doc.Candidates, cj)
		}
		return jsondoc.Write(a.sys.IO.Out, doc)
	}
	data := views.Status{Root: s.Root, Hidden: hidden}
	for i, c := range shown {
		row := views.StatusRow{ID: c.ID, Type: string(c.Type), Position: c.Position.String(), Age: "-", Validation: "-", Source: c.Source.Path}
		if at := views.InterruptedAt(c, reports[i]); !at.IsZero() {
			row.Age = templates.Duration(s.Now.Sub(at))
		}
		if reports[i] != nil {
			if reports[i].AgeAtLeast && row.Age != "-" {
				row.Age = "at least " + row.Age
			}
			row.Validation = resumeflow.ValidationWord(c, reports[i])
			if l := lifeOf(c); l.State != resumeflow.LifeInterrupted {
				row.Life, data.Life = l.Text(s.Now), true
			} else {
				row.Life = resumeflow.LifeInterrupted
			}
		} else if !c.Resumable {
			row.Validation = "(" + views.StatusWord(c) + ")"
		}
		// shown as Render will show them, so the widths fit what is printed
		row.ID, row.Position, row.Validation, row.Source = templates.Safe(row.ID), templates.Safe(row.Position), templates.Safe(row.Validation), templates.Safe(row.Source)
		data.Rows = append(data.Rows, row)
	}
	width := a.tableWidth()
	if opts.Wide {
		width = 0
	}
	views.FitStatus(&data, width)
	out, err := a.renderer(s, a.sys.IO.Out).RenderNative("status", data, statusTable)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(a.sys.IO.Out, out)
	a.printStatusPresets(a.sys.IO.Out, s, shown)
	return err
}

// statusTable is what the built-in status template renders of data (a
// views.Status, its strings made safe), byte for byte, without the
// template's reflection (templates.RenderNative): the header and a line
// a row, each cell padded to its column's width. false, for the template
// to render it, when a width is over templates.MaxPad (the template's pad
// fails) or the rows near templates.MaxBuiltinSteps.
func statusTable(data any) (string, bool) {
	d, ok := data.(views.Status)
	if !ok || len(d.Rows) > templates.MaxBuiltinSteps/2 {
		return "", false
	}
	if len(d.Rows) == 0 {
		return "", true
	}
	w := d.W
	for _, n := range []int{w.ID, w.Type, w.Pos, w.Age, w.Val} {
		if n > templates.MaxPad {
			return "", false
		}
	}
	if d.Life && w.Life > templates.MaxPad {
		return "", false
	}
	var b strings.Builder
	line := func(id, typ, pos, age, val, life, src string) {
		for _, c := range [...]struct {
			n int
			s string
		}{{w.ID, id}, {w.Type, typ}, {w.Pos, pos}, {w.Age, age}, {w.Val, val}} {
			pad(&b, c.n, c.s)
		}
		if d.Life {
			pad(&b, w.Life, life)
		}
		b.WriteString(src)
		b.WriteByte('\n')
	}
	line("ID", "TYPE", "POSITION", "AGE", "VALIDATION", "LIFECYCLE", "SOURCE")
	for _, r := range d.Rows {
		life := r.Life
		if life == "" {
			life = "-"
		}
		line(r.ID, r.Type, r.Position, r.Age, r.Validation, life, r.Source)
	}
	return b.String(), true
}

// pad writes s padded with spaces to n columns (the templates' pad), and
// the two spaces between columns.
func pad(b *strings.Builder, n int, s string) {
	b.WriteString(s)
	if w := termsafe.Width(s); w < n {
		for range n - w {
			b.WriteByte(' ')
		}
	}
	b.WriteString("  ")
}

// renderer returns the template renderer for the session, with colour
// when w is a terminal (and colour is not turned off).
func (a *app) renderer(s *loadedRepo, w io.Writer) templates.Renderer {
	dir := s.Cfg.TemplatesDir
	if dir != "" && !filepathIsAbs(dir) {
		dir = joinPath(s.Root, dir)
	}
	return templates.Renderer{Dir: dir, Root: s.Root, Color: a.colorFor(w), Warn: func(msg string) { fmt.Fprintf(a.sys.IO.ErrOut, "warning: %s\n", msg) }}
}

// reportGlobalFindings prints findings that belong to no candidate on
// stderr, redacted and with control characters escaped.
func (a *app) reportGlobalFindings(s *loadedRepo) {
	for _, f := range s.Res.Findings {
		if f.Severity == workflow.Info {
			// notes (which rule chose a framework's current item, …) are for
			// --log-level info and the candidates' own reports, not every run
			a.log.Infof("%s", templates.Safe(f.Error()))
			continue
		}
		fmt.Fprintf(a.sys.IO.ErrOut, "%s: %s\n", f.Severity, templates.Safe(f.Error()))
	}
}
