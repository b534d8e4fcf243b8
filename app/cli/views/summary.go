// Package views holds the data the human blocks are rendered from (the
// templates package's text/template files): the resume summary and its
// parts (NewSummary), the multiple-workflows list (NewMultiple,
// FitMultiple), the status table (Status, FitStatus), the confirmation and
// rebuilt blocks, the wordings they share (CandidateLabel, ResumePoint,
// CannotWhy, DependencyChain), a line of `orchestrate log` (LogLine) and
// what a repository's configuration file makes orchestrate do
// (RepoConfig). It builds views from the values it is given and prints
// nothing.
package views

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/rebuild"
	"github.com/orchestrate-dev/orchestrate/handoff/cleanup"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/templates"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// PhaseLine is a phase as the blocks list it: its number, name and agent.
type PhaseLine struct {
	N           int
	Name, Agent string
	// Reason is set for an invalidated phase: why it must re-run.
	Reason string
}

// Summary feeds the summary, cannot, partial, preflight and decision
// templates (NewSummary).
type Summary struct {
	ID, Title, TypeLabel, StateSource, Story, Mode, Interrupted, AgeClass string
	Evidence                                                              []string
	Completed                                                             []PhaseLine
	ResumePoint, Agent                                                    string
	Inputs, Remaining                                                     []string
	Warnings, Conflicts, Infos, Blocking                                  []string
	Forceable                                                             bool
	Reason, Decision                                                      string
	DryRun                                                                bool
	ValidPhases                                                           []string
	Valid, Invalid                                                        []PhaseLine
	ValidNames                                                            []string
	Validation, Base, GitMode                                             string
	Checks                                                                []workflow.Finding
	Files                                                                 []File
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

// File is a file the validation looked at, as the pre-flight report lists it.
type File struct {
	Path, Phase, State, Detail string
	Critical                   bool
}

// MultipleItem is a line of the multiple-workflows block.
type MultipleItem struct {
	N                                int
	Label, Ago, Position, Validation string
}

// CandidateLabel is "SDC for story 3.2", "Epic Execution for EPIC-ACT", …
func CandidateLabel(c workflow.Candidate) string {
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

// SummaryInput is what NewSummary reads of one resume: the workflow
// selected, its plan, validation and findings, the mode, and what the
// repository says of its phases and stories.
type SummaryInput struct {
	Candidate workflow.Candidate
	Plan      plan.Plan
	Report    validate.Report
	Findings  []workflow.Finding
	// Blocking are the decision's blocking findings (modes.Situation).
	Blocking []workflow.Finding
	Mode     modes.Mode
	DryRun   bool
	Now      time.Time
	// Definition is the workflow's definition (its phases, numbered).
	Definition workflow.Definition
	// Stories are the repository's stories by id (DependencyChain).
	Stories map[string]*workflow.Story
	// RestartOK: a halt a restart from the first phase would get past.
	RestartOK bool
	// CanPrompt: a terminal can answer (autopilot's cleanup hint needs
	// --yes without one).
	CanPrompt bool
}

// NewSummary is the summary of in, for the summary, cannot, partial,
// preflight and decision templates.
func NewSummary(in SummaryInput) Summary {
	c := in.Candidate
	p := in.Plan
	v := Summary{
		ID: c.ID, Title: c.Type.Label(), TypeLabel: c.Type.Label(), StateSource: c.Source.Path,
		Mode: string(in.Mode), AgeClass: in.Report.AgeClass, Decision: p.Decision, Reason: p.Reason,
		DryRun: in.DryRun, Validation: in.Report.Status, GitMode: in.Report.GitMode,
		Agent: p.ResumeFrom.Agent, Inputs: p.ResumeFrom.Inputs,
		Stories: in.Report.Stories,
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
	if PhaseBased(c.Type) {
		v.ValidPhases = p.ValidPhases
	} else {
		v.ValidPhases = nil
	}
	for _, e := range c.Evidence {
		v.Evidence = append(v.Evidence, e.Path)
	}
	if at := InterruptedAt(c, &in.Report); at.IsZero() {
		v.Interrupted = "unknown"
	} else {
		v.Interrupted = templates.Ago(in.Now.Sub(at))
		if in.Report.AgeAtLeast {
			v.Interrupted = "at least " + v.Interrupted
		}
	}
	if !in.Report.Base.IsZero() {
		b := in.Report.Base
		v.Base = fmt.Sprintf("%s %s (%s, %s)", b.Short, b.Subject, b.Author, b.When.Format("2006-01-02 15:04"))
	}
	listed := map[string]bool{}
	for i, ph := range p.Completed {
		v.Completed = append(v.Completed, PhaseLine{N: i + 1, Name: orDash(ph.Name), Agent: orDash(ph.Agent), Reason: p.InvalidReasonOf(ph.ID)})
		listed[ph.ID] = true
	}
	for _, ip := range p.Invalidated {
		if !listed[ip.Phase] {
			v.Completed = append(v.Completed, PhaseLine{N: len(v.Completed) + 1, Name: orDash(ip.Name), Agent: orDash(ip.Agent), Reason: ip.Reason})
		}
	}
	v.ResumePoint = ResumePoint(p)
	if len(p.RemainingPhases) > 1 {
		v.Remaining = p.RemainingPhases[1:]
	}
	for _, f := range in.Findings {
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
		for _, f := range in.Blocking {
			if f.Check != workflow.CheckConflict {
				v.Forceable = false
			}
		}
	}
	index := map[string]int{}
	def := in.Definition
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
		v.Valid = append(v.Valid, PhaseLine{N: index[id], Name: name(id)})
		v.ValidNames = append(v.ValidNames, name(id))
	}
	for _, id := range p.InvalidPhases {
		v.Invalid = append(v.Invalid, PhaseLine{N: index[id], Name: name(id), Reason: p.InvalidReasonOf(id)})
	}
	v.Checks = in.Findings
	for _, f := range in.Report.Files {
		fv := File{Path: f.Path, Phase: f.Phase, State: f.State, Detail: f.Detail, Critical: f.Critical}
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
	v.Chain = DependencyChain(c, in.Stories)
	// cleanup is offered only where it would not be refused (a
	// framework's shared files never are)
	v.Stale = in.Report.AgeClass == "stale" && cleanup.CleanupOffered(c)
	v.RestartOK = in.RestartOK
	v.ForceFlags = "--force --approve"
	if in.Mode == modes.ModeAutopilot {
		// autopilot's hints keep the mode: without it the command would
		// ask, and without a terminal exit 19
		v.ForceFlags = "--force --mode autopilot"
		v.ModeFlags = " --mode autopilot"
		if v.Forceable {
			// a restart starts over on the same conflicts: autopilot
			// halts on them again unless forced
			v.ModeFlags = " --force --mode autopilot"
		}
		if !in.CanPrompt {
			v.CleanupFlags = " --yes"
		}
	}
	v.Why = CannotWhy(v)
	return v
}

// CannotWhy is the reason line of the Cannot Resume block: what blocks, once
// (the findings are listed under it), and whether --force helps.
func CannotWhy(v Summary) string {
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

// ResumePoint is the plan's position as status prints it, then the
// step's name when the position does not already say it and no framework
// item is shown below: "2/4 done, at Implementation", "3/5 iterations
// done, at review (QA Review)", or the phase id alone.
func ResumePoint(p plan.Plan) string {
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

// PhaseDependencies describes the dependencies a format records between
// the phases of one candidate (GSD plans' depends_on, Taskmaster subtasks'
// dependencies), each with the status of what it waits on.
func PhaseDependencies(phases []workflow.Phase) []string {
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

// DependencyChain describes the order the stories c involves depend on
// each other: for epics the waves, otherwise the Dependencies sections of
// their story files (stories, by id).
func DependencyChain(c workflow.Candidate, stories map[string]*workflow.Story) []string {
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
		return PhaseDependencies(c.Phases)
	}
	for _, id := range c.Stories {
		st, ok := stories[id]
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
				dst, ok := stories[m]
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

// InterruptedAt is when c was interrupted: the last activity on its own
// files as its validation found it (validate.Report.InterruptedAt), else
// the time of its state; status and the pre-flight report show the same.
func InterruptedAt(c workflow.Candidate, rep *validate.Report) time.Time {
	if rep != nil && rep.InterruptedAt.After(c.UpdatedAt) {
		return rep.InterruptedAt
	}
	return c.UpdatedAt
}

// Confirmation feeds the confirmation template: the workflow handed off,
// where, to whom, with what.
type Confirmation struct {
	Title, Story, Phase, Agent, Age, Validation, Envelope, Command string
	Forced, Restart                                                bool
	// Running: shown before the command runs (it is about to start).
	Running bool
}

// Rebuilt feeds templates/rebuilt.tmpl: the corruption (file, line,
// reason) and, when the state could be rebuilt, what it says and where each
// part came from; otherwise what was tried.
type Rebuilt struct {
	Path, Reason, Code string
	Line               int
	Rebuilt            bool
	ID, Title, Story   string
	Position, Next     string
	Completed          []string
	Parts              []rebuild.Provenance
	Autopilot          bool
}

// orDash is s, or "-" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
