// Package speckit is the GitHub spec-kit format: feature folders
// `specs/<id>-<slug>/` (or `.specify/specs/`) with spec.md, plan.md and a
// tasks.md whose task lines (`- [ ] T014 [P] [US1] …`) `/speckit.implement`
// ticks as it goes. SpecKitSource finds every feature, picks the current one
// by the layout's own rule (V0, V1, V2 and 0.10 differ; see
// docs/ARCHITECTURE.md) and turns each partially done feature into a
// candidate whose resume point is the first unchecked task line.
//
// spec-kit keeps no resume state of its own: the position is read from the
// boxes, and the time work stopped is tasks.md's last commit (discover's git
// dating refines the file's modification time). The handoff never edits
// these files.
package speckit

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// SpecKitSource finds spec-kit features. The current feature (by the
// layout's rule) has priority 4, the other features the spec priority 6.
var SpecKitSource source.Source = source.Format{FormatKind: workflow.KindSpecKit, FormatPriority: workflow.PriorityInProgress, ScanFunc: scan}

// Workflow is the workflow id of a spec-kit feature's implementation.
const Workflow = "speckit-implement"

// Agent is the agent a spec-kit resume is handed to: the coding agent that
// runs /speckit.implement.
const Agent = "dev"

// maxExistsLookups bounds the file-system lookups the paths of one
// tasks.md cost (refpath.BoundedExists).
const maxExistsLookups = 1000

// maxFeatures bounds the feature folders looked at.
const maxFeatures = 2000

// featureDocs are the documents of a feature folder, in the order
// /speckit.implement reads them; plan.md and tasks.md are required.
var featureDocs = []string{"tasks.md", "plan.md", "spec.md", "research.md", "data-model.md", "quickstart.md"}

var (
	featureDirRe = lazyre.New(`^(\d{8}-\d{6}|\d{3,})(?:-|$)`)
	branchRe     = lazyre.New(`^(\d{3,})-`)
	checkOpenRe  = lazyre.New(`^\s*[-*]\s+\[ \]\s+\S`)
	versionRe    = lazyre.New(`^v?(\d+)\.(\d+)`)
)

// Layout is the spec-kit generation a repository shows.
type Layout struct {
	// Gen is "v0" (memory/, scripts/, templates/ at the root), "v1"
	// (.specify/) or "v2" (.specify/feature.json or init-options.json).
	Gen string
	// Ten is set for 0.10 and later: feature.json alone decides.
	Ten bool
	// Version is init-options.json's speckit_version, when present.
	Version string
}

// Framework is the candidate's framework name: "speckit-v1".
func (l Layout) Framework() string { return "speckit-" + l.Gen }

// Command is the framework's own command to continue a feature.
func (l Layout) Command() string {
	if l.Gen == "v0" {
		return "/implement"
	}
	return "/speckit.implement"
}

// feature is one feature folder.
type feature struct {
	Dir        string // specs/003-export-csv
	Name       string // 003-export-csv
	TasksPath  string // "" without tasks.md
	Tasks      Tasks
	Docs       []string
	Extra      []string // contracts/*, checklists/*, feature.json
	TaskFiles  []workflow.RefFile
	OpenChecks map[string]int // checklist file -> open items
	ModTime    time.Time
	From       string // where ModTime came from when not "mtime" ("git:<hash>")
	Findings   []workflow.Finding
}

// status is the feature's derived status: no tasks.md Draft; no task done
// Ready; some InProgress; all Done.
func (f *feature) status() workflow.Status {
	switch done := f.Tasks.Done(); {
	case f.TasksPath == "":
		return workflow.StatusDraft
	case len(f.Tasks.Tasks) > 0 && done == len(f.Tasks.Tasks):
		return workflow.StatusDone
	case done == 0:
		return workflow.StatusReady
	}
	return workflow.StatusInProgress
}

// Current is the layout's answer to "which feature": the folder, the rule
// that decided, and why there is no answer or why the answer is stale.
type Current struct {
	Name  string // the feature folder's name, "" when no answer
	Rule  string // "feature.json", "branch 003-foo", "highest number (no git)"
	Why   string // without an answer: the reason
	Stale string // feature.json is stale: how
	// Named is the feature a stale feature.json names ("" otherwise).
	Named string
	// Chosen is orchestrate's answer when the layout has none or a stale
	// one: the partly done feature whose tasks.md changed last (by commit,
	// else by modification time), ties to the highest id; By says how.
	Chosen, By string
}

