// Package taskmaster is the Taskmaster format (eyaltoledano/claude-task-master):
// the live tasks file (.taskmaster/tasks/tasks.json, else the legacy
// tasks/tasks.json), untagged or tagged, and the current tag (state.json
// currentTag, else config.json global.defaultTag, else master). Parse reads
// a tasks file keeping ids as written, Next is the framework's own `next`,
// and TaskmasterSource makes one candidate per task in flight, with where
// work stopped inside it. The framework's files are only read, never
// patched. See docs/ARCHITECTURE.md.
package taskmaster

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TaskmasterSource finds Taskmaster tasks in flight (priority 4, beside
// stories in progress): one candidate `task:<tag>/<id>` per task that is
// in-progress, review or blocked, or not finished with some of its subtasks
// closed or one in progress.
var TaskmasterSource source.Source = source.Format{FormatKind: workflow.KindTaskmaster, FormatPriority: workflow.PriorityInProgress, ScanFunc: scan}

// The files the framework keeps, by generation.
const (
	// LiveTasksFile is the tasks file of Taskmaster 0.16 and later.
	LiveTasksFile = ".taskmaster/tasks/tasks.json"
	// LegacyTasksFile is the tasks file up to 0.15 (and the fallback).
	LegacyTasksFile = "tasks/tasks.json"
	// StateFile records the current tag (0.17+).
	StateFile = ".taskmaster/state.json"
	// ConfigFile holds global.defaultTag (0.16+).
	ConfigFile = ".taskmaster/config.json"
)

// Framework generations a candidate names.
const (
	FrameworkLegacy = "taskmaster-legacy"
	Framework016    = "taskmaster-0.16"
	Framework017    = "taskmaster-0.17+"
)

// maxExistsLookups bounds the file-system lookups the paths of one tasks
// file's text cost (refpath.BoundedExists).
const maxExistsLookups = 2000

// IDPrefix starts every candidate id ("task:master/3").
const IDPrefix = "task:"

// Agent is the agent a task's steps go to.
const Agent = "dev"

// Project is what the repository's Taskmaster files say: the live tasks
// file, the current tag and how it was decided, and the generation.
type Project struct {
	TasksPath  string // the live tasks file
	Stale      string // the other tasks file when it exists and differs
	File       File
	CurrentTag string
	TagFrom    string // "state.json currentTag", "config.json global.defaultTag" or "default"
	Framework  string
	Refs       []string // state.json and config.json when present
	// Exists answers whether a repository path exists, for the paths task
	// text names (Task.Paths); nil when there is no repository at hand.
	Exists func(string) bool
}

// scan reads the live tasks file and makes the candidates.
func scan(r *source.Repo) ([]workflow.Candidate, []workflow.Finding) {
	live := ""
	switch {
	case r.Exists(LiveTasksFile):
		live = LiveTasksFile
	case r.Exists(LegacyTasksFile):
		live = LegacyTasksFile
	default:
		return nil, nil
	}
	data, mtime, err := r.ReadWithTime(live)
	if err != nil {
		return nil, []workflow.Finding{source.ReadFinding(live, err)}
	}
	var findings []workflow.Finding
	p := Project{TasksPath: live, Exists: refpath.BoundedExists(r.Exists, maxExistsLookups)}
	if live == LiveTasksFile && r.Exists(LegacyTasksFile) {
		if other, err := r.Read(LegacyTasksFile); err != nil || !bytes.Equal(bytes.TrimSpace(other), bytes.TrimSpace(data)) {
			p.Stale = LegacyTasksFile
		}
	}
	f, fs, ok := Parse(live, data)
	findings = append(findings, fs...)
	if !ok {
		c := source.Unreadable(workflow.SourceRef{Kind: workflow.KindTaskmaster, Path: live, Priority: workflow.PriorityInProgress},
			workflow.TypeTask, "task", "tasks", "", findings...)
		c.UpdatedAt, c.UpdatedFrom = mtime, "mtime"
		return []workflow.Candidate{c}, nil
	}
	p.File = f
	tagFindings := p.currentTag(r)
	findings = append(findings, tagFindings...)
	p.Framework = generation(r, live, f)
	if p.Stale != "" {
		findings = append(findings, workflow.Finding{
			Check: workflow.CheckConsistency, Severity: workflow.Warning, Code: "stale-tasks-file", Path: p.Stale,
			Message: fmt.Sprintf("%s differs from the live %s; it is not read (the framework reads the first)", p.Stale, live),
		})
	}
	// Recency is file-level: "the last change of that task's entry" is
	// approximated by the tasks file's last change. Left on "mtime" with the
	// tasks file as Source.Path, discover dates it from the file's last
	// commit when the file is as committed (every task of the file shares
	// that time); per-entry history (blame of one task's lines) is not read.
	cs := Candidates(p)
	// every candidate carries the file's findings: bound them once here
	findings = workflow.CapFindings(findings)
	for i := range cs {
		cs[i].UpdatedAt, cs[i].UpdatedFrom = mtime, "mtime"
		cs[i].Findings = append(cs[i].Findings, findings...)
	}
	if len(cs) == 0 {
		return nil, findings
	}
	return cs, nil
}

// currentTag decides the current tag: state.json currentTag, else
// config.json global.defaultTag, else master. It notes state.json and
// config.json as referenced files.
func (p *Project) currentTag(r *source.Repo) []workflow.Finding {
	var out []workflow.Finding
	read := func(path string) map[string]any {
		if !r.Exists(path) {
			return nil
		}
		p.Refs = append(p.Refs, path)
		data, err := r.Read(path)
		if err != nil {
			out = append(out, warning(source.ReadFinding(path, err)))
			return nil
		}
		m, err := tolerant.DecodeJSONMap(data)
		if err != nil {
			out = append(out, warning(source.DecodeFinding(path, err)))
			return nil
		}
		return m
	}
	p.CurrentTag, p.TagFrom = DefaultTag, "default"
	if m := read(StateFile); m != nil {
		if tag, ok := m["currentTag"].(string); ok && validID(strings.TrimSpace(tag)) {
			p.CurrentTag, p.TagFrom = strings.TrimSpace(tag), "state.json currentTag"
		}
	}
	if m := read(ConfigFile); m != nil && p.TagFrom == "default" {
		if g, ok := m["global"].(map[string]any); ok {
			if tag, ok := g["defaultTag"].(string); ok && validID(strings.TrimSpace(tag)) {
				p.CurrentTag, p.TagFrom = strings.TrimSpace(tag), "config.json global.defaultTag"
			}
		}
	}
	if _, ok := p.File.Tasks[p.CurrentTag]; !ok && p.File.Tagged {
		out = append(out, workflow.Finding{
			Check: workflow.CheckConsistency, Severity: workflow.Warning, Code: "missing-tag", Path: p.TasksPath,
			Message: fmt.Sprintf("the current tag %s (from %s) has no tasks in %s", p.CurrentTag, p.TagFrom, p.TasksPath),
		})
	}
	return out
}

func warning(f workflow.Finding) workflow.Finding {
	f.Severity = workflow.Warning
	return f
}

// generation names the Taskmaster generation that wrote the files.
func generation(r *source.Repo, live string, f File) string {
	switch {
	case live == LegacyTasksFile:
		return FrameworkLegacy
	case f.Tagged || r.Exists(StateFile):
		return Framework017
	}
	return Framework016
}

// InFlight reports whether a task is work under way: in-progress, review
// or blocked, or not finished with some (not all) subtasks closed or one
// in progress. A finished task (done, completed, cancelled) is never in
// flight, whatever its subtasks say; subtask evidence beats a pending
// parent.
func InFlight(t Task) bool {
	if t.Terminal() {
		return false
	}
	switch t.statusKey() {
	case "in-progress", "review", "blocked":
		return true
	}
	closed := 0
	for _, s := range t.Subtasks {
		if s.statusKey() == "in-progress" {
			return true
		}
		if s.Terminal() {
			closed++
		}
	}
	return closed > 0 && closed < len(t.Subtasks)
}

// Candidates makes one candidate per task in flight, every tag, sorted by
// tag then task order.
func Candidates(p Project) []workflow.Candidate {
	var out []workflow.Candidate
	for _, tag := range p.File.Tags {
		tasks := p.File.Tasks[tag]
		next, hasNext := Next(tasks)
		done := doneIDs(tasks)
		for _, t := range tasks {
			if InFlight(t) {
				out = append(out, candidate(p, tag, done, t, next, hasNext))
			}
		}
	}
	return out
}

// candidate builds the candidate of task t in tag.
func candidate(p Project, tag string, done map[string]bool, t Task, next Task, hasNext bool) workflow.Candidate {
	key := tag + "/" + t.ID
	c := workflow.Candidate{
		ID:        IDPrefix + key,
		Type:      workflow.TypeTask,
		Key:       key,
		Source:    workflow.SourceRef{Kind: workflow.KindTaskmaster, Path: p.TasksPath, Priority: workflow.PriorityInProgress},
		Stories:   []string{},
		Status:    string(t.Status),
		StatusRaw: t.StatusRaw,
		Resumable: true,
		Agent:     Agent,
		Framework: p.Framework,
		Context: map[string]any{
			"taskmaster_tag":      tag,
			"taskmaster_tag_from": p.TagFrom,
			"taskmaster_task":     t.ID,
		},
	}
	rp := resumePoint(t, p.Exists)
	files := source.NewFileSet(nil)
	files.Add(workflow.RefFile{Path: p.TasksPath, Critical: true, From: "tasks-file"})
	for _, ref := range p.Refs {
		files.Add(workflow.RefFile{Path: ref, From: "taskmaster"})
	}
	for _, f := range t.Paths(p.Exists) {
		files.Add(workflow.RefFile{Path: f, Phase: t.ID, From: "task " + t.ID})
	}
	if len(t.Subtasks) == 0 {
		c.Phases = []workflow.Phase{{ID: t.ID, Name: orID(t.Title, t.ID), Agent: Agent, Status: phaseStatus(t, rp.Item)}}
	}
	for _, s := range t.Subtasks {
		c.Phases = append(c.Phases, workflow.Phase{ID: s.ID, Name: orID(s.Title, s.ID), Agent: Agent, Status: phaseStatus(s, rp.Item), DependsOn: s.Deps})
		// the paths of subtasks not started yet are files still to write:
		// only the closed, started and resumed ones reference files
		if !s.Terminal() && s.ID != rp.Item && s.statusKey() != "in-progress" {
			continue
		}
		for _, f := range s.Paths(p.Exists) {
			files.Add(workflow.RefFile{Path: f, Phase: s.ID, From: "subtask " + s.ID})
		}
	}
	if len(t.Subtasks) > 0 && rp.Item == t.ID {
		// every subtask closed, the task itself still open: finish it
		c.Phases = append(c.Phases, workflow.Phase{ID: t.ID, Name: "Finish: " + orID(t.Title, t.ID), Agent: Agent, Status: workflow.PhaseCurrent})
	}
	files.Finish(&c, p.TasksPath)

	// the framework's own next, and the command to continue
	item := findItem(t, rp.Item)
	// where they differ orchestrate keeps its pick; the reason the
	// framework's answer differs stands beside it
	switch {
	case !hasNext:
		rp.FrameworkNext = "nothing (no task is eligible; " + whyNotNext(done, t, item) + ")"
		rp.Differs = true
	case next.ID != rp.Item:
		rp.FrameworkNext = strings.TrimSpace(next.ID+" "+next.Title) + " (" + whyNotNext(done, t, item) + ")"
		rp.Differs = true
	default:
		rp.FrameworkNext = strings.TrimSpace(next.ID + " " + next.Title)
	}
	tagFlag := ""
	if tag != p.CurrentTag {
		tagFlag = " --tag=" + tag
	}
	switch {
	case hasNext && !rp.Differs:
		rp.FrameworkCommand = "task-master next" + tagFlag
	case item.CLI == "":
		// the CLI finds the item by no id: name the task it stands in
		rp.FrameworkCommand = "task-master list" + tagFlag
		if item.Parent != "" && t.CLI != "" {
			rp.FrameworkCommand = "task-master show " + t.CLI + tagFlag
		}
		c.Findings = append(c.Findings, workflow.Finding{
			Check: workflow.CheckDiscover, Severity: workflow.Info, Code: "taskmaster-id-unresolvable", Path: p.TasksPath,
			Message: fmt.Sprintf("the task-master CLI finds %s by no id (it reads \"<task>.<subtask>\" as two whole numbers and matches them against ids stored as JSON integers); the command names %s", item.ID, strings.TrimPrefix(rp.FrameworkCommand, "task-master ")),
		})
	case item.statusKey() == "in-progress" || item.statusKey() == "review" || item.statusKey() == "blocked":
		rp.FrameworkCommand = "task-master show " + item.CLI + tagFlag
	default:
		rp.FrameworkCommand = "task-master set-status --id=" + item.CLI + " --status=in-progress" + tagFlag
	}
	c.Resume = &rp
	c.Position = workflow.StepPosition(rp.Done, rp.Total, rp.Item)
	c.Position.Name = rp.Item
	if tag != p.CurrentTag {
		c.Findings = append(c.Findings, workflow.Finding{
			Check: workflow.CheckDiscover, Severity: workflow.Info, Code: "other-tag", Path: p.TasksPath,
			Message: fmt.Sprintf("task %s is in tag %s, not the current tag %s (from %s)", t.ID, tag, p.CurrentTag, p.TagFrom),
		})
	}
	return c
}

// resumePoint is where work stopped inside t: its in-progress subtask,
// else its first open subtask in array order, else the task itself.
func resumePoint(t Task, exists func(string) bool) workflow.ResumePoint {
	rp := workflow.ResumePoint{Total: len(t.Subtasks)}
	var at *Task
	for i := range t.Subtasks {
		if t.Subtasks[i].statusKey() == "in-progress" {
			at = &t.Subtasks[i]
			break
		}
	}
	for i := range t.Subtasks {
		s := &t.Subtasks[i]
		if s.Terminal() {
			rp.Done++
		} else if at == nil {
			at = s
		}
	}
	if len(t.Subtasks) == 0 {
		rp.Total = 1
		if t.Terminal() {
			rp.Done = 1
		}
	}
	if at == nil {
		at = &t
	} else {
		rp.Section = "Task " + t.ID + ": " + t.Title
		if t.Title == "" {
			rp.Section = "Task " + t.ID
		}
	}
	rp.Item, rp.Title, rp.Files, rp.Note = at.ID, orID(at.Title, at.ID), at.Paths(exists), at.Note
	if rp.Note == "" {
		rp.Note = t.Note
	}
	prio := at.Priority
	if prio == "" {
		prio = t.Priority
	}
	if prio != "" && validID(prio) {
		rp.Labels = []string{"[" + prio + "]"}
	}
	// holes: open subtasks standing before a closed one
	last := -1
	for i, s := range t.Subtasks {
		if s.Terminal() {
			last = i
		}
	}
	for i := 0; i < last; i++ {
		if s := t.Subtasks[i]; !s.Terminal() && s.ID != rp.Item {
			rp.Holes = append(rp.Holes, s.ID)
		}
	}
	return rp
}

// findItem returns the task or subtask of t with id.
func findItem(t Task, id string) Task {
	for _, s := range t.Subtasks {
		if s.ID == id {
			return s
		}
	}
	return t
}

// phaseStatus is a task's or subtask's status as a phase status.
func phaseStatus(t Task, resume string) string {
	switch {
	case t.isDone():
		return workflow.PhaseCompleted
	case t.Terminal(): // cancelled
		return workflow.PhaseSkipped
	case t.ID == resume:
		return workflow.PhaseCurrent
	}
	return workflow.PhasePending
}

func orID(title, id string) string {
	if title == "" {
		return id
	}
	return title
}
