// Package kiro is the Kiro spec format: spec folders
// `.kiro/specs/<feature>/` with requirements.md (or bugfix.md), design.md and
// a tasks.md of checkbox tasks (`- [ ] 2.1 Create data models`,
// `- [ ]* 2.2 …` optional, `[-]` in progress, `[~]` queued) that the Kiro
// IDE, or cc-sdd's `/kiro:spec-impl` in other agents, ticks as it goes.
// KiroSource finds every spec (in cc-sdd's configured folder too), counts
// its required leaf tasks, and turns each spec in flight into a candidate
// whose resume point is the first open required leaf task.
//
// Kiro keeps no "where did I stop" of its own beyond the boxes: the time
// work stopped is the last commit touching the spec folder (an uncommitted
// file's modification time when newer), with tasks.meta.json's last run
// shown beside. The handoff never edits these files. The rules are those
// of ../shared/spec/FORMATS-openspec-kiro.md Part B, C and D.
package kiro

import (
	"crypto/sha256"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/par"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// KiroSource finds Kiro and cc-sdd specs. The likely current spec has
// priority 4, the others the spec priority 6.
var KiroSource source.Source = source.Format{FormatKind: workflow.KindKiro, FormatPriority: workflow.PriorityInProgress, ScanFunc: scan}

// Workflow is the workflow id of a Kiro spec's implementation.
const Workflow = "kiro-spec"

// Agent is the agent a Kiro resume is handed to: the coding agent.
const Agent = "dev"

// The candidates' framework names.
const (
	FrameworkIDE   = "kiro"
	FrameworkCCSDD = "kiro-cc-sdd"
)

const (
	// maxSpecs bounds the spec folders looked at.
	maxSpecs = 2000
	// maxExistsLookups bounds the file-system lookups one tasks.md's paths
	// cost (refpath.BoundedExists).
	maxExistsLookups = 1000
	// maxRoots bounds the cc-sdd folders honoured besides .kiro.
	maxRoots = 8
)

// specDocs are the files that make a folder a spec (Rule B1.1), in the
// order a task run reads them, then the other files of a spec folder.
var (
	specDocs  = []string{"requirements.md", "bugfix.md", "design.md", "tasks.md", "spec.json"}
	otherDocs = []string{".config.kiro", "config.kiro", "tasks.meta.json", "research.md", "gap-analysis.md", "brief.md"}
)

// spec is one spec folder.
type spec struct {
	Root      string // ".kiro", or cc-sdd's configured folder ("docs")
	Dir       string // .kiro/specs/user-auth
	Name      string // user-auth
	ID        string // the candidate id
	TasksPath string // "" without tasks.md
	Tasks     Tasks
	Counts    Counts
	Docs      []string
	Config    kiroConfig
	Meta      meta
	SpecJSON  specJSON
	HasMeta   bool
	ModTime   time.Time
	From      string // "git:<hash>" or "mtime"
	Findings  []workflow.Finding
}

// ccsdd reports whether cc-sdd wrote the spec: a spec.json and no IDE
// file, or a folder only cc-sdd can configure.
func (s *spec) ccsdd() bool {
	if s.Root != ".kiro" {
		return true
	}
	return s.SpecJSON.Present && !s.Config.Present && !s.HasMeta
}

// bugfix reports a bugfix spec (bugfix.md, or specType bugfix).
func (s *spec) bugfix() bool {
	if s.Config.SpecType == "bugfix" {
		return true
	}
	for _, d := range s.Docs {
		if path.Base(d) == "bugfix.md" {
			return true
		}
	}
	return false
}

// started reports evidence that work began with no box ticked: a [-] or
// [~] marker, or a run in tasks.meta.json (Part D.3).
func (s *spec) started() bool {
	return len(s.Tasks.Marked(InProgress)) > 0 || len(s.Tasks.Marked(Queued)) > 0 || !s.Meta.LastAt.IsZero()
}

// status is the spec's derived status: no tasks.md or no required task
// Draft; nothing started Ready; in flight InProgress; every required leaf
// done Done.
func (s *spec) status() (workflow.Status, string) {
	c := s.Counts
	switch {
	case s.TasksPath == "":
		raw := "no tasks.md"
		if s.SpecJSON.Phase != "" {
			raw += " (phase " + s.SpecJSON.Phase + ")"
		}
		return workflow.StatusDraft, raw
	case c.Total == 0:
		return workflow.StatusDraft, "no required tasks"
	case c.Done == c.Total:
		return workflow.StatusDone, "complete"
	case c.Done > 0 || s.started():
		return workflow.StatusInProgress, "in progress"
	}
	return workflow.StatusReady, "not started"
}

// scan finds every spec folder and builds its candidate.
func scan(r *source.Repo) ([]workflow.Candidate, []workflow.Finding) {
	exists := memoExists(r.Exists)
	cache := openTasksCache(r)
	specs, findings := readSpecs(r, exists, cache)
	cache.save()
	if len(specs) == 0 {
		return nil, findings
	}
	date(r, specs)
	cur := current(specs)
	cmds := detectCommands(r)
	out := make([]workflow.Candidate, 0, len(specs))
	for _, s := range specs {
		out = append(out, build(exists, s, cur, cmds))
	}
	return out, findings
}

// roots are the kiro folders: .kiro, and each folder cc-sdd was installed
// into with --kiro-dir (recognised by its settings/templates/specs/, Rule
// B1.1).
func roots(r *source.Repo) []string {
	out := []string{".kiro"}
	for _, d := range r.Glob([]string{"*/settings/templates/specs", "*/*/settings/templates/specs"}, true) {
		root := strings.TrimSuffix(d, "/settings/templates/specs")
		if root == ".kiro" || len(out) > maxRoots {
			continue
		}
		out = append(out, root)
	}
	return out
}

// readSpecs reads every spec folder (not below specs/<feature>/, Rule
// B1.2), giving each its id: kiro:<feature>; a feature named twice (in
// .kiro and a cc-sdd folder) keeps the folder in the second id.
func readSpecs(r *source.Repo, exists func(string) bool, cache *tasksCache) ([]*spec, []workflow.Finding) {
	var folders []map[string]bool // each spec's file names
	var findings []workflow.Finding
	var specs []*spec
roots:
	for _, root := range roots(r) {
		// one listing of every spec folder's files, not a look-up per name
		names := map[string]map[string]bool{}
		for _, f := range r.Glob([]string{root + "/specs/*/*"}, false) {
			d, base := path.Split(f)
			d = strings.TrimSuffix(d, "/")
			if names[d] == nil {
				names[d] = map[string]bool{}
			}
			names[d][base] = true
		}
		for _, d := range r.Glob([]string{root + "/specs/*"}, true) {
			if len(specs) >= maxSpecs {
				findings = append(findings, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Warning, Code: "kiro-too-many-specs", Path: root + "/specs",
					Message: fmt.Sprintf("more than %d spec folders; the rest are not read", maxSpecs)})
				break roots
			}
			if !isSpec(names[d]) {
				continue
			}
			specs = append(specs, &spec{Root: root, Dir: d, Name: path.Base(d)})
			folders = append(folders, names[d])
		}
	}
	findings = append(findings, assignIDs(specs)...)
	// the folders' files are read and parsed on a few workers (mostly
	// system calls and independent parses); each touches only its spec
	par.For(len(specs), par.Options{Workers: 4, Chunk: 8, Min: 16}, func(i int) {
		readSpec(r, specs[i], folders[i], exists, cache)
	})
	return specs, findings
}