// scan finds every feature folder and builds its candidate.
func scan(r *source.Repo) ([]workflow.Candidate, []workflow.Finding) {
	dirs := featureDirs(r)
	if len(dirs) == 0 {
		return nil, nil
	}
	lay := DetectLayout(r)
	var feats []*feature
	for _, d := range dirs {
		feats = append(feats, readFeature(r, d))
	}
	cur := resolveCurrent(r, lay, feats)
	if cur.Name == "" {
		choose(r, feats, &cur)
	}
	chosen := "; no feature is partly done"
	if cur.Chosen != "" {
		chosen = "; orchestrate resumes the partly done feature whose tasks.md changed last: " + cur.Chosen + " (" + cur.By + ")"
	}
	var findings []workflow.Finding
	switch {
	case cur.Stale != "":
		findings = append(findings, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Warning, Code: "speckit-feature-json-stale",
			Path: ".specify/feature.json", Message: ".specify/feature.json is stale: " + cur.Stale + chosen})
	case cur.Name == "":
		findings = append(findings, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Info, Code: "speckit-no-current-feature",
			Message: "spec-kit has no current feature: " + cur.Why + chosen})
	}
	// a current feature needs no finding: its candidate's note names the rule
	hasFJ := r.Exists(".specify/feature.json")
	var out []workflow.Candidate
	for _, f := range feats {
		if hasFJ {
			f.Extra = append(f.Extra, ".specify/feature.json")
		}
		out = append(out, Build(f, lay, cur))
	}
	return out, findings
}

// featureDirs lists the feature folders: specs/<id>-<slug> and
// .specify/specs/<id>-<slug> holding at least one feature document.
func featureDirs(r *source.Repo) []string {
	var out []string
	for _, d := range r.Glob([]string{"specs/*", ".specify/specs/*"}, true) {
		if len(out) >= maxFeatures {
			break
		}
		if !featureDirRe().MatchString(path.Base(d)) {
			continue
		}
		for _, doc := range []string{"tasks.md", "plan.md", "spec.md"} {
			if r.Exists(d + "/" + doc) {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// readFeature reads a feature folder: its documents, tasks.md, contracts
// and checklists.
func readFeature(r *source.Repo, dir string) *feature {
	f := &feature{Dir: dir, Name: path.Base(dir), OpenChecks: map[string]int{}}
	for _, doc := range featureDocs {
		p := dir + "/" + doc
		if !r.Exists(p) {
			continue
		}
		f.Docs = append(f.Docs, p)
		if doc != "tasks.md" {
			continue
		}
		f.TasksPath = p
		data, mt, err := r.ReadWithTime(p)
		f.ModTime = mt
		if err != nil {
			f.Findings = append(f.Findings, source.ReadFinding(p, err))
			continue
		}
		f.Tasks = ParseTasksIn(data, refpath.BoundedExists(r.Exists, maxExistsLookups))
		if len(f.Tasks.Duplicates) > 0 {
			f.Findings = append(f.Findings, workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Warning, Code: "duplicate-task-id", Path: p,
				Message: "task ids on more than one line: " + strings.Join(capList(f.Tasks.Duplicates, 10), ", ")})
		}
		if f.Tasks.Truncated {
			f.Findings = append(f.Findings, workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Warning, Code: "too-many-tasks", Path: p,
				Message: fmt.Sprintf("more than %d task lines; the rest are not read", maxTasks)})
		}
	}
	f.TaskFiles = taskFiles(r, &f.Tasks)
	if f.ModTime.IsZero() {
		for _, p := range f.Docs {
			if mt := r.ModTime(p); mt.After(f.ModTime) {
				f.ModTime = mt
			}
		}
	}
	f.Extra = r.Glob([]string{dir + "/contracts/*", dir + "/contracts/*/*"}, false)
	for _, p := range r.Glob([]string{dir + "/checklists/*.md"}, false) {
		f.Extra = append(f.Extra, p)
		data, err := r.Read(p)
		if err != nil {
			continue
		}
		if n := openChecks(data); n > 0 {
			f.OpenChecks[p] = n
		}
	}
	if len(f.Extra) > source.MaxFiles {
		f.Extra = f.Extra[:source.MaxFiles]
	}
	return f
}

// openChecks counts the open items of a checklist (outside code fences).
func openChecks(data []byte) int {
	n := 0
	fence := false
	for _, line := range strings.Split(string(data), "\n") {
		if fenceRe().MatchString(line) {
			fence = !fence
			continue
		}
		if !fence && checkOpenRe().MatchString(line) {
			n++
		}
	}
	return n
}

// DetectLayout tells the spec-kit generation from the files it leaves.
func DetectLayout(r *source.Repo) Layout {
	l := Layout{Gen: "v0"}
	if !r.Exists(".specify") {
		return l
	}
	l.Gen = "v1"
	if r.Exists(".specify/feature.json") || r.Exists(".specify/init-options.json") {
		l.Gen = "v2"
	}
	if data, err := r.Read(".specify/init-options.json"); err == nil {
		// the bounded decoder: a file of millions of values is refused, not decoded
		if m, err := tolerant.DecodeJSONMap(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))); err == nil {
			if v, ok := m["speckit_version"].(string); ok {
				l.Version = oneLine(v)
				if mm := versionRe().FindStringSubmatch(strings.TrimSpace(v)); mm != nil {
					major, _ := strconv.Atoi(mm[1])
					minor, _ := strconv.Atoi(mm[2])
					l.Ten = major > 0 || minor >= 10
				}
			}
		}
	}
	return l
}

