package kiro

// The candidate of a spec: its groups (the plan's phases), labels, note,
// the framework's own next task, findings and referenced files (kiro.go
// reads and dates the specs).

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// index is t's index in s.Tasks.
func (s *spec) index(t *Task) int {
	for i := range s.Tasks.Tasks {
		if &s.Tasks.Tasks[i] == t {
			return i
		}
	}
	return -1
}

// section is where task i stands: its parent task, else its heading.
func (s *spec) section(i int) string {
	t := &s.Tasks.Tasks[i]
	if t.Parent >= 0 {
		return groupName(&s.Tasks.Tasks[t.Parent])
	}
	return t.Heading
}

// group is a step of the plan: a top-level task with its sub-tasks, a
// numbered top-level task alone, or the tasks under a heading.
type group struct {
	ID, Name string
}

// groups lays the tasks out in groups, in document order, and returns the
// group index of every task.
func (s *spec) groups() ([]group, []int) {
	var out []group
	// a group is keyed by its top-level task, or by its heading
	byTop, byHeading := map[int]int{}, map[string]int{}
	used := map[string]int{}
	of := make([]int, len(s.Tasks.Tasks))
	for i := range s.Tasks.Tasks {
		t := &s.Tasks.Tasks[i]
		top := s.Tasks.Top(i)
		tt := &s.Tasks.Tasks[top]
		byTask := top != i || (t.ID != "" && !strings.Contains(t.ID, ".")) || t.Children > 0
		var id, name string
		var g int
		var ok bool
		if byTask {
			g, ok = byTop[top]
		} else {
			name = t.Heading
			if name == "" {
				name = "Tasks"
			}
			g, ok = byHeading[name]
		}
		if !ok {
			// the group's id and name, made once for its first task
			if byTask {
				id, name = "task-"+storyid.Sanitize(strings.ToLower(tt.ID)), groupName(tt)
				if tt.ID == "" {
					id = phaseID(tt.Title)
				}
			} else {
				id = phaseID(name)
			}
			used[id]++
			if used[id] > 1 {
				id = fmt.Sprintf("%s-%d", id, used[id])
			}
			g = len(out)
			if byTask {
				byTop[top] = g
			} else {
				byHeading[name] = g
			}
			out = append(out, group{ID: id, Name: name})
		}
		of[i] = g
	}
	return out, of
}

// groupName names a task as a group: "2. Implement core functionality".
// A title that repeats the task's number ("- [ ] 1. 1. Setup") gives
// "1. Setup", not "1. 1. Setup".
func groupName(t *Task) string {
	title := t.Title
	if t.ID != "" {
		if rest, ok := strings.CutPrefix(title, t.ID); ok {
			rest = strings.TrimPrefix(rest, ".")
			if r := strings.TrimLeft(rest, " \t"); r != "" && len(r) < len(rest) {
				title = r
			}
		}
	}
	switch {
	case t.ID == "":
		return title
	case isRefID(t.ID) && !strings.Contains(t.ID, "."):
		return t.ID + ". " + title
	}
	return t.ID + " " + title
}

var phaseNumRe = lazyre.New(`^(?:task\s+)?(\d+(?:\.\d+)*)\s*[.:：\-—–]`)

// phaseID names a heading group: "1. Setup" or "Task 0.1: Setup" is
// task-1 / task-0.1, another heading its slug.
func phaseID(heading string) string {
	if m := phaseNumRe().FindStringSubmatch(strings.ToLower(heading)); m != nil {
		return "task-" + m[1]
	}
	if s := storyid.Sanitize(strings.ToLower(heading)); s != "state" && len(s) <= 40 {
		return s
	}
	return "tasks"
}

// phases are the groups with their status: completed when no required
// leaf in them is open, current for the resume point's.
func phases(s *spec, groups []group, of []int, first *Task) []workflow.Phase {
	if len(groups) == 0 {
		return nil
	}
	open := make([]bool, len(groups))
	for i := range s.Tasks.Tasks {
		if t := &s.Tasks.Tasks[i]; t.Leaf() && !t.Optional && !t.Closed() {
			open[of[i]] = true
		}
	}
	out := make([]workflow.Phase, len(groups))
	for i, g := range groups {
		out[i] = workflow.Phase{ID: g.ID, Name: g.Name, Agent: Agent, Status: workflow.PhasePending}
		if !open[i] {
			out[i].Status = workflow.PhaseCompleted
		}
	}
	if first != nil {
		out[of[s.index(first)]].Status = workflow.PhaseCurrent
	}
	return out
}

