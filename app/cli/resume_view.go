package cli

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/orchestrate-dev/orchestrate/handoff/cleanup"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/templates"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

type phaseLine struct {
	N           int
	Name, Agent string
	// Reason is set for an invalidated phase: why it must re-run.
	Reason string
}

// summaryView feeds summary, cannot, partial, preflight and decision templates.
type summaryView struct {
	ID, Title, TypeLabel, StateSource, Story, Mode, Interrupted, AgeClass string
	Evidence                                                              []string
	Completed                                                             []phaseLine
	ResumePoint, Agent                                                    string
	Inputs, Remaining                                                     []string
	Warnings, Conflicts, Infos, Blocking                                  []string
	Forceable                                                             bool
	Reason, Decision                                                      string
	DryRun                                                                bool
	ValidPhases                                                           []string
	Valid, Invalid                                                        []phaseLine
	ValidNames                                                            []string
	Validation, Base, GitMode                                             string
	Checks                                                                []workflow.Finding
	Files                                                                 []fileView
	Stories                                                               []validate.StoryReport
	Chain                                                                 []string
	Steps                                                                 []string
	// Work and Framework: where inside the work the framework's files say
	// it stopped, for the sources that know (nil otherwise).
	Work      *workflow.ResumePoint
	Framework string
	// Stale: the state is old enough (age class stale) for cleanup to be
	// offered, and cleanup would not refuse it (cleanup.CleanupOffered). ForceFlags are the flags that resume over the conflicts in
	// this mode ("--force", or "--force --approve" where a confirmation is
	// also needed). Why is the one-line reason of the Cannot Resume block;
	// ReasonShown says a block above stated the reason, so the decision line
	// does not repeat it.
	Stale      bool
	RestartOK  bool
	ForceFlags string
	// ModeFlags (" --mode autopilot" in autopilot) keep the mode in the
	// restart and from-phase commands; CleanupFlags (" --yes" in autopilot
	// without a terminal) let the cleanup command run where nobody can
	// confirm it: every command a halt prints works in the state it is
	// printed in.
	ModeFlags, CleanupFlags string
	Why                     string
	ReasonShown             bool
}

type fileView struct {
	Path, Phase, State, Detail string
	Critical                   bool
}

type multipleItem struct {
	N                                int
	Label, Ago, Position, Validation string
}

// candidateLabel is "SDC for story 3.2", "Epic Execution for EPIC-ACT", …
func candidateLabel(c workflow.Candidate) string {
	switch {
	case c.Type == workflow.TypeEpic:
		return "Epic Execution -- " + c.Key
	case c.Type == workflow.TypeSpec:
		return "Spec Pipeline -- " + c.Key
	case len(c.Stories) == 1:
		return c.Type.Label() + " -- story " + c.Stories[0]
	}
	return c.Type.Label() + " -- " + c.Key
}