// features are what the candidates of every feature share.
var features = workflow.Checklist{IDPrefix: "feature:", Type: workflow.TypeFeature, Kind: workflow.KindSpecKit, Workflow: Workflow, Agent: Agent}

// Build turns a feature into its candidate.
func Build(f *feature, lay Layout, cur Current) workflow.Candidate {
	key := storyid.Sanitize(f.Name)
	st := f.status()
	isCur := cur.Name != "" && cur.Name == f.Name
	isChosen := cur.Name == "" && cur.Chosen != "" && cur.Chosen == f.Name
	c := features.Candidate(workflow.ChecklistItem{Key: key, TasksPath: f.TasksPath, Dir: f.Dir, Current: isCur,
		Status: st, StatusRaw: string(st), ModTime: f.ModTime, From: f.From, Framework: lay.Framework(), Findings: f.Findings})
	c.Resumable = st == workflow.StatusInProgress || (isCur && st == workflow.StatusReady && len(f.Tasks.Tasks) > 0)
	if f.TasksPath != "" && len(f.Tasks.Tasks) == 0 {
		c.Findings = append(c.Findings, workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Info, Code: "no-tasks", Path: f.TasksPath,
			Message: "tasks.md holds no task line (- [ ] T001 …)"})
	}
	first := f.Tasks.FirstOpen()
	c.Phases = phases(f, first)
	done, total := f.Tasks.Done(), len(f.Tasks.Tasks)
	c.Position = workflow.StepPosition(done, total, "")
	rp := &workflow.ResumePoint{Done: done, Total: total, Holes: f.Tasks.Holes(), FrameworkCommand: lay.Command()}
	if first != nil {
		rp.Item, rp.Title, rp.Section = first.ID, first.Title, first.Section
		rp.Labels = first.Labels
		rp.Files = first.Paths
		c.Position.Name, c.Position.At = first.Section, first.ID
	}
	rp.Note = note(f, lay, cur, isCur)
	// the framework's own answer: check-prerequisites.sh resolves the
	// feature by the layout's rule, /speckit.implement then starts at its
	// first unchecked task (templates/commands/implement.md)
	switch {
	case isCur && first != nil:
		rp.FrameworkNext = first.ID + " of " + f.Name + " (" + cur.Rule + ")"
	case cur.Name != "" && !isCur && first != nil:
		rp.FrameworkNext = "feature " + cur.Name + " (" + cur.Rule + "), not this one"
		rp.Differs = true
	}
	if isChosen {
		rp.Note += "; orchestrate resumes it: its tasks.md changed last (" + cur.By + ")"
		rp.FrameworkNext = "no answer"
		if cur.Named != "" {
			rp.FrameworkNext = cur.Named + " (.specify/feature.json, stale)"
		}
		rp.Differs = true
	}
	c.Resume = rp
	if d := f.Tasks.Dropped(); len(d) > 0 {
		c.Findings = append(c.Findings, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Info, Code: "dropped-tasks", Path: f.TasksPath,
			Message: "dropped (closed, counted as done): " + strings.Join(capList(d, 20), ", ")})
	}
	if len(rp.Holes) > 0 && c.Resumable {
		c.Findings = append(c.Findings, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Info, Code: "open-tasks-among-done", Path: f.TasksPath,
			Message: "open tasks stand among ticked ones: " + strings.Join(capList(rp.Holes, 20), ", ")})
	}
	c.Files = files(f)
	return c
}