// assignIDs gives every spec its id, unique over the scan: kiro:<feature>.
// Sanitize folds the characters it does not keep into "-", so folders such
// as "my spec" and my-spec make the same id; one candidate would then
// absorb the other and a resume of kiro:my-spec could hand off a folder
// named to shadow it. Of the specs sharing an id, one whose folder name is
// the feature id itself keeps it (the first of them, .kiro before a cc-sdd
// folder); each other is listed with its folder in the id
// (kiro:<root>-<feature>), and with a short hash of its folder when that
// id is taken too; a warning names each.
func assignIDs(specs []*spec) []workflow.Finding {
	byID := map[string][]*spec{}
	var order []string
	for _, s := range specs {
		id := "kiro:" + storyid.Sanitize(s.Name)
		if _, ok := byID[id]; !ok {
			order = append(order, id)
		}
		byID[id] = append(byID[id], s)
	}
	taken := map[string]string{} // id -> folder
	var rest []*spec
	for _, id := range order {
		group := byID[id]
		keep := group[0]
		for _, s := range group {
			if storyid.Sanitize(s.Name) == s.Name {
				keep = s
				break
			}
		}
		keep.ID = id
		taken[id] = keep.Dir
		for _, s := range group {
			if s != keep {
				rest = append(rest, s)
			}
		}
	}
	var findings []workflow.Finding
	for _, s := range rest {
		first := "kiro:" + storyid.Sanitize(s.Name)
		id := "kiro:" + storyid.Sanitize(s.Root+"/"+s.Name)
		if _, dup := taken[id]; dup || id == first {
			sum := sha256.Sum256([]byte(s.Dir))
			id = fmt.Sprintf("%s-%x", first, sum[:4])
		}
		s.ID = id
		taken[id] = s.Dir
		findings = append(findings, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Warning, Code: "kiro-duplicate-spec", Path: s.Dir,
			Message: fmt.Sprintf("spec %q makes the id %s of %s; this one is listed as %s", s.Name, first, taken[first], s.ID)})
	}
	return findings
}