func (a *app) summaryView(r *resumeRun) summaryView {
	c := *r.selected
	p := r.plan
	v := summaryView{
		ID: c.ID, Title: c.Type.Label(), TypeLabel: c.Type.Label(), StateSource: c.Source.Path,
		Mode: string(r.mode), AgeClass: r.report.AgeClass, Decision: p.Decision, Reason: p.Reason,
		DryRun: r.opts.DryRun, Validation: r.report.Status, GitMode: r.report.GitMode,
		Agent: p.ResumeFrom.Agent, Inputs: p.ResumeFrom.Inputs,
		Stories: r.report.Stories,
		Work:    c.Resume, Framework: c.Framework,
	}
	if len(c.Stories) > 0 {
		v.Story = strings.Join(c.Stories, ", ")
	}
	switch {
	case c.Type == workflow.TypeEpic:
		v.Title += " for epic " + c.Key
	case c.Type == workflow.TypeSpec:
		v.Title += " for " + c.Key
	case len(c.Stories) == 1:
		v.Title += " for story " + c.Stories[0]
	case c.Key != "":
		v.Title += " " + c.Key
	}
	if phaseBased(c.Type) {
		v.ValidPhases = p.ValidPhases
	} else {
		v.ValidPhases = nil
	}
	for _, e := range c.Evidence {
		v.Evidence = append(v.Evidence, e.Path)
	}
	if at := interruptedAt(c, &r.report); at.IsZero() {
		v.Interrupted = "unknown"
	} else {
		v.Interrupted = templates.Ago(r.s.Now.Sub(at))
		if r.report.AgeAtLeast {
			v.Interrupted = "at least " + v.Interrupted
		}
	}
	if !r.report.Base.IsZero() {
		b := r.report.Base
		v.Base = fmt.Sprintf("%s %s (%s, %s)", b.Short, b.Subject, b.Author, b.When.Format("2006-01-02 15:04"))
	}
	listed := map[string]bool{}
	for i, ph := range p.Completed {
		v.Completed = append(v.Completed, phaseLine{N: i + 1, Name: orDash(ph.Name), Agent: orDash(ph.Agent), Reason: p.InvalidReasonOf(ph.ID)})
		listed[ph.ID] = true
	}
	for _, ip := range p.Invalidated {
		if !listed[ip.Phase] {
			v.Completed = append(v.Completed, phaseLine{N: len(v.Completed) + 1, Name: orDash(ip.Name), Agent: orDash(ip.Agent), Reason: ip.Reason})
		}
	}
	v.ResumePoint = resumePointText(p)
	if len(p.RemainingPhases) > 1 {
		v.Remaining = p.RemainingPhases[1:]
	}
	for _, f := range r.findings {
		line := f.Message
		switch {
		case f.Severity == workflow.Blocking && f.Check == workflow.CheckConflict:
			v.Conflicts = append(v.Conflicts, line)
			v.Blocking = append(v.Blocking, line)
			v.Forceable = true
		case f.Severity == workflow.Blocking:
			v.Conflicts = append(v.Conflicts, line)
			v.Blocking = append(v.Blocking, line)
		case f.Severity == workflow.Warning:
			v.Warnings = append(v.Warnings, line)
		default:
			v.Infos = append(v.Infos, line)
		}
	}
	if v.Forceable {
		for _, f := range r.situation.Blocking {
			if f.Check != workflow.CheckConflict {
				v.Forceable = false
			}
		}
	}
	index := map[string]int{}
	def := r.s.Repo.Definition(c.Workflow)
	for i, ph := range def.Phases {
		index[ph.ID] = i + 1
	}
	name := func(id string) string {
		if i := def.Index(id); i >= 0 {
			return def.Phases[i].Name
		}
		return id
	}
	for _, id := range p.ValidPhases {
		v.Valid = append(v.Valid, phaseLine{N: index[id], Name: name(id)})
		v.ValidNames = append(v.ValidNames, name(id))
	}
	for _, id := range p.InvalidPhases {
		v.Invalid = append(v.Invalid, phaseLine{N: index[id], Name: name(id), Reason: p.InvalidReasonOf(id)})
	}
	v.Checks = r.findings
	for _, f := range r.report.Files {
		fv := fileView{Path: f.Path, Phase: f.Phase, State: f.State, Detail: f.Detail, Critical: f.Critical}
		if fv.Detail == "" && len(f.By) > 0 {
			var by []string
			for _, b := range f.By {
				by = append(by, fmt.Sprintf("%s by %s at %s", b.Short, b.Author, b.When.Format("2006-01-02 15:04")))
			}
			fv.Detail = strings.Join(by, "; ")
		}
		v.Files = append(v.Files, fv)
	}
	for _, st := range p.Steps {
		line := st.Name
		if st.Story != "" {
			line += " (story " + st.Story + ")"
		}
		if st.Agent != "" {
			line += " -- @" + st.Agent
		}
		if st.Note != "" {
			line += " -- " + st.Note
		}
		v.Steps = append(v.Steps, line)
	}
	if len(v.Steps) == 0 {
		v.Steps = append(v.Steps, p.RemainingPhases...)
	}
	v.Chain = dependencyChain(r)
	// cleanup is offered only where it would not be refused (a
	// framework's shared files never are)
	v.Stale = r.report.AgeClass == "stale" && r.selected != nil && cleanup.CleanupOffered(*r.selected)
	v.RestartOK = r.restartOK
	v.ForceFlags = "--force --approve"
	if r.mode == modes.ModeAutopilot {
		// autopilot's hints keep the mode: without it the command would
		// ask, and without a terminal exit 19
		v.ForceFlags = "--force --mode autopilot"
		v.ModeFlags = " --mode autopilot"
		if v.Forceable {
			// a restart starts over on the same conflicts: autopilot
			// halts on them again unless forced
			v.ModeFlags = " --force --mode autopilot"
		}
		if !a.sys.IO.CanPrompt() {
			v.CleanupFlags = " --yes"
		}
	}
	v.Why = cannotWhy(v)
	return v
}

// cannotWhy is the reason line of the Cannot Resume block: what blocks, once
// (the findings are listed under it), and whether --force helps.
func cannotWhy(v summaryView) string {
	n := len(v.Blocking)
	noun := "blocking findings"
	if n == 1 {
		noun = "blocking finding"
	}
	if v.Forceable {
		noun, them := "conflicts", "them"
		if n == 1 {
			noun, them = "conflict", "it"
		}
		return fmt.Sprintf("%d %s (resolve %s, or resume anyway with %s):", n, noun, them, v.ForceFlags)
	}
	return fmt.Sprintf("%d %s (--force does not override these):", n, noun)
}

// resumePointText is the plan's position as status prints it, then the
// step's name when the position does not already say it and no framework
// item is shown below: "2/4 done, at Implementation", "3/5 iterations
// done, at review (QA Review)", or the phase id alone.
func resumePointText(p plan.Plan) string {
	name := p.ResumeName
	if name == "" {
		name = p.ResumeFrom.Phase
	}
	if p.Position.Kind == workflow.PosIteration && p.Position.Name != "" {
		name = p.Position.Name // the iteration is in the count already
	}
	if p.Position.Kind == "" {
		if name == "" {
			return "-"
		}
		return name
	}
	pos := p.Position.String()
	if name == "" || name == p.Position.At || p.ResumeFrom.Item != "" || p.Position.At == "" && p.Position.Last == "" && name == p.Position.Name {
		return pos
	}
	return pos + " (" + name + ")"
}