var (
	checkpointRe = lazyre.New(`(?i)^(final\s+)?checkpoint\b`)
	humanRe      = lazyre.New(`(?i)\b(manual(ly)?|by hand|human)\b|手動|人工|手动|目視|수동`)
)

// labels are the resume task's tags: its marker, (P), the requirements it
// serves, a block, and whether it is a checkpoint or a human step (Part
// D.4: shown as such, never skipped).
func labels(t *Task) []string {
	var out []string
	switch t.State {
	case InProgress:
		out = append(out, "[-] in progress")
	case Queued:
		out = append(out, "[~] queued")
	}
	if t.Parallel {
		out = append(out, "(P)")
	}
	switch {
	case checkpointRe().MatchString(t.Title):
		out = append(out, "(checkpoint)")
	case humanRe().MatchString(t.Title):
		out = append(out, "(human step)")
	}
	if len(t.Requirements) > 0 {
		out = append(out, "(Requirements: "+strings.Join(t.Requirements, ", ")+")")
	}
	if len(t.Depends) > 0 {
		out = append(out, "(Depends: "+strings.Join(t.Depends, ", ")+")")
	}
	if t.Blocked != "" {
		out = append(out, "(Blocked: "+t.Blocked+")")
	}
	return out
}

// note is the evidence shown beside the resume point: optional tasks,
// markers, the last run, the producer and which spec is current.
func note(s *spec, cur *spec, isCur bool) string {
	var parts []string
	cnt := s.Counts
	if cnt.OptionalTotal > 0 {
		parts = append(parts, fmt.Sprintf("+%d optional (%d done)", cnt.OptionalTotal, cnt.OptionalDone))
	}
	if m := s.marks.inProgress; len(m) > 0 {
		parts = append(parts, "[-] on "+strings.Join(capList(m, 8), ", ")+" (set when a task starts; may be stale)")
	}
	if m := s.marks.queued; len(m) > 0 {
		parts = append(parts, "[~] queued: "+strings.Join(capList(m, 8), ", ")+" (may outlive the IDE's queue)")
	}
	if !s.Meta.LastAt.IsZero() {
		run := "tasks.meta.json: last ran " + s.Meta.LastTask + " at " + s.Meta.LastAt.Format(time.RFC3339)
		if s.Meta.PBT != "" {
			run += " (property tests " + s.Meta.PBT + ")"
		}
		parts = append(parts, run)
	}
	parts = append(parts, producer(s))
	switch {
	case isCur:
		parts = append(parts, "likely current spec (its folder changed last"+by(s)+")")
	case cur != nil && s.Counts.Done < s.Counts.Total:
		parts = append(parts, "not the likely current spec: "+strings.TrimPrefix(cur.ID, "kiro:")+" changed later")
	}
	return strings.Join(parts, "; ")
}

// by says where a spec's time came from.
func by(s *spec) string {
	switch {
	case strings.HasPrefix(s.From, "git:"):
		return ", last commit " + strings.TrimPrefix(s.From, "git:")
	case s.From == "mtime":
		return ", uncommitted edit"
	}
	return ""
}

// producer names who wrote the spec (Rule B1): the IDE generation, or
// cc-sdd with its folder and phase; a bugfix spec says so.
func producer(s *spec) string {
	kind := "spec"
	if s.bugfix() {
		kind = "bugfix spec"
	}
	switch {
	case s.ccsdd():
		p := "cc-sdd " + kind
		if s.Root != ".kiro" {
			p += " in " + s.Root + "/"
		}
		if s.SpecJSON.Phase != "" {
			p += " (phase " + s.SpecJSON.Phase + ")"
		}
		return p
	case s.Config.SpecID != "" || s.Config.WorkflowType != "" || s.Config.SpecType != "" || s.HasMeta:
		p := "Kiro IDE 1.x " + kind
		if s.Config.WorkflowType != "" {
			p += " (" + s.Config.WorkflowType + ")"
		}
		return p
	case s.Config.Present:
		return "Kiro IDE 0.9 " + kind
	}
	return "Kiro IDE " + kind + " (early layout: no .config.kiro)"
}

