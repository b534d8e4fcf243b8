// Package workflow holds the domain types that flow through every stage of
// orchestrate: candidates found by discover, findings produced by every
// stage, stories, phases and positions. It has no behaviour beyond small,
// deterministic helpers on those values.
package workflow

import (
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// Type is the kind of interrupted work a candidate describes.
type Type string

// The candidate types (the "type" of --json).
const (
	TypeEpic        Type = "epic"
	TypeQALoop      Type = "qa-loop"
	TypeWorkflow    Type = "workflow"
	TypeProgress    Type = "progress"
	TypeWorkSession Type = "work-session"
	TypeSDC         Type = "sdc"
	TypeQAReview    Type = "qa-review"
	TypeSpec        Type = "spec-pipeline"
	TypeStory       Type = "story"
	// TypeFeature is a spec-kit feature (specs/<id>-<slug>/tasks.md).
	TypeFeature Type = "feature"
	// TypeTask is a Taskmaster task (.taskmaster/tasks/tasks.json).
	TypeTask Type = "task"
	// TypePhase is a GSD phase (.planning/phases/<N>-<slug>/).
	TypePhase Type = "phase"
	// TypeChange is an OpenSpec change (openspec/changes/<id>/tasks.md).
	TypeChange Type = "change"
	// TypeKiroSpec is a Kiro (or cc-sdd) spec (.kiro/specs/<feature>/).
	TypeKiroSpec Type = "spec"
)

// Label is the human name of a type, as the task's blocks print it.
func (t Type) Label() string {
	switch t {
	case TypeEpic:
		return "Epic Execution"
	case TypeQALoop:
		return "QA Loop"
	case TypeWorkflow:
		return "Workflow"
	case TypeProgress:
		return "Progress"
	case TypeWorkSession:
		return "Work Session"
	case TypeSDC:
		return "SDC"
	case TypeQAReview:
		return "QA Review"
	case TypeSpec:
		return "Spec Pipeline"
	case TypeStory:
		return "Story"
	case TypeFeature:
		return "Feature"
	case TypeTask:
		return "Task"
	case TypePhase:
		return "Phase"
	case TypeChange:
		return "Change"
	case TypeKiroSpec:
		return "Spec"
	}
	return string(t)
}

// Source kinds, one per discovery source.
const (
	KindEpicState     = "epic-state"
	KindQALoop        = "qa-loop"
	KindQALoopIndex   = "qa-loop-index"
	KindWorkflowState = "workflow-state"
	KindProgress      = "progress"
	KindWorkSession   = "work-session"
	KindStory         = "story"
	KindSpec          = "spec-pipeline"
	// KindBMADLedger is a BMAD v6 sprint-status.yaml ledger.
	KindBMADLedger = "bmad-ledger"
	// KindSpecKit is a spec-kit feature's tasks.md.
	KindSpecKit = "speckit-tasks"
	// KindTaskmaster is a Taskmaster tasks.json.
	KindTaskmaster = "taskmaster"
	// KindGSD is GSD planning state (.planning/).
	KindGSD = "gsd"
	// KindOpenSpec is an OpenSpec change's tasks.md (or its folder).
	KindOpenSpec = "openspec-tasks"
	// KindKiro is a Kiro (or cc-sdd) spec's tasks.md.
	KindKiro = "kiro-tasks"
)

// Source priorities (lower is more specific).
const (
	PriorityEpic        = 1
	PriorityQALoop      = 2
	PriorityWorkflow    = 3
	PriorityInProgress  = 4
	PriorityInReview    = 5
	PrioritySpec        = 6
	PriorityOtherStory  = 7
	PriorityUnspecified = 9
)

// SourceRef says where a candidate (or a piece of evidence) came from.
type SourceRef struct {
	Kind     string `json:"kind"`
	Path     string `json:"path"`
	Priority int    `json:"priority"`
}

// Severity of a finding.
type Severity string

// Finding severities.
const (
	Blocking Severity = "blocking"
	Warning  Severity = "warning"
	Info     Severity = "info"
)

// Checks that produce findings.
const (
	CheckParse        = "parse"
	CheckIntegrity    = "integrity"
	CheckConsistency  = "consistency"
	CheckConflict     = "conflict"
	CheckAge          = "age"
	CheckGit          = "git"
	CheckPrerequisite = "prerequisite"
	CheckDiscover     = "discover"
)

// Finding is one observation about a candidate or the repository. Findings
// are values: every stage returns them and only the command layer prints.
type Finding struct {
	Check    string   `json:"check"`
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
	Path     string   `json:"path"`
	Phase    string   `json:"phase"`
	// Line is the 1-based line of Path the finding is about, 0 when unknown.
	// It is folded into Message for humans and JSON.
	Line int `json:"-"`
}

// Error makes a Finding usable as an error (for aggregation).
func (f Finding) Error() string {
	loc := f.Path
	if f.Line > 0 {
		loc = fmt.Sprintf("%s:%d", f.Path, f.Line)
	}
	if loc == "" {
		return fmt.Sprintf("%s/%s: %s", f.Check, f.Code, f.Message)
	}
	return fmt.Sprintf("%s/%s: %s: %s", f.Check, f.Code, loc, f.Message)
}

// Phase is one step of a workflow as the saved state records it.
type Phase struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Agent   string   `json:"agent"`
	Status  string   `json:"status"` // completed, current, pending, skipped
	Outputs []string `json:"outputs,omitempty"`
	// DependsOn are the ids of the phases this one waits on, as its format
	// records them (a GSD plan's depends_on, a Taskmaster subtask's
	// dependencies), when it records any.
	DependsOn []string `json:"depends_on,omitempty"`
}

