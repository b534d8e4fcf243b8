package openspec

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// changes are what the candidates of every change share.
var changes = workflow.Checklist{IDPrefix: "openspec:", Type: workflow.TypeChange, Kind: workflow.KindOpenSpec, Workflow: Workflow, Agent: Agent}

// draft is what an active change's candidate takes of its tasks (see
// settle): the counts, phases, position, resume point (but its command and
// note), referenced files and findings, and the counts note shows beside.
type draft struct {
	done, total int
	phases      []workflow.Phase
	position    workflow.Position
	resume      workflow.ResumePoint
	files       []workflow.RefFile
	findings    []workflow.Finding
	// the other rules' counts (note)
	oldDone, oldTotal, cliDone, cliTotal, midDone, midTotal, fenced int
}

// settle draws from active change c's tasks what its candidate needs
// (c.d), every string of it copied out of the tasks.md text into one
// allocation of the change's own, and drops the tasks and the file-system
// look-ups they were read with: 500 changes do not hold every task, nor
// every tasks.md's text, for the whole scan. What depends on the other
// changes (the current one, the time, the note) is Build's.
func (c *change) settle() {
	if c.d != nil {
		return
	}
	d := &draft{}
	d.done, d.total = c.Tasks.Count()
	first := c.Tasks.FirstOpen()
	d.phases = phases(c, first)
	d.position = workflow.StepPosition(d.done, d.total, "")
	rp := &d.resume
	rp.Done, rp.Total, rp.Holes = d.done, d.total, c.Tasks.Holes()
	if first != nil {
		rp.Item, rp.Title, rp.Section = first.Item, first.Title, first.Group
		rp.Files = slices.Clone(first.Paths)
		for _, ref := range first.Refs {
			rp.Labels = append(rp.Labels, "[Requirements: "+ref+"]")
		}
		d.position.Name, d.position.At = first.Group, first.Item
	}
	frameworkNext(c, rp, first)
	if c.TasksPath != "" && d.total == 0 && !c.unread {
		msg := "tasks.md holds no checkbox (- [ ] …): OpenSpec shows the change as \"No tasks\" (a draft), not complete"
		if n := c.Tasks.FencedCount(); n > 0 {
			msg = fmt.Sprintf("tasks.md holds checkboxes only inside code fences (%d): orchestrate counts none, the openspec CLI counts them", n)
		}
		d.findings = append(d.findings, workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Info, Code: "no-tasks", Path: c.TasksPath, Message: msg})
	}
	if len(rp.Holes) > 0 && c.inFlight() {
		d.findings = append(d.findings, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Info, Code: "open-tasks-among-done", Path: c.TasksPath,
			Message: "open tasks stand among ticked ones: " + strings.Join(capList(rp.Holes, 20), ", ")})
	}
	// at its length: a set's list grows by doubling, and the candidate
	// keeps it for the run
	d.files = slices.Clone(files(c))
	d.oldDone, d.oldTotal = c.Tasks.OldCount()
	d.cliDone, d.cliTotal = c.Tasks.CLICount()
	d.midDone, d.midTotal = c.Tasks.MidCount()
	d.fenced = c.Tasks.FencedCount()
	d.detach()
	c.d, c.Tasks, c.exists = d, Tasks{}, nil
}

// detach copies every string of d into one string of their own: a string
// left pointing into the tasks.md text (a title, an item, a path) would
// keep the whole text alive for the rest of the run.
func (d *draft) detach() {
	rp := &d.resume
	var ps []*string
	add := func(list []string) {
		for i := range list {
			ps = append(ps, &list[i])
		}
	}
	for i := range d.phases {
		ps = append(ps, &d.phases[i].ID, &d.phases[i].Name)
		add(d.phases[i].Outputs)
		add(d.phases[i].DependsOn)
	}
	ps = append(ps, &d.position.At, &d.position.Name, &d.position.Last)
	for i := range d.files {
		ps = append(ps, &d.files[i].Path, &d.files[i].Phase, &d.files[i].From)
	}
	for i := range d.findings {
		ps = append(ps, &d.findings[i].Message)
	}
	ps = append(ps, &rp.Item, &rp.Title, &rp.Section, &rp.FrameworkNext, &rp.DiffersWhy)
	add(rp.Labels)
	add(rp.Files)
	add(rp.Holes)
	source.Detach(ps)
}