// isSpec reports whether a folder holding the files names is a spec: it
// holds one of the spec documents.
func isSpec(names map[string]bool) bool {
	for _, doc := range specDocs {
		if names[doc] {
			return true
		}
	}
	return false
}

// readSpec reads spec s's folder, whose files are names. Nothing in it is
// ever written.
func readSpec(r *source.Repo, s *spec, names map[string]bool, exists func(string) bool, cache *tasksCache) {
	dir := s.Dir
	for _, doc := range append(append([]string(nil), specDocs...), otherDocs...) {
		p := dir + "/" + doc
		if !names[doc] {
			continue
		}
		s.Docs = append(s.Docs, p)
		switch doc {
		case "tasks.md":
			s.TasksPath = p
			ts, mt, err := cache.parseTasks(r, p, refpath.BoundedExists(exists, maxExistsLookups))
			s.ModTime = mt
			if err != nil {
				s.Findings = append(s.Findings, source.ReadFinding(p, err))
				continue
			}
			s.Tasks = ts
			s.Counts = s.Tasks.Count()
		case ".config.kiro", "config.kiro":
			if data, err := r.Read(p); err == nil {
				s.Config = parseConfig(data)
			} else {
				s.Config.Present = true
			}
		case "tasks.meta.json":
			s.HasMeta = true
			if data, err := r.Read(p); err == nil {
				s.Meta = parseMeta(data)
			} else {
				s.Findings = append(s.Findings, source.ReadFinding(p, err))
			}
		case "spec.json":
			if data, err := r.Read(p); err == nil {
				s.SpecJSON = parseSpecJSON(data)
			} else {
				s.SpecJSON.Present = true
			}
		}
	}
}

// date dates every spec in flight by the last commit touching its folder's
// files (a file with uncommitted changes by its modification time, when
// newer): Part D.5. A spec not in flight is dated by its tasks.md (or its
// folder) alone: its time is only shown, and one path per spec keeps the
// history walk of a repository of hundreds of finished specs short.
func date(r *source.Repo, specs []*spec) {
	docs := func(s *spec) []string {
		if st, _ := s.status(); st == workflow.StatusInProgress {
			return s.Docs
		}
		if s.TasksPath != "" {
			return []string{s.TasksPath}
		}
		return []string{s.Dir}
	}
	var paths []string
	for _, s := range specs {
		paths = append(paths, docs(s)...)
	}
	stamps := r.CommitTimes(paths)
	for _, s := range specs {
		var at time.Time
		from := ""
		for _, p := range docs(s) {
			if st, ok := stamps[p]; ok {
				if st.When.UTC().After(at) {
					at, from = st.When.UTC(), st.From
				}
				continue
			}
			if mt := r.ModTime(p); mt.After(at) {
				at, from = mt, "mtime"
			}
		}
		if !at.IsZero() {
			s.ModTime, s.From = at, from
		}
	}
}

// current picks the likely current spec among those in flight (Part D.5):
// the newest folder time, then the newest tasks.meta.json run, then a [-]
// on a leaf, then the name; nil when none is in flight.
func current(specs []*spec) *spec {
	var best *spec
	for _, s := range specs {
		if st, _ := s.status(); st != workflow.StatusInProgress {
			continue
		}
		if best == nil || newer(s, best) {
			best = s
		}
	}
	return best
}

// newer reports whether a beats b for "current".
func newer(a, b *spec) bool {
	switch {
	case !a.ModTime.Equal(b.ModTime):
		return a.ModTime.After(b.ModTime)
	case !a.Meta.LastAt.Equal(b.Meta.LastAt):
		return a.Meta.LastAt.After(b.Meta.LastAt)
	case a.Tasks.LeafMarked() != b.Tasks.LeafMarked():
		return a.Tasks.LeafMarked()
	}
	return a.ID < b.ID
}

// commands is how cc-sdd's implementation command is spelled in this
// repository: the skill (`/kiro-impl`, cc-sdd 3.x) or the command
// (`/kiro:spec-impl`).
type commands struct{ impl string }

// detectCommands looks for cc-sdd's installed skill.
func detectCommands(r *source.Repo) commands {
	if len(r.Glob([]string{".*/skills/kiro-impl/SKILL.md"}, false)) > 0 && !r.Exists(".claude/commands/kiro/spec-impl.md") {
		return commands{impl: "/kiro-impl"}
	}
	return commands{impl: "/kiro:spec-impl"}
}