// Phase statuses.
const (
	PhaseCompleted = "completed"
	PhaseCurrent   = "current"
	PhasePending   = "pending"
	PhaseSkipped   = "skipped"
)

// Position is where in its workflow a candidate stopped, in the one
// numbering every output uses (String): "D/N done, at ITEM" — D the closed
// units, N all units, ITEM the unit to resume. The unit is the one the
// framework counts: phases for phase workflows (the active, not skipped,
// ones), iterations for QA loops, waves for epics, and the source's own
// items for step sources (spec-kit tasks, Taskmaster subtasks, GSD plans,
// progress steps, BMAD tasks). Discovery fills it (status prints it) and
// the plan expresses its resume point in the same numbering (the resume
// blocks and --json print it), so the two agree (docs/ARCHITECTURE.md).
type Position struct {
	Kind string `json:"kind"` // phase, iteration, wave, step: the unit counted
	// Done is the number of closed units; Total all units, 0 when unknown.
	Done  int `json:"done"`
	Total int `json:"total"`
	// At is the unit to resume as the position prints it: a task, subtask
	// or plan id ("T006", "2.2", "02-02"), a phase name ("Implementation"),
	// a QA-loop phase id ("fix"), a wave ("wave 2"); "" when nothing is
	// left to resume or the source does not know.
	At string `json:"at,omitempty"`
	// Last is the last closed unit, printed when At is unknown (a work
	// session's last breadcrumb).
	Last string `json:"last,omitempty"`
	// Index is the 1-based place of the resume unit among Total (for step
	// sources that only count, the count of closed items); 0 when unknown.
	// The plan finds its step by Name, else by Index.
	Index int    `json:"index"`
	Name  string `json:"name"` // the resume unit's phase name, when known
	// Phase and Phases place a QA-loop iteration's step: "phase 2/3" is the
	// fix of review, fix, escalate; 0 when not applicable.
	Phase  int `json:"phase,omitempty"`
	Phases int `json:"phases,omitempty"`
}

// Position kinds.
const (
	PosPhase     = "phase"
	PosIteration = "iteration"
	PosWave      = "wave"
	PosStep      = "step"
)