// Build turns an active change into its candidate (settled first, when
// it is not yet).
func Build(c *change) workflow.Candidate {
	c.settle()
	d := c.d
	key := c.key
	if key == "" {
		key = Key(c.Root.Prefix, c.ID)
	}
	st, raw := c.status()
	lay := c.Root.Layout
	cand := changes.Candidate(workflow.ChecklistItem{Key: key, TasksPath: c.TasksPath, Dir: c.Dir, Current: c.current,
		Status: st, StatusRaw: raw, ModTime: c.ModTime, From: c.From, Framework: lay.Framework(), Findings: c.Findings})
	cand.Resumable = c.inFlight()
	cand.Phases = d.phases
	cand.Position = d.position
	rp := d.resume
	rp.FrameworkCommand = lay.Apply(c.ID)
	if st == workflow.StatusDone {
		rp.FrameworkCommand = lay.Archive(c.ID)
	}
	rp.Note = note(c, lay)
	cand.Resume = &rp
	cand.Findings = append(cand.Findings, d.findings...)
	cand.Files = d.files
	return cand
}

// note says what else the files tell: the current change, the counts of
// the other rules when they differ, the layout, where the commands run.
func note(c *change, lay Layout) string {
	var parts []string
	st, _ := c.status()
	switch {
	case c.current:
		how := "last commit " + strings.TrimPrefix(c.From, "git:")
		if c.From == "" {
			how = "the modification time of its files, not as committed"
		}
		parts = append(parts, "current change: the in-flight change whose folder changed last ("+how+")")
	case st == workflow.StatusDone:
		parts = append(parts, "complete, ready to archive")
	case st == workflow.StatusReady:
		parts = append(parts, "not started")
	case st == workflow.StatusDraft && c.unread:
		parts = append(parts, "tasks.md cannot be read: its tasks are unknown, not absent")
	case st == workflow.StatusDraft:
		parts = append(parts, "no tasks yet (a draft)")
	}
	done, total := c.counts()
	od, ot := c.d.oldDone, c.d.oldTotal
	cd, ct := c.d.cliDone, c.d.cliTotal
	n := c.d.fenced
	switch {
	case n > 0 && od == cd && ot == ct:
		parts = append(parts, fmt.Sprintf("%d/%d by the openspec CLI (every version), which also counts the %d box(es) inside code fences", cd, ct, n))
	default:
		if od != done || ot != total {
			parts = append(parts, fmt.Sprintf("%d/%d by the 0.x rule (column-0 boxes only, OpenSpec up to 1.7)", od, ot))
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d/%d by the openspec CLI, which also counts the %d box(es) inside code fences", cd, ct, n))
		}
	}
	if md, mt := c.d.midDone, c.d.midTotal; md != cd || mt != ct {
		parts = append(parts, fmt.Sprintf("%d/%d by OpenSpec 1.8 to 1.13.0 (- and * boxes only; + and numbered-list boxes count since 1.13.1)", md, mt))
	}
	if lay.Version == "0.x" && done == 0 && total > 0 {
		parts = append(parts, "0.x apply ticked the boxes only at the end: open boxes may describe finished code")
	}
	parts = append(parts, lay.Describe())
	if d := projectDir(c.Root); d != "" {
		parts = append(parts, "its openspec/ root is "+c.Root.Dir+": run OpenSpec from "+d)
	}
	return strings.Join(parts, "; ")
}