// nextFor fills the framework's own command and answer (Part D.9): the
// Kiro IDE's "Start task" on the task (its "Run required tasks" runs the
// pending required tasks in order, in dependency waves when tasks.md has a
// graph), cc-sdd's implementation command with the feature and the task
// (without task numbers it takes every unchecked task, optional ones
// included, skipping _Blocked:_ ones).
func nextFor(s *spec, fw string, cmds commands, first *Task, rp *workflow.ResumePoint) {
	if first == nil {
		return
	}
	item := rp.Item
	if fw == FrameworkCCSDD {
		rp.FrameworkCommand = cmds.impl + " " + storyid.Sanitize(s.Name)
		if first.ID != "" {
			rp.FrameworkCommand += " " + storyid.Sanitize(first.ID)
		}
		nx := s.ccsddNext()
		switch {
		case nx == nil:
			rp.FrameworkNext = "nothing: every open task is _Blocked:_"
			rp.Differs = true
			rp.DiffersWhy = cmds.impl + " without task numbers skips tasks marked _Blocked:_"
		case nx != first:
			rp.FrameworkNext = s.Tasks.label(s.index(nx)) + " " + nx.Title
			rp.Differs = true
			if nx.Optional {
				rp.DiffersWhy = cmds.impl + " without task numbers takes every unchecked task in order, optional ones included"
			} else {
				rp.DiffersWhy = cmds.impl + " without task numbers skips " + item + " (_Blocked: " + first.Blocked + "_)"
			}
		default:
			rp.FrameworkNext = item + " (" + cmds.impl + " " + storyid.Sanitize(s.Name) + ": the first unchecked task)"
		}
		return
	}
	rp.FrameworkCommand = "Start task " + item + " in " + s.TasksPath + " (Kiro IDE)"
	rp.FrameworkNext = item + " (Kiro's Run required tasks: the first pending required task)"
	if w, ids := s.firstWave(); w >= 0 && !contains(ids, first.ID) {
		rp.FrameworkNext = fmt.Sprintf("wave %d of the Task Dependency Graph: %s", w, strings.Join(capList(ids, 8), ", "))
		rp.Differs = true
		rp.DiffersWhy = "Kiro runs the required tasks in the graph's waves; " + item + " is not in the first wave with pending tasks"
	}
}

// ccsddNext is the task cc-sdd's implementation command takes first when
// given no task numbers: the first unchecked leaf, optional ones included,
// that is not _Blocked:_.
func (s *spec) ccsddNext() *Task {
	for i := range s.Tasks.Tasks {
		t := &s.Tasks.Tasks[i]
		if t.Leaf() && !t.Closed() && t.Blocked == "" {
			return t
		}
	}
	return nil
}

// firstWave is the first wave of the dependency graph holding a pending
// required leaf, with its pending required ids; -1 without a graph.
func (s *spec) firstWave() (int, []string) {
	if len(s.Tasks.Waves) == 0 {
		return -1, nil
	}
	pending := map[string]bool{}
	for i := range s.Tasks.Tasks {
		if t := &s.Tasks.Tasks[i]; t.Leaf() && !t.Optional && !t.Closed() && t.ID != "" {
			pending[t.ID] = true
		}
	}
	for w, ids := range s.Tasks.Waves {
		var open []string
		for _, id := range ids {
			if pending[id] {
				open = append(open, id)
			}
		}
		if len(open) > 0 {
			return w, open
		}
	}
	return -1, nil
}