// PhasePosition is the position of a phase workflow resuming at the index-th
// (1-based) of total phases, called name: the phases before it are done.
// index 0 (the place is unknown) counts nothing done.
func PhasePosition(index, total int, name string) Position {
	p := Position{Kind: PosPhase, Index: index, Total: total, Name: name, At: name}
	if index > 0 {
		p.Done = index - 1
	}
	return p
}

// PhasesDone is the position of a phase workflow whose total phases are
// all done (last is the name of the last one): nothing to resume.
func PhasesDone(total int, last string) Position {
	return Position{Kind: PosPhase, Index: total, Total: total, Done: total, Name: last}
}

// StepPosition is the position of a step source with done of total items
// closed, resuming at item ("" when none is left).
func StepPosition(done, total int, item string) Position {
	return Position{Kind: PosStep, Index: done, Done: done, Total: total, At: item}
}

// Count is the count part of the position: "5/12 done", "0/7 done",
// "2/5 iterations done" (a QA loop's count is of iterations while its item
// is a phase of one), "3 done" when the total is unknown; "" for an empty
// position.
func (p Position) Count() string {
	if p.Kind == "" {
		return ""
	}
	s := fmt.Sprintf("%d", p.Done)
	if p.Total > 0 {
		s += fmt.Sprintf("/%d", p.Total)
	}
	if p.Kind == PosIteration {
		s += " iterations"
	}
	return s + " done"
}

// String renders the position, the same text in status, every human block
// and --json: "5/12 done, at T006", "1/3 done, at 02-02", "0/7 done, at
// T001", "2/4 done, at Implementation", "2/5 iterations done, at fix",
// "1/3 done, at wave 2", "4/4 done" (nothing left), "3 done, last: <what>"
// (a work session, which knows no total and no next item); "-" for an
// empty position.
func (p Position) String() string {
	if p.Kind == "" {
		return "-"
	}
	s := p.Count()
	switch {
	case p.At != "":
		s += ", at " + p.At
	case p.Last != "":
		s += ", last: " + p.Last
	}
	return s
}

// QA-loop phase ids, in the order an iteration runs them.
const (
	QAReview   = "review"
	QAFix      = "fix"
	QAEscalate = "escalate"
)

// QAPhase places QA-loop phase id in the definition's phases: its 1-based
// index and the number of phases, with the built-in order (review, fix,
// escalate) when the definition lacks it.
func QAPhase(def Definition, id string) (int, int) {
	if i := def.Index(id); i >= 0 {
		return i + 1, len(def.Phases)
	}
	for i, p := range []string{QAReview, QAFix, QAEscalate} {
		if p == id {
			return i + 1, 3
		}
	}
	return 0, 0
}

// QAVerdict normalises a QA verdict to APPROVE, REJECT or BLOCKED; any
// other non-empty verdict is returned upper-cased.
func QAVerdict(v string) string {
	u := strings.ToUpper(strings.TrimSpace(v))
	switch u {
	case "APPROVE", "APPROVED", "PASS", "PASSED":
		return "APPROVE"
	case "REJECT", "REJECTED", "FAIL", "FAILED", "CHANGES_REQUESTED":
		return "REJECT"
	case "BLOCKED", "BLOCK":
		return "BLOCKED"
	}
	return u
}

// QANext is where a QA loop picks up, from what its state says: the
// iteration and the phase id (QAReview, QAFix, QAEscalate), or "" when the
// loop is over (APPROVE). No verdict yet → that iteration's review; REJECT →
// its fix, or the next iteration's review once the fixes are applied;
// REJECT at the last iteration, BLOCKED or an escalated status → escalate.
// verdict is normalised (APPROVE, REJECT, BLOCKED or ""); unknown verdicts
// count as none. Discovery and the plan both place a QA loop with it.
func QANext(iter, max int, verdict string, fixed, escalated bool) (int, string) {
	if iter <= 0 {
		iter = 1
	}
	switch {
	case verdict == "APPROVE":
		return iter, ""
	case verdict == "BLOCKED" || escalated || (max > 0 && iter > max):
		return iter, QAEscalate
	case verdict == "REJECT" && max > 0 && iter >= max:
		return iter, QAEscalate
	case verdict == "REJECT" && !fixed:
		return iter, QAFix
	case verdict == "REJECT":
		return iter + 1, QAReview
	}
	return iter, QAReview
}