// frameworkNext fills what OpenSpec itself would do next. In 1.x the
// apply skill works through the pending tasks `openspec instructions apply`
// lists (fenced boxes included, empty boxes left out), starting at the
// first; in 0.x /openspec:apply has the agent read tasks.md and work the
// tasks in order, with no list of the CLI's in between: its next is the
// first open task as the file reads.
func frameworkNext(c *change, rp *workflow.ResumePoint, first *Task) {
	if !c.inFlight() {
		return
	}
	cli := c.Tasks.CLIFirstOpen()
	if c.Root.Layout.Version == "0.x" {
		cli = first
	}
	if cli == nil {
		return
	}
	rp.FrameworkNext = cli.Item + " " + cli.Title + " (first open task of " + c.ID + ")"
	if first == nil || cli.Line != first.Line {
		rp.Differs = true
		rp.DiffersWhy = fmt.Sprintf("the openspec CLI also lists boxes inside code fences: line %d is one; orchestrate reads fenced boxes as examples, not tasks", cli.Line)
	}
}

// phases lays out the task groups (the tasks.md headings) with their
// status: completed when every counted task is ticked, current for the
// resume point's.
func phases(c *change, first *Task) []workflow.Phase {
	g := workflow.TaskGroups{Headings: c.Tasks.Groups, Agent: Agent, ID: groupID}
	for i := range c.Tasks.Tasks {
		if t := &c.Tasks.Tasks[i]; !t.Fenced {
			g.Tasks = append(g.Tasks, workflow.GroupedTask{Group: t.GroupIx, Done: t.Done})
		}
	}
	if first != nil {
		g.Current = &workflow.GroupedTask{Group: first.GroupIx, Done: first.Done}
	}
	return g.Phases()
}

// groupID names a group heading: "1. Setup" is group-1, a short numbered
// label "M4. SVPWM" group-m4, else the heading as a slug.
func groupID(heading string) string {
	if num, _, ok := leadingNumber(heading); ok {
		return "group-" + num
	}
	if label, ok := groupLabel(heading); ok {
		return "group-" + label
	}
	if s := storyid.Sanitize(strings.ToLower(heading)); s != "" && len(s) <= 40 {
		return s
	}
	return "tasks"
}

// files are the referenced files: the change's documents (tasks.md
// critical: apply reads it), the existing paths closed tasks name
// (produced) and those the resume task names (its inputs). Paths an open
// task will create are not referenced: they need not exist yet.
func files(c *change) []workflow.RefFile {
	set := source.NewFileSet(nil)
	if c.TasksPath != "" {
		set.Add(workflow.RefFile{Path: c.TasksPath, Critical: true, From: "tasks-file"})
	}
	for _, p := range c.Docs {
		set.Add(workflow.RefFile{Path: p, Critical: path.Base(p) == "proposal.md", From: "change"})
	}
	first := c.Tasks.FirstOpen()
	n := 0
	for i := range c.Tasks.Tasks {
		t := &c.Tasks.Tasks[i]
		if t.Fenced || (!t.Done && t != first) {
			continue
		}
		for _, p := range t.Paths {
			if n >= source.MaxFiles {
				return set.Sorted()
			}
			n++
			if c.exists != nil && c.exists(p) {
				set.Add(workflow.RefFile{Path: p, Phase: groupID(t.Group), Produced: t.Done, From: "task " + t.Item})
			}
		}
	}
	return set.Sorted()
}

// groupLabel reads a short numbered label ending in "." or ":" that opens a
// heading ("M4. SVPWM模块", "P2: API"), lower-cased without its
// punctuation: letters then digits, at most 8 bytes.
func groupLabel(heading string) (string, bool) {
	tok, _, _ := strings.Cut(strings.TrimSpace(heading), " ")
	if len(tok) < 2 || len(tok) > 8 || (tok[len(tok)-1] != '.' && tok[len(tok)-1] != ':') {
		return "", false
	}
	tok = tok[:len(tok)-1]
	i := 0
	for i < len(tok) && (tok[i] >= 'a' && tok[i] <= 'z' || tok[i] >= 'A' && tok[i] <= 'Z') {
		i++
	}
	if i == 0 || i == len(tok) {
		return "", false
	}
	for _, r := range tok[i:] {
		if r < '0' || r > '9' {
			return "", false
		}
	}
	return strings.ToLower(tok), true
}