// phaseDependencies describes the dependencies a format records between
// the phases of one candidate (GSD plans' depends_on, Taskmaster subtasks'
// dependencies), each with the status of what it waits on.
func phaseDependencies(phases []workflow.Phase) []string {
	status := map[string]string{}
	for _, ph := range phases {
		status[ph.ID] = ph.Status
	}
	var out []string
	for _, ph := range phases {
		if len(ph.DependsOn) == 0 {
			continue
		}
		var deps []string
		for _, d := range ph.DependsOn {
			st := status[d]
			if st == "" {
				st = "not in this workflow"
			}
			deps = append(deps, d+" ("+st+")")
		}
		out = append(out, ph.ID+" depends on "+strings.Join(deps, ", "))
	}
	return out
}

// dependencyChain describes the order the involved stories depend on each
// other: for epics the waves, otherwise the Dependencies sections.
func dependencyChain(r *resumeRun) []string {
	c := r.selected
	var out []string
	if c.Epic != nil {
		for _, w := range c.Epic.Waves {
			var ids []string
			for _, s := range w.Stories {
				st := s.Status
				if st == "" {
					st = "pending"
				}
				ids = append(ids, s.ID+" ("+st+")")
			}
			mark := ""
			if w.Number == c.Epic.CurrentWave {
				mark = "  <- current"
			}
			out = append(out, fmt.Sprintf("wave %d [%s]: %s%s", w.Number, orDash(w.Status), strings.Join(ids, ", "), mark))
		}
		return out
	}
	if len(c.Stories) == 0 {
		return phaseDependencies(c.Phases)
	}
	for _, id := range c.Stories {
		st, ok := r.s.Res.Stories[id]
		if !ok {
			out = append(out, id+": story file not found")
			continue
		}
		dep, ok := st.Sections.Get(workflow.SectionDependencies)
		if !ok || strings.TrimSpace(dep.Raw) == "" {
			out = append(out, id+": no dependencies listed")
			continue
		}
		var items []string
		broken := 0
		for _, l := range strings.Split(dep.Raw, "\n") {
			l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "-*"))
			if l == "" {
				continue
			}
			// name the status of every story the dependency mentions
			for _, m := range storyRefRe.FindAllString(l, -1) {
				if m == id {
					continue
				}
				dst, ok := r.s.Res.Stories[m]
				switch {
				case !ok:
					l += " [story " + m + ": no file]"
					broken++
				case dst.Status == workflow.StatusDone:
					l += " [" + m + ": Done]"
				default:
					l += " [" + m + ": " + string(dst.Status) + ", not done]"
					broken++
				}
			}
			items = append(items, l)
		}
		verdict := "intact"
		if broken > 0 {
			verdict = fmt.Sprintf("%d unmet", broken)
		}
		out = append(out, id+" depends on ("+verdict+"): "+strings.Join(items, "; "))
	}
	return out
}

// storyRefRe finds story ids (4.2, 1.2.3) in free text.
var storyRefRe = regexp.MustCompile(`\b\d+(?:\.\d+)+\b`)

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
			d = fitMultiple(d, a.tableWidth()) // cut to a terminal's width
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
	if r.plan.Partial && phaseBased(r.selected.Type) && len(r.plan.InvalidPhases) > 0 && (!v.ReasonShown || v.RestartOK) {
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

// multipleView feeds the multiple template; withItems is false for the heading
// alone (the prompt then lists the candidates, labelled by candidateLabels).
func (a *app) multipleView(r *resumeRun, question, withItems bool) multipleData {
	var list []multipleItem
	for i, c := range r.all {
		ago := "at an unknown time"
		if !c.UpdatedAt.IsZero() {
			ago = templates.Ago(r.s.Now.Sub(c.UpdatedAt))
		}
		list = append(list, multipleItem{N: i + 1, Label: candidateLabel(c), Ago: ago, Position: c.Position.String()})
	}
	if !withItems {
		list = nil
	}
	return multipleData{list, question}
}

// multipleData is the multiple template's data.
type multipleData struct {
	Items    []multipleItem
	Question bool
}

// candidateLabels are the prompt's options: each line of the list.
func candidateLabels(d multipleData) []string {
	labels := make([]string, len(d.Items))
	for i, it := range d.Items {
		labels[i] = it.Label + " -- Interrupted " + it.Ago + " -- " + it.Position
	}
	return labels
}

// phaseBased reports whether a workflow type moves through named phases
// once (so "valid phases" and --from-phase suggestions make sense), unlike
// QA loops (iterations) and epics (waves of stories).
func phaseBased(t workflow.Type) bool {
	return t != workflow.TypeQALoop && t != workflow.TypeEpic
}