// findings are the spec's own observations.
func findings(s *spec, st workflow.Status) []workflow.Finding {
	var out []workflow.Finding
	p := s.TasksPath
	add := func(sev workflow.Severity, code, msg string) {
		out = append(out, workflow.Finding{Check: workflow.CheckDiscover, Severity: sev, Code: code, Path: p, Message: msg})
	}
	if p == "" {
		return out
	}
	if len(s.Tasks.Tasks) == 0 && !s.Unread {
		add(workflow.Info, "no-tasks", "tasks.md holds no task line (- [ ] 1. …)")
	}
	if d := s.Tasks.Duplicates; len(d) > 0 {
		out = append(out, workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Warning, Code: "duplicate-task-id", Path: p,
			Message: "task ids on more than one line: " + strings.Join(capList(d, 10), ", ")})
	}
	if s.Tasks.Truncated {
		out = append(out, workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Warning, Code: "too-many-tasks", Path: p,
			Message: fmt.Sprintf("more than %d task lines; the rest are not read", maxTasks)})
	}
	if u := s.Tasks.Unparsed; len(u) > 0 {
		lines := make([]string, 0, len(u))
		for _, n := range u {
			lines = append(lines, fmt.Sprint(n))
		}
		out = append(out, workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Info, Code: "kiro-unknown-box", Path: p,
			Message: "boxes with no Kiro state ([ ], [x], [-], [~]) are not tasks: lines " + strings.Join(capList(lines, 10), ", ")})
	}
	if s.Tasks.GraphBad {
		add(workflow.Info, "kiro-graph-unreadable", "the Task Dependency Graph block does not decode as {\"waves\": [...]}; the waves are ignored")
	}
	unticked, ticked := s.Tasks.StaleParents()
	if len(unticked) > 0 {
		add(workflow.Info, "kiro-unticked-parents", "every required sub-task of "+strings.Join(capList(unticked, 10), ", ")+
			" is done but its own box is not ticked (Kiro does not tick parents; they are not counted)")
	}
	if len(ticked) > 0 {
		add(workflow.Info, "kiro-parent-ticked-open-child", "ticked, with required sub-tasks still open: "+strings.Join(capList(ticked, 10), ", ")+" (the sub-tasks count)")
	}
	if holes := s.Tasks.Holes(); len(holes) > 0 && st == workflow.StatusInProgress {
		add(workflow.Info, "open-tasks-among-done", "open tasks stand among ticked ones: "+strings.Join(capList(holes, 20), ", "))
	}
	if s.Meta.LastID != "" {
		for i := range s.Tasks.Tasks {
			t := &s.Tasks.Tasks[i]
			if t.ID == s.Meta.LastID && t.Leaf() && !t.Closed() {
				msg := fmt.Sprintf("tasks.meta.json last ran %s at %s", t.ID, s.Meta.LastAt.Format(time.RFC3339))
				if s.Meta.PBT != "" {
					msg += " (property tests " + s.Meta.PBT + ")"
				}
				add(workflow.Info, "kiro-meta-disagrees", msg+", yet its box is open: the box counts")
				break
			}
		}
	}
	if s.Meta.Bad {
		out = append(out, workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Info, Code: "kiro-meta-unreadable", Path: s.Dir + "/tasks.meta.json",
			Message: "tasks.meta.json does not decode as the IDE writes it; its runs are ignored"})
	}
	if st == workflow.StatusInProgress && s.ccsdd() && s.SpecJSON.Known && !s.SpecJSON.TasksApproved {
		out = append(out, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Warning, Code: "cc-sdd-tasks-not-approved", Path: s.Dir + "/spec.json",
			Message: "spec.json does not record the tasks as approved: cc-sdd's implementation command stops until they are (approvals.tasks.approved)"})
	}
	return out
}

// files are the referenced files: the spec's documents (tasks.md and
// design.md critical: a task run reads both), and, for a spec in flight,
// the existing paths named by closed tasks (produced) and by the resume
// task (its inputs). Paths an open task will create are not referenced:
// they need not exist yet.
func files(exists func(string) bool, s *spec, groups []group, of []int) []workflow.RefFile {
	set := source.NewFileSet(nil)
	for _, p := range s.Docs {
		base := path.Base(p)
		set.Add(workflow.RefFile{Path: p, Critical: base == "tasks.md" || base == "design.md", From: "spec"})
	}
	if st, _ := s.status(); st != workflow.StatusInProgress {
		return set.Sorted() // only work in flight is validated against the files its tasks name
	}
	first := s.Tasks.FirstOpen()
	checked := 0
	for i := range s.Tasks.Tasks {
		t := &s.Tasks.Tasks[i]
		if !t.Closed() && t != first {
			continue
		}
		for _, p := range t.Paths {
			if checked >= source.MaxFiles {
				return set.Sorted()
			}
			checked++
			if exists(p) {
				set.Add(workflow.RefFile{Path: p, Phase: groups[of[i]].ID, Produced: t.Closed(), From: "task " + s.Tasks.label(i)})
			}
		}
	}
	return set.Sorted()
}

// capList keeps the first n items and counts the rest.
func capList(list []string, n int) []string {
	if len(list) <= n {
		return list
	}
	out := append([]string(nil), list[:n]...)
	return append(out, fmt.Sprintf("… %d more", len(list)-n))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