// RefFile is a file a candidate references.
//
// Its two flags stand together after the strings: 72 bytes, not 80 (a
// status of 200 workflows holds 60,000 of them).
type RefFile struct {
	Path     string `json:"path"`               // slash-separated, as written in the source (cleaned)
	Phase    string `json:"phase,omitempty"`    // the phase that needs or produced it
	Hash     string `json:"hash,omitempty"`     // git blob hash recorded by the state, if any
	From     string `json:"from,omitempty"`     // where the reference came from (field name or "file-list")
	Critical bool   `json:"critical"`           // the next phase cannot run without it
	Produced bool   `json:"produced,omitempty"` // an output of a completed phase (vs an input)
}

// StoryRef is a story named by a state file, with the status the state gives it.
type StoryRef struct {
	ID     string `json:"id"`
	Status string `json:"status,omitempty"` // lower-case state vocabulary, e.g. in_progress, done
	Path   string `json:"path,omitempty"`   // story file path when the state records one
	// Executor is the agent the state (or epic plan) assigns the story to, without "@"; "" when unknown.
	Executor string `json:"executor,omitempty"`
}

// Wave is one wave of an epic execution.
type Wave struct {
	Number  int        `json:"number"`
	Status  string     `json:"status"`
	Stories []StoryRef `json:"stories"`
}

// Iteration is one QA-loop round.
type Iteration struct {
	Number  int    `json:"number"`
	Verdict string `json:"verdict"`
	Fixed   bool   `json:"fixed"` // fixes were applied after this review
}

// QALoop is what a QA-loop state says beyond the common fields.
type QALoop struct {
	Iteration     int         `json:"iteration"`
	MaxIterations int         `json:"max_iterations"`
	LastVerdict   string      `json:"last_verdict"`
	History       []Iteration `json:"history,omitempty"`
	FixesApplied  bool        `json:"fixes_applied"` // the last REJECT has had its fixes applied
}

// Epic is what an epic execution state says beyond the common fields.
type Epic struct {
	EpicID      string `json:"epic_id"`
	PlanPath    string `json:"plan_path,omitempty"`
	CurrentWave int    `json:"current_wave"`
	Waves       []Wave `json:"waves"`
}

// Spec is what a spec pipeline says beyond the common fields.
type Spec struct {
	Name       string            `json:"name"`
	Dir        string            `json:"dir"`
	Complexity string            `json:"complexity,omitempty"` // SIMPLE, STANDARD, COMPLEX
	Artifacts  map[string]string `json:"artifacts,omitempty"`  // phase id -> artifact path
	Verdict    string            `json:"verdict,omitempty"`    // the critique verdict, if any
}

// Candidate is one interrupted (or, under --all, not resumable) piece of work.
type Candidate struct {
	ID          string         `json:"id"`
	Type        Type           `json:"type"`
	Key         string         `json:"-"` // the id without its prefix
	Source      SourceRef      `json:"source"`
	Evidence    []SourceRef    `json:"-"` // other sources describing the same work
	BackupPath  string         `json:"-"` // the .bak twin, if any
	Workflow    string         `json:"-"` // workflow definition id (story-development-cycle, …)
	Stories     []string       `json:"stories"`
	StoryRefs   []StoryRef     `json:"-"` // stories with the status the state gives them
	Status      string         `json:"status"`
	StatusRaw   string         `json:"status_raw"`
	Resumable   bool           `json:"resumable"`
	UpdatedAt   time.Time      `json:"updated_at"`
	UpdatedFrom string         `json:"updated_from"` // field:<name>, git:<short hash>, mtime
	StartedAt   time.Time      `json:"-"`
	Position    Position       `json:"-"`
	Phases      []Phase        `json:"-"`
	Files       []RefFile      `json:"-"`
	Commit      string         `json:"-"` // the git commit the state was saved at, when recorded
	Mode        string         `json:"-"` // the mode the workflow was started in
	AISessionID string         `json:"-"`
	Agent       string         `json:"-"` // current agent, when recorded
	Context     map[string]any `json:"-"` // the saved context, for the handoff
	QA          *QALoop        `json:"-"`
	Epic        *Epic          `json:"-"`
	Spec        *Spec          `json:"-"`
	Findings    []Finding      `json:"-"`
	// Framework names the framework and generation that wrote the state
	// ("bmad-v4", "bmad-v6", "speckit-v1", "taskmaster-0.17", "gsd"), when
	// a source knows it.
	Framework string `json:"-"`
	// Resume is where, inside the work, the framework's own files say work
	// stopped (a task line, a subtask, a plan), with the framework's own next
	// command beside it; nil for sources without such a point.
	Resume *ResumePoint `json:"-"`
}