// phases lays out the task groups (phase headings) with their status:
// completed when every task is closed, current for the resume point's.
func phases(f *feature, first *Task) []workflow.Phase {
	g := workflow.TaskGroups{Headings: f.Tasks.Phases, Agent: Agent, ID: phaseID}
	for _, t := range f.Tasks.Tasks {
		g.Tasks = append(g.Tasks, workflow.GroupedTask{Group: t.Phase, Done: t.Done})
	}
	if first != nil {
		g.Current = &workflow.GroupedTask{Group: first.Phase, Done: first.Done}
	}
	return g.Phases()
}

var phaseNumRe = lazyre.New(`^\S+\s*(\d+(?:\.\d+)*)\s*[:：\-—–]`)

// phaseID names a phase heading: "Phase 3.1: Setup" is phase-3.1.
func phaseID(heading string) string {
	if m := phaseNumRe().FindStringSubmatch(heading); m != nil {
		return "phase-" + m[1]
	}
	if s := storyid.Sanitize(strings.ToLower(heading)); s != "" && len(s) <= 40 {
		return s
	}
	return "tasks"
}

// note says which rule chose the current feature, or why none, and whether
// /speckit.implement will stop to ask about an open checklist.
func note(f *feature, lay Layout, cur Current, isCur bool) string {
	var parts []string
	switch {
	case isCur:
		parts = append(parts, "current feature (by "+cur.Rule+")")
	case cur.Name != "":
		parts = append(parts, "not the current feature: "+cur.Rule+" names "+cur.Name)
	case cur.Stale != "":
		parts = append(parts, "no reliable current feature: .specify/feature.json is stale ("+cur.Stale+")")
	default:
		parts = append(parts, "no current feature: "+cur.Why)
	}
	if n := len(f.OpenChecks); n > 0 {
		var names []string
		total := 0
		for p, k := range f.OpenChecks {
			names = append(names, path.Base(p))
			total += k
		}
		sort.Strings(names)
		parts = append(parts, fmt.Sprintf("%d open checklist item(s) in %s: %s asks before it starts", total, strings.Join(capList(names, 5), ", "), lay.Command()))
	}
	return strings.Join(parts, "; ")
}

// files are the referenced files: the feature's documents (tasks.md and
// plan.md critical: /speckit.implement needs both), contracts, checklists,
// feature.json, and the existing paths named by closed tasks (produced) and
// by the resume task (its inputs). Paths an open task will create are not
// referenced: they are not expected to exist yet.
func files(f *feature) []workflow.RefFile {
	set := source.NewFileSet(nil)
	for _, p := range f.Docs {
		base := path.Base(p)
		set.Add(workflow.RefFile{Path: p, Critical: base == "tasks.md" || base == "plan.md", From: "feature"})
	}
	for _, p := range f.Extra {
		set.Add(workflow.RefFile{Path: p, From: "feature"})
	}
	for _, rf := range f.TaskFiles {
		set.Add(rf)
	}
	return set.Sorted()
}

// taskFiles are the existing paths closed tasks name (produced) and the
// resume task names (inputs of its phase).
func taskFiles(r *source.Repo, ts *Tasks) []workflow.RefFile {
	var out []workflow.RefFile
	first := ts.FirstOpen()
	checked := 0
	for i := range ts.Tasks {
		t := &ts.Tasks[i]
		closed := t.Done && !t.Dropped
		if !closed && t != first {
			continue
		}
		for _, p := range t.Paths {
			if checked >= source.MaxFiles {
				return out
			}
			checked++
			if r.Exists(p) {
				out = append(out, workflow.RefFile{Path: p, Phase: phaseID(t.Section), Produced: closed, From: "task " + t.ID})
			}
		}
	}
	return out
}

// capList keeps the first n items and counts the rest.
func capList(list []string, n int) []string {
	if len(list) <= n {
		return list
	}
	out := append([]string(nil), list[:n]...)
	return append(out, fmt.Sprintf("… %d more", len(list)-n))
}