// build turns a spec into its candidate.
func build(exists func(string) bool, s *spec, cur *spec, cmds commands) workflow.Candidate {
	st, raw := s.status()
	key := strings.TrimPrefix(s.ID, "kiro:")
	srcPath := s.TasksPath
	if srcPath == "" {
		srcPath = s.Dir
	}
	isCur := cur == s
	prio := workflow.PrioritySpec
	if isCur {
		prio = workflow.PriorityInProgress
	}
	fw := FrameworkIDE
	if s.ccsdd() {
		fw = FrameworkCCSDD
	}
	c := workflow.Candidate{
		ID:          s.ID,
		Type:        workflow.TypeKiroSpec,
		Key:         key,
		Source:      workflow.SourceRef{Kind: workflow.KindKiro, Path: srcPath, Priority: prio},
		Workflow:    Workflow,
		Stories:     []string{},
		Status:      string(st),
		StatusRaw:   raw,
		UpdatedAt:   s.ModTime,
		UpdatedFrom: s.From,
		Agent:       Agent,
		Framework:   fw,
		Findings:    append([]workflow.Finding(nil), s.Findings...),
		Resumable:   st == workflow.StatusInProgress,
	}
	if c.UpdatedAt.IsZero() {
		c.UpdatedFrom = ""
	} else if c.UpdatedFrom == "" {
		c.UpdatedFrom = "mtime"
	}
	c.Findings = append(c.Findings, findings(s, st)...)
	first := s.Tasks.FirstOpen()
	groups, groupOf := s.groups()
	c.Phases = phases(s, groups, groupOf, first)
	cnt := s.Counts
	c.Position = workflow.StepPosition(cnt.Done, cnt.Total, "")
	rp := &workflow.ResumePoint{Done: cnt.Done, Total: cnt.Total, Holes: s.Tasks.Holes()}
	if first != nil {
		i := s.index(first)
		rp.Item, rp.Title = s.Tasks.label(i), first.Title
		rp.Section = s.section(i)
		rp.Labels = labels(first)
		rp.Files = first.Paths
		c.Position.At = rp.Item
		c.Position.Name = groups[groupOf[i]].Name
	}
	rp.Note = note(s, cur, isCur)
	nextFor(s, fw, cmds, first, rp)
	c.Resume = rp
	c.Files = files(exists, s, groups, groupOf)
	return c
}

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
	byKey := map[string]int{}
	used := map[string]int{}
	of := make([]int, len(s.Tasks.Tasks))
	for i := range s.Tasks.Tasks {
		t := &s.Tasks.Tasks[i]
		top := s.Tasks.Top(i)
		var key, id, name string
		switch tt := &s.Tasks.Tasks[top]; {
		case top != i || (t.ID != "" && !strings.Contains(t.ID, ".")) || t.Children > 0:
			key, id, name = fmt.Sprintf("task#%d", top), "task-"+storyid.Sanitize(strings.ToLower(tt.ID)), groupName(tt)
			if tt.ID == "" {
				id = phaseID(tt.Title)
			}
		default:
			name = t.Heading
			if name == "" {
				name = "Tasks"
			}
			key, id = "heading#"+name, phaseID(name)
		}
		g, ok := byKey[key]
		if !ok {
			used[id]++
			if used[id] > 1 {
				id = fmt.Sprintf("%s-%d", id, used[id])
			}
			g = len(out)
			byKey[key] = g
			out = append(out, group{ID: id, Name: name})
		}
		of[i] = g
	}
	return out, of
}

// groupName names a task as a group: "2. Implement core functionality".
func groupName(t *Task) string {
	switch {
	case t.ID == "":
		return t.Title
	case refIDRe().MatchString(t.ID) && !strings.Contains(t.ID, "."):
		return t.ID + ". " + t.Title
	}
	return t.ID + " " + t.Title
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
	if m := s.Tasks.Marked(InProgress); len(m) > 0 {
		parts = append(parts, "[-] on "+strings.Join(capList(m, 8), ", ")+" (set when a task starts; may be stale)")
	}
	if m := s.Tasks.Marked(Queued); len(m) > 0 {
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
	if len(s.Tasks.Tasks) == 0 {
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

// maxMemo bounds the answers memoExists keeps for a scan.
const maxMemo = 50_000

// memoExists remembers exists's answers for the whole scan (specs name the
// same files), up to maxMemo of them; past it, it asks again. It is safe
// for the scan's workers.
func memoExists(exists func(string) bool) func(string) bool {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(p string) bool {
		mu.Lock()
		v, ok := seen[p]
		mu.Unlock()
		if ok {
			return v
		}
		v = exists(p)
		mu.Lock()
		if len(seen) < maxMemo {
			seen[p] = v
		}
		mu.Unlock()
		return v
	}
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