// ResumePoint is the place inside a unit of work where it picks up, as the
// framework's own files tell it, and what the framework itself would do next.
// Every new-framework source fills it; plan, the pre-flight report, --json and
// the handoff envelope carry it as it is.
type ResumePoint struct {
	// Item is the id of the task, subtask, plan or follow-up to resume
	// ("T014", "3.2", "07-02", "AI-Review 1").
	Item string `json:"item"`
	// Title is its text, one line.
	Title string `json:"title"`
	// Section is where it stands (a phase heading, a parent task, a story
	// section), when there is one.
	Section string `json:"section,omitempty"`
	// Labels are the item's own tags ("[P]", "[US1]", "[High]").
	Labels []string `json:"labels,omitempty"`
	// Files are the paths the item names.
	Files []string `json:"files,omitempty"`
	// Done and Total count the unit's closed and all items (ticked tasks,
	// done subtasks, summarised plans); the candidate's position.
	Done  int `json:"done"`
	Total int `json:"total"`
	// Holes lists open items that stand among closed ones.
	Holes []string `json:"holes,omitempty"`
	// Note is the latest progress note or pause record text, one line.
	Note string `json:"note,omitempty"`
	// FrameworkCommand is what to run in the framework to continue
	// ("/speckit.implement", "task-master set-status --id=3.2 --status=in-progress",
	// "/gsd:execute-phase 7", "/bmad dev-story docs/stories/2-4-login.md").
	FrameworkCommand string `json:"framework_command,omitempty"`
	// FrameworkNext is the framework's own answer to "what next" when it
	// has one (Taskmaster's next, BMAD's first ready-for-dev story), and
	// Differs says it is not the item above.
	FrameworkNext string `json:"framework_next,omitempty"`
	Differs       bool   `json:"differs,omitempty"`
	// DiffersWhy says, when Differs, why the framework's answer is not the
	// item above (its own rule, or what it cannot read).
	DiffersWhy string `json:"differs_why,omitempty"`
}

// HasStory reports whether the candidate names story id.
func (c *Candidate) HasStory(id string) bool {
	for _, s := range c.Stories {
		if s == id {
			return true
		}
	}
	return false
}

// Story is a parsed story file.
type Story struct {
	ID          string    `json:"id"`
	Title       string    `json:"title"`
	Path        string    `json:"path"`
	Status      Status    `json:"status"`
	StatusRaw   string    `json:"status_raw"`
	StatusLine  int       `json:"-"`
	Sections    Sections  `json:"-"` // sorted by canonical section name (see Section* constants)
	FileList    []string  `json:"file_list,omitempty"`
	Executor    string    `json:"executor,omitempty"`
	QualityGate string    `json:"quality_gate,omitempty"`
	Epic        string    `json:"epic,omitempty"`
	ModTime     time.Time `json:"-"`
	Findings    []Finding `json:"-"`
	// SectionsTrimmed says Sections hold only the sections whose text a
	// later stage reads (the Change Log, the Dependencies): a scan keeps
	// the others of a story that is not in flight for nothing (see
	// discover/story). A stage that compares every section's hash parses
	// the file afresh.
	SectionsTrimmed bool `json:"-"`
}

// Canonical section names a story yields.
const (
	SectionAcceptance   = "acceptance-criteria"
	SectionScope        = "scope"
	SectionDependencies = "dependencies"
	SectionFileList     = "file-list"
	SectionChangeLog    = "change-log"
	SectionDevNotes     = "dev-notes"
	SectionTasks        = "tasks"
)

// Section is a story section: its canonical name, its raw text and a
// content hash. A scanned story keeps the text of only the sections a later
// stage reads (discover/story's storyScanRaw); every section keeps its hash.
type Section struct {
	Name string      `json:"name"` // canonical section name (see Section* constants)
	Raw  string      `json:"-"`
	Hash SectionHash `json:"hash"` // sha256 of the normalised text
	Line int         `json:"line"` // 1-based line of the heading
}

// SectionHash is the sha256 of a section's normalised text, as 32 bytes
// held in the Section itself (no allocation per section).
type SectionHash [32]byte

// String is the hash in hex, as it prints.
func (h SectionHash) String() string { return hex.EncodeToString(h[:]) }

// MarshalText makes the hash hex in JSON and YAML.
func (h SectionHash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// Sections are a story's sections sorted by name, each name at most once:
// a compact form of a map from name to section (a 20,000-story scan keeps
// one per story).
type Sections []Section

// Index returns the position of section name in ss, or -1.
func (ss Sections) Index(name string) int {
	for i := range ss {
		if ss[i].Name == name {
			return i
		}
	}
	return -1
}

// Get returns the section called name and whether ss has it.
func (ss Sections) Get(name string) (Section, bool) {
	if i := ss.Index(name); i >= 0 {
		return ss[i], true
	}
	return Section{}, false
}

// Set stores sec under sec.Name, replacing a section of that name and
// keeping ss sorted.
func (ss *Sections) Set(sec Section) {
	s := *ss
	i := 0
	for i < len(s) && s[i].Name < sec.Name {
		i++
	}
	if i < len(s) && s[i].Name == sec.Name {
		s[i] = sec
		return
	}
	s = append(s, Section{})
	copy(s[i+1:], s[i:])
	s[i] = sec
	*ss = s
}

// Status is a canonical story status.
type Status string

// Canonical story statuses (workflow/storystatus.go).
const (
	StatusDraft      Status = "Draft"
	StatusReady      Status = "Ready"
	StatusInProgress Status = "InProgress"
	StatusInReview   Status = "InReview"
	StatusDone       Status = "Done"
	StatusBlocked    Status = "Blocked"
	StatusUnknown    Status = "Unknown"
	// StatusBacklog is "not yet specified". Only the sources that have the
	// notion use it (BMAD v6 ledgers, spec-kit, Taskmaster, GSD); a v4
	// story's "backlog" stays Draft.
	StatusBacklog Status = "Backlog"
)

// Definition is a workflow definition: its phases in order.
type Definition struct {
	ID            string     `json:"id"`
	Name          string     `json:"name"`
	Phases        []PhaseDef `json:"phases"`
	MaxIterations int        `json:"max_iterations,omitempty"`
	Source        string     `json:"source"` // file path, or "builtin"
}

// PhaseDef is one phase of a workflow definition.
type PhaseDef struct {
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	Agent    string            `json:"agent"`
	Task     string            `json:"task,omitempty"`
	Next     string            `json:"next,omitempty"`
	Decision map[string]string `json:"decision,omitempty"`
	SkipIf   string            `json:"skip_if,omitempty"`
}

// Index returns the 0-based index of phase id (or name, case-insensitive) in d, or -1.
func (d Definition) Index(idOrName string) int {
	for i, p := range d.Phases {
		if equalFold(p.ID, idOrName) || equalFold(p.Name, idOrName) {
			return i
		}
	}
	return -1
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// Well-known workflow definition ids.
const (
	DefSDC    = "story-development-cycle"
	DefQALoop = "qa-loop"
	DefSpec   = "spec-pipeline"
	DefEpic   = "epic-execution"
)
