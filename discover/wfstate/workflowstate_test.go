package wfstate

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func wfStoryRefSummary(c workflow.Candidate) []string {
	var out []string
	for _, r := range c.StoryRefs {
		out = append(out, r.ID+"="+r.Status)
	}
	sort.Strings(out)
	return out
}

const wfOurs = `execution_id: sdc-2025-06-01-1
workflow: story-development-cycle
started_at: 2025-06-01T09:00:00Z
updated_at: "2025-06-01T10:30:00Z"
current_phase: 3
current_agent: "@dev"
status: interrupted
mode: Preflight
base_commit: 0a1b2c3d
story: "4.2"
phases_completed:
  - {phase: 1, agent: sm, output: docs/stories/4.2.login.md}
  - phase: validate
    agent: "@po"
    output: ["docs/stories/4.2.login.md (Ready)", "validated story (Ready)", "https://ci.example/run/1"]
context:
  request: build the login
  files: [src/login.go]
files:
  - src/auth.go
  - {path: ./src/../src/session.go, hash: 0123abcd}
  - {path: ../outside.txt, blob: 99}
unknown_field: kept
`

const wfCheckpointPaused = `workflow: story-development-cycle
current_story: "3.2"
current_phase: "checkpoint"
paused_at: "2025-06-02T12:00:00Z"
epic_id: "EPIC-3"
epic_progress:
  completed_stories:
    - "3.1"
    - "3.2"
  next_story: "3.3"
  remaining_count: 2
context:
  last_verdict: "PASS"
  last_pr: "https://github.com/acme/app/pull/7"
`

const wfCheckpointAborted = `workflow: story-development-cycle
current_story: "3.2"
current_phase: "checkpoint"
status: "aborted"
aborted_at: "2025-06-02T13:00:00Z"
epic_id: "EPIC-3"
epic_progress:
  completed_stories: ["3.1"]
  aborted_at_story: "3.2"
  remaining_stories: ["3.3", "3.4"]
abort_reason: "User requested abort at checkpoint."
`

const wfAIOS = `workflowId: development-cycle
currentPhase: 3_self_healing
currentStory: docs/stories/5.1.story.md
executor: "@dev"
qualityGate: "@qa"
attemptCount: 1
startedAt: 2025-06-03T08:00:00.000Z
lastUpdated: 2025-06-03T09:00:00.000Z
phaseResults:
  2_development:
    status: completed
    outputs: [src/a.ts, src/b.ts]
  1_validation:
    status: completed
    output: docs/stories/5.1.story.md
accumulatedContext: {}
`

const wfAIOX = `workflow_id: qa-loop
story_id: 2.1
current_phase: fix
status: In Progress
last_updated: 2025-06-04T08:00:00Z
steps:
  - {id: review, status: completed, agent: qa, output: docs/qa/2.1-review-1.md}
  - {id: fix, status: running, agent: dev}
files_changed: [src/x.go, src/y.go]
artifacts:
  - path: docs/qa/gates/2.1.yml
  - docs/qa/2.1-notes.md
`

const wfSession = `session_state:
  version: "1.2"
  last_updated: "2025-06-05T10:00:00Z"
  epic: {id: EPIC-7, title: Payments, total_stories: 3}
  progress:
    current_story: "7.2"
    stories_done: ["7.1"]
    stories_pending: ["7.2", "7.3"]
  workflow:
    current_phase: development
    attempt_count: 0
    phase_results:
      validation: {status: completed}
    started_at: "2025-06-05T09:00:00Z"
  last_action: {type: PAUSE, timestamp: "2025-06-05T10:00:00Z", story: "7.2", phase: development}
  context_snapshot: {files_modified: 0, last_executor: dev, branch: main}
`

const wfUnknownWorkflow = `execution_id: bf-1
workflow: brownfield-discovery
status: active
current_phase: draft-assessment
phases_completed:
  - {phase: architecture-scan, agent: architect, output: docs/architecture.md}
`

func TestParseWorkflowStateLayouts(t *testing.T) {
	tests := []struct {
		name      string
		path      string
		yaml      string
		id        string
		typ       workflow.Type
		wf        string
		status    string
		raw       string
		resumable bool
		pos       workflow.Position
		completed []string
		files     []string
		stories   []string
		refs      []string
		updated   string
		from      string
		check     func(t *testing.T, c workflow.Candidate)
	}{
		{
			name: "ours", path: ".orchestrate/workflows/sdc-2025-06-01-1.yaml", yaml: wfOurs,
			id: "workflow:sdc-2025-06-01-1", typ: workflow.TypeSDC, wf: workflow.DefSDC,
			status: "interrupted", raw: "interrupted", resumable: true,
			pos:       workflow.PhasePosition(3, 4, "Implementation"),
			completed: []string{"create", "validate"},
			files: []string{
				"../outside.txt[#99@implement]",
				"docs/stories/4.2.login.md[cp@create]",
				"src/auth.go[@implement]",
				"src/login.go[@implement]",
				"src/session.go[#0123abcd@implement]",
			},
			stories: []string{"4.2"}, refs: []string{"4.2="},
			updated: "2025-06-01T10:30:00Z", from: "field:updated_at",
			check: func(t *testing.T, c workflow.Candidate) {
				if c.Mode != "preflight" || c.Commit != "0a1b2c3d" || c.Agent != "dev" || c.Key != "sdc-2025-06-01-1" {
					t.Errorf("mode=%q commit=%q agent=%q key=%q", c.Mode, c.Commit, c.Agent, c.Key)
				}
				if !c.StartedAt.Equal(sourcetest.MustTime(t, "2025-06-01T09:00:00Z")) {
					t.Errorf("started = %v", c.StartedAt)
				}
				if c.Context["request"] != "build the login" {
					t.Errorf("context = %v", c.Context)
				}
				if p := c.Phases[1]; p.Agent != "po" || !reflect.DeepEqual(p.Outputs, []string{"docs/stories/4.2.login.md (Ready)", "validated story (Ready)", "https://ci.example/run/1"}) {
					t.Errorf("validate phase = %+v", p)
				}
				if c.Source != (workflow.SourceRef{Kind: workflow.KindWorkflowState, Path: ".orchestrate/workflows/sdc-2025-06-01-1.yaml", Priority: 3}) {
					t.Errorf("source = %+v", c.Source)
				}
				if len(c.Findings) != 0 {
					t.Errorf("findings = %v", c.Findings)
				}
			},
		},
		{
			name: "nexos checkpoint paused", path: ".nexos/workflow-state/EPIC-3-state.yaml", yaml: wfCheckpointPaused,
			id: "workflow:story-development-cycle-3.2", typ: workflow.TypeSDC, wf: workflow.DefSDC,
			status: "paused", raw: "", resumable: true,
			pos:       workflow.PhasePosition(5, 5, "Story Checkpoint"),
			completed: []string{"create", "validate", "implement", "review"},
			stories:   []string{"3.1", "3.2", "3.3"}, refs: []string{"3.1=done", "3.2=done", "3.3=pending"},
			updated: "2025-06-02T12:00:00Z", from: "field:paused_at",
			check: func(t *testing.T, c workflow.Candidate) {
				if c.Agent != "po" || c.Context["last_pr"] != "https://github.com/acme/app/pull/7" {
					t.Errorf("agent=%q context=%v", c.Agent, c.Context)
				}
			},
		},
		{
			name: "nexos checkpoint aborted", path: ".nexos/workflow-state/EPIC-3-state.yaml", yaml: wfCheckpointAborted,
			id: "workflow:story-development-cycle-3.2", typ: workflow.TypeSDC, wf: workflow.DefSDC,
			status: "aborted", raw: "aborted", resumable: false,
			pos:       workflow.PhasePosition(5, 5, "Story Checkpoint"),
			completed: []string{"create", "validate", "implement", "review"},
			stories:   []string{"3.1", "3.2", "3.3", "3.4"}, refs: []string{"3.1=done", "3.2=", "3.3=pending", "3.4=pending"},
			updated: "2025-06-02T13:00:00Z", from: "field:aborted_at",
		},
		{
			name: "aios workflow state", path: ".aios/workflow-state/5.1-state.yaml", yaml: wfAIOS,
			id: "workflow:development-cycle-5.1", typ: workflow.TypeSDC, wf: "development-cycle",
			status: "unknown", resumable: true,
			pos:       workflow.PhasePosition(3, 6, "self_healing"),
			completed: []string{"validation", "development"},
			files: []string{
				"docs/stories/5.1.story.md[cp@validation]",
				"src/a.ts[cp@development]",
				"src/b.ts[cp@development]",
			},
			stories: []string{"5.1"}, refs: []string{"5.1="},
			updated: "2025-06-03T09:00:00Z", from: "field:lastUpdated",
			check: func(t *testing.T, c workflow.Candidate) {
				if !sourcetest.HasFinding(c.Findings, "no-status", workflow.Info) {
					t.Errorf("want a no-status info finding, got %v", c.Findings)
				}
				if c.Agent != "dev" || c.StoryRefs[0].Path != "docs/stories/5.1.story.md" {
					t.Errorf("agent=%q refs=%+v", c.Agent, c.StoryRefs)
				}
			},
		},
		{
			name: "aiox tolerant", path: ".aiox/qa-2.1-state.yaml", yaml: wfAIOX,
			id: "workflow:qa-loop-2.1", typ: workflow.TypeQALoop, wf: workflow.DefQALoop,
			status: "in_progress", raw: "In Progress", resumable: true,
			pos:       workflow.PhasePosition(2, 3, "Apply Fixes"),
			completed: []string{"review"},
			files: []string{
				"docs/qa/2.1-notes.md[@fix]",
				"docs/qa/2.1-review-1.md[cp@review]",
				"docs/qa/gates/2.1.yml[@fix]",
				"src/x.go[@fix]",
				"src/y.go[@fix]",
			},
			stories: []string{"2.1"}, refs: []string{"2.1="},
			updated: "2025-06-04T08:00:00Z", from: "field:last_updated",
		},
		{
			name: "aios session state", path: "docs/stories/.session-state.yaml", yaml: wfSession,
			id: "workflow:development-cycle-7.2", typ: workflow.TypeSDC, wf: "development-cycle",
			status: "paused", resumable: true,
			pos:       workflow.PhasePosition(2, 6, "development"),
			completed: []string{"validation"},
			stories:   []string{"7.1", "7.2", "7.3"}, refs: []string{"7.1=done", "7.2=pending", "7.3=pending"},
			updated: "2025-06-05T10:00:00Z", from: "field:last_updated",
			check: func(t *testing.T, c workflow.Candidate) {
				if c.Context["branch"] != "main" || !c.StartedAt.Equal(sourcetest.MustTime(t, "2025-06-05T09:00:00Z")) {
					t.Errorf("context=%v started=%v", c.Context, c.StartedAt)
				}
			},
		},
		{
			name: "unknown workflow builds phases from the record", path: ".orchestrate/workflows/bf-1.yaml", yaml: wfUnknownWorkflow,
			id: "workflow:bf-1", typ: workflow.TypeWorkflow, wf: "brownfield-discovery",
			status: "active", raw: "active", resumable: true,
			pos:       workflow.PhasePosition(2, 0, "draft-assessment"),
			completed: []string{"architecture-scan"},
			files:     []string{"docs/architecture.md[cp@architecture-scan]"},
			stories:   []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fs := ParseWorkflowState(tt.path, []byte(tt.yaml), nil)
			if !reflect.DeepEqual(fs, c.Findings) {
				t.Errorf("returned findings differ from the candidate's")
			}
			if c.ID != tt.id || c.Type != tt.typ || c.Workflow != tt.wf {
				t.Errorf("id=%q type=%q workflow=%q, want %q %q %q", c.ID, c.Type, c.Workflow, tt.id, tt.typ, tt.wf)
			}
			if c.Status != tt.status || c.StatusRaw != tt.raw || c.Resumable != tt.resumable {
				t.Errorf("status=%q raw=%q resumable=%v, want %q %q %v", c.Status, c.StatusRaw, c.Resumable, tt.status, tt.raw, tt.resumable)
			}
			if c.Position != tt.pos {
				t.Errorf("position = %+v, want %+v", c.Position, tt.pos)
			}
			if got := sourcetest.PhasesWith(c, workflow.PhaseCompleted); !reflect.DeepEqual(got, tt.completed) {
				t.Errorf("completed = %v, want %v", got, tt.completed)
			}
			if got := sourcetest.FileSummary(c); !reflect.DeepEqual(got, tt.files) {
				t.Errorf("files = %#v\nwant    %#v", got, tt.files)
			}
			if !reflect.DeepEqual(c.Stories, tt.stories) {
				t.Errorf("stories = %#v, want %#v", c.Stories, tt.stories)
			}
			if tt.refs != nil && !reflect.DeepEqual(wfStoryRefSummary(c), tt.refs) {
				t.Errorf("story refs = %v, want %v", wfStoryRefSummary(c), tt.refs)
			}
			if tt.updated != "" && (!c.UpdatedAt.Equal(sourcetest.MustTime(t, tt.updated)) || c.UpdatedFrom != tt.from) {
				t.Errorf("updated = %v from %q, want %s from %q", c.UpdatedAt, c.UpdatedFrom, tt.updated, tt.from)
			}
			if tt.check != nil {
				tt.check(t, c)
			}
			again, _ := ParseWorkflowState(tt.path, []byte(tt.yaml), nil)
			if !reflect.DeepEqual(c, again) {
				t.Errorf("parsing twice gives different candidates")
			}
		})
	}
}

func TestParseWorkflowStateCurrentPhase(t *testing.T) {
	tests := []struct {
		current   string
		pos       workflow.Position
		current2  string // id of the phase marked current
		completed []string
		skipped   []string
	}{
		{"2", workflow.PhasePosition(2, 4, "Story Validation"), "validate", []string{"create"}, nil},
		{"implement", workflow.PhasePosition(3, 4, "Implementation"), "implement", []string{"create"}, []string{"validate"}},
		{"Implementation", workflow.PhasePosition(3, 4, "Implementation"), "implement", []string{"create"}, []string{"validate"}},
		{"'4'", workflow.PhasePosition(4, 4, "QA Gate"), "review", []string{"create"}, []string{"validate", "implement"}},
		{"Phase 3", workflow.PhasePosition(3, 4, "Implementation"), "implement", []string{"create"}, []string{"validate"}},
		{"4_review", workflow.PhasePosition(4, 4, "QA Gate"), "review", []string{"create"}, []string{"validate", "implement"}},
		// a phase the definition does not know: the phases come from the record
		{"3_self_healing", workflow.PhasePosition(3, 0, "self_healing"), "3_self_healing", []string{"create"}, nil},
		// absent: the phase after the last completed one
		{"", workflow.PhasePosition(2, 4, "Story Validation"), "validate", []string{"create"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.current, func(t *testing.T) {
			y := "execution_id: x\nworkflow: sdc\nstatus: paused\nphases_completed:\n  - phase: create\n"
			if tt.current != "" {
				y += "current_phase: " + tt.current + "\n"
			}
			c, _ := ParseWorkflowState("s.yaml", []byte(y), nil)
			if c.Position != tt.pos {
				t.Errorf("position = %+v, want %+v", c.Position, tt.pos)
			}
			if got := sourcetest.PhasesWith(c, workflow.PhaseCurrent); !reflect.DeepEqual(got, []string{tt.current2}) {
				t.Errorf("current = %v, want %v", got, tt.current2)
			}
			if got := sourcetest.PhasesWith(c, workflow.PhaseCompleted); !reflect.DeepEqual(got, tt.completed) {
				t.Errorf("completed = %v, want %v", got, tt.completed)
			}
			if got := sourcetest.PhasesWith(c, workflow.PhaseSkipped); !reflect.DeepEqual(got, tt.skipped) {
				t.Errorf("skipped = %v, want %v", got, tt.skipped)
			}
			if c.Type != workflow.TypeSDC {
				t.Errorf("type = %q", c.Type)
			}
		})
	}
}

func TestParseWorkflowStateStatusAndIDs(t *testing.T) {
	tests := []struct {
		name      string
		yaml      string
		id        string
		typ       workflow.Type
		status    string
		resumable bool
		finding   string
	}{
		{"no status", "workflow: qa-loop\n", "workflow:s", workflow.TypeQALoop, "unknown", true, "no-status"},
		{"completed", "executionId: e-1\nstatus: Completed\n", "workflow:e-1", workflow.TypeWorkflow, "completed", false, ""},
		{"cancelled", "id: 42\nstatus: canceled\n", "workflow:42", workflow.TypeWorkflow, "cancelled", false, ""},
		{"paused_at without status", "workflow: epic-orchestration\npaused_at: 2025-01-01\n", "workflow:s", workflow.TypeEpic, "paused", true, ""},
		{"aborted_at wins", "workflow: execute-epic\nstatus: paused\naborted_at: 2025-01-01\n", "workflow:s", workflow.TypeEpic, "aborted", false, ""},
		{"workflow_paused phase", "workflowId: development-cycle\ncurrentPhase: workflow_paused\n", "workflow:s", workflow.TypeSDC, "paused", true, ""},
		{"spec pipeline", "workflow: spec-pipeline\nstory: 1.2\nstatus: active\n", "workflow:spec-pipeline-1.2", workflow.TypeSpec, "active", true, ""},
		{"unquoted dotted story keeps its text", "workflow: sdc\nstory: 4.10\nstatus: active\n", "workflow:sdc-4.10", workflow.TypeSDC, "active", true, ""},
		{"unsafe id is sanitised", "execution_id: \"../../etc/x y\"\nstatus: active\n", "workflow:etc-x-y", workflow.TypeWorkflow, "active", true, ""},
		{"status wrong type", "status: [a, b]\n", "workflow:s", workflow.TypeWorkflow, "unknown", true, "wrong-type"},
		{"idle is not terminal", "status: idle\n", "workflow:s", workflow.TypeWorkflow, "idle", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := ParseWorkflowState("dir/s.yaml", []byte(tt.yaml), nil)
			if c.ID != tt.id || c.Type != tt.typ || c.Status != tt.status || c.Resumable != tt.resumable {
				t.Errorf("got id=%q type=%q status=%q resumable=%v", c.ID, c.Type, c.Status, c.Resumable)
			}
			if c.Key != strings.TrimPrefix(c.ID, "workflow:") {
				t.Errorf("key %q does not match id %q", c.Key, c.ID)
			}
			if tt.finding != "" && !sourcetest.HasFinding(c.Findings, tt.finding, "") {
				t.Errorf("want finding %q, got %v", tt.finding, c.Findings)
			}
		})
	}
}

func TestParseWorkflowStateCustomDefinition(t *testing.T) {
	def := workflow.Definition{ID: "brownfield-discovery", Phases: []workflow.PhaseDef{
		{ID: "architecture-scan", Name: "Architecture Scan", Agent: "architect"},
		{ID: "draft-assessment", Name: "Draft Assessment", Agent: "architect"},
		{ID: "qa-review", Name: "QA Review", Agent: "qa"},
	}}
	defs := func(id string) workflow.Definition {
		if id == def.ID {
			return def
		}
		return workflow.Definition{}
	}
	c, _ := ParseWorkflowState("bf.yaml", []byte(wfUnknownWorkflow), defs)
	if want := (workflow.PhasePosition(2, 3, "Draft Assessment")); c.Position != want {
		t.Errorf("position = %+v, want %+v", c.Position, want)
	}
	if c.Agent != "architect" || c.Workflow != "brownfield-discovery" {
		t.Errorf("agent=%q workflow=%q", c.Agent, c.Workflow)
	}
	if got := sourcetest.PhasesWith(c, workflow.PhasePending); !reflect.DeepEqual(got, []string{"qa-review"}) {
		t.Errorf("pending = %v", got)
	}
}

func TestParseWorkflowStateWrongTypes(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string // finding codes
	}{
		{"phases_completed number", "status: active\nworkflow: sdc\nphases_completed: 5\n", []string{"wrong-type"}},
		{"files mapping of numbers", "status: active\nfiles: {a: 1}\n", []string{"wrong-type"}},
		{"files text that is no path", "status: active\nfiles: some words here\n", []string{"wrong-type"}},
		{"files items", "status: active\nfiles: [[x], {hash: 1}, 7]\n", []string{"wrong-type", "wrong-type"}},
		{"current_phase mapping", "status: active\ncurrent_phase: {a: 1}\n", []string{"wrong-type"}},
		{"context list", "status: active\ncontext: [1]\n", []string{"wrong-type"}},
		{"updated_at garbage", "status: active\nupdated_at: yesterday\n", []string{"wrong-type"}},
		{"story list of lists", "status: active\nstories: [[1]]\n", []string{"wrong-type"}},
		{"output mapping", "status: active\nworkflow: sdc\nphases_completed: [{phase: 1, output: {x: 1}}]\n", []string{"wrong-type"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := ParseWorkflowState("w.yaml", []byte(tt.yaml), nil)
			var codes []string
			for _, f := range c.Findings {
				if f.Severity == workflow.Blocking {
					t.Errorf("blocking finding for a wrong type: %+v", f)
				}
				if f.Path != "w.yaml" {
					t.Errorf("finding path = %q", f.Path)
				}
				codes = append(codes, f.Code)
			}
			if !reflect.DeepEqual(codes, tt.want) {
				t.Errorf("codes = %v, want %v (%v)", codes, tt.want, c.Findings)
			}
			if c.Status != "active" || !c.Resumable {
				t.Errorf("status=%q resumable=%v", c.Status, c.Resumable)
			}
		})
	}
	c, _ := ParseWorkflowState("w.yaml", []byte("status: active\nfiles: {created: [a.go], modified: [b.go], deleted: [c.go]}\n"), nil)
	if got := sourcetest.FileSummary(c); !reflect.DeepEqual(got, []string{"a.go[]", "b.go[]"}) {
		t.Errorf("files by category = %v", got)
	}
}

func TestParseWorkflowStateBadInput(t *testing.T) {
	tests := []struct {
		name string
		data string
		code string
	}{
		{"malformed", "status: [active\n", "syntax"},
		{"truncated", "execution_id: x\nphases_completed:\n  - {phase: 1, output: \"a", "syntax"},
		{"empty", "", "empty"},
		{"top-level list", "- a\n- b\n", "not-a-mapping"},
		{"scalar", "just text", "not-a-mapping"},
		{"invalid utf8", "status: \xff\xfe\n", "invalid-utf8"},
		{"binary", "\x00\x01\x02\x89PNG", "syntax"},
		{"alias bomb", sourcetest.AliasBomb(), "alias-bomb"},
		{"json garbage", "{\"status\": ", "syntax"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fs := ParseWorkflowState(".aios/workflow-state/broken-state.yaml", []byte(tt.data), nil)
			if c.ID != "workflow:broken-state" || c.Status != "unreadable" || !c.Resumable || c.Type != workflow.TypeWorkflow {
				t.Errorf("candidate = %+v", c)
			}
			if len(fs) != 1 || fs[0].Severity != workflow.Blocking || fs[0].Check != workflow.CheckParse || fs[0].Path != ".aios/workflow-state/broken-state.yaml" {
				t.Fatalf("findings = %+v", fs)
			}
			if fs[0].Code != tt.code && !(tt.name == "binary" && fs[0].Code == "invalid-utf8") {
				t.Errorf("code = %q (%s), want %q", fs[0].Code, fs[0].Message, tt.code)
			}
		})
	}
}

func TestWorkflowStateSourceScan(t *testing.T) {
	root := t.TempDir()
	sourcetest.Write(t, root, map[string]string{
		".orchestrate/workflows/sdc-2025-06-01-1.yaml":     wfOurs,
		".orchestrate/workflows/sdc-2025-06-01-1.yaml.bak": wfOurs,
		".nexos/workflow-state/EPIC-3-state.yaml":          wfCheckpointPaused,
		".nexos/workflow-state/bad.yaml":                   "status: \x00\x01binary",
		".aiox/epic-ACT-state.yaml":                        "epic_state: {epic_id: ACT, status: active}\n",
		".aiox/epic-B-state.yaml":                          "workflowId: development-cycle\nstatus: running\n", // the epic glob's, whatever it holds
		".aiox/custom-state.yaml":                          "epic_state:\n  epic_id: X\n",
		".aiox/dev-state.yaml":                             "workflowId: development-cycle\ncurrentPhase: 2_development\nstoryId: \"4.2\"\n",
		"docs/stories/.session-state.yaml":                 wfSession,
		"docs/stories/4.2.login.md":                        "# Story 4.2: Login\n",
	})
	mtime := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(root, ".aiox", "dev-state.yaml"), mtime, mtime); err != nil {
		t.Fatal(err)
	}
	r, _ := source.NewRepo(root, config.Default())
	r.Stories["4.2"] = &workflow.Story{ID: "4.2", Path: "docs/stories/4.2.login.md"}
	r.Stories["7.1"] = &workflow.Story{ID: "7.1", Path: "docs/stories/7.1.a.md"}
	src := WorkflowStateSource
	if src.Kind() != workflow.KindWorkflowState || src.Priority() != 3 {
		t.Errorf("kind=%q priority=%d", src.Kind(), src.Priority())
	}
	cs, fs := src.Scan(r)
	if len(fs) != 0 {
		t.Errorf("source findings = %v", fs)
	}
	byPath := map[string]workflow.Candidate{}
	var paths []string
	for _, c := range cs {
		byPath[c.Source.Path] = c
		paths = append(paths, c.Source.Path)
	}
	want := []string{
		".aiox/dev-state.yaml",
		".nexos/workflow-state/EPIC-3-state.yaml",
		".nexos/workflow-state/bad.yaml",
		".orchestrate/workflows/sdc-2025-06-01-1.yaml",
		"docs/stories/.session-state.yaml",
	}
	if !reflect.DeepEqual(paths, want) {
		t.Fatalf("candidates from %v, want %v", paths, want)
	}
	ours := byPath[".orchestrate/workflows/sdc-2025-06-01-1.yaml"]
	if ours.BackupPath != ".orchestrate/workflows/sdc-2025-06-01-1.yaml.bak" {
		t.Errorf("backup = %q", ours.BackupPath)
	}
	if f := sourcetest.FileSummary(ours); f[1] != "docs/stories/4.2.login.md[cp@create]" || ours.StoryRefs[0].Path != "docs/stories/4.2.login.md" {
		t.Errorf("story file = %v, refs %+v", f, ours.StoryRefs)
	}
	dev := byPath[".aiox/dev-state.yaml"]
	if !dev.UpdatedAt.Equal(mtime) || dev.UpdatedFrom != "mtime" || dev.ID != "workflow:development-cycle-4.2" {
		t.Errorf("dev: updated %v from %q id %q", dev.UpdatedAt, dev.UpdatedFrom, dev.ID)
	}
	if got := sourcetest.FileSummary(dev); !reflect.DeepEqual(got, []string{"docs/stories/4.2.login.md[c@development]"}) {
		t.Errorf("dev files = %v", got)
	}
	bad := byPath[".nexos/workflow-state/bad.yaml"]
	if bad.Status != "unreadable" || !bad.Resumable || bad.ID != "workflow:bad" || !sourcetest.HasFinding(bad.Findings, "binary", workflow.Blocking) || bad.UpdatedFrom != "mtime" {
		t.Errorf("bad = %+v", bad)
	}
	session := byPath["docs/stories/.session-state.yaml"]
	if got := sourcetest.FileSummary(session); !reflect.DeepEqual(got, []string{"docs/stories/7.1.a.md[@development]"}) {
		t.Errorf("session files = %v (a done story is not critical)", got)
	}
	again, _ := src.Scan(r)
	if !reflect.DeepEqual(cs, again) {
		t.Errorf("scan is not deterministic")
	}
	// the scan adds the story files to what Build just made without
	// checking its files (source.AddToSorted): as FinishScan, which checks
	for _, c := range cs {
		if c.Status == "unreadable" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, c.Source.Path))
		if err != nil {
			t.Fatal(err)
		}
		m, err := tolerant.DecodeYAMLMap(data)
		if err != nil {
			t.Fatal(err)
		}
		checked := Build(c.Source.Path, m, r.Definition)
		FinishScan(r, &checked, c.Source.Path)
		if !reflect.DeepEqual(checked, c) {
			t.Errorf("%s: FinishScan gives\n%+v\nthe scan\n%+v", c.Source.Path, checked, c)
		}
	}
}

func TestWfModeAndOutputs(t *testing.T) {
	modes := map[string]string{"Pre-Flight": "preflight", "YOLO": "autopilot", "interactive": "interactive", "": "", "Custom": "custom"}
	for in, want := range modes {
		if got := source.Mode(in); got != want {
			t.Errorf("Mode(%q) = %q, want %q", in, got, want)
		}
	}
	outs := []struct {
		in, want string
		ok       bool
	}{
		{"docs/stories/4.2.md (Draft)", "docs/stories/4.2.md", true},
		{"`spec.md` - revised", "spec.md", true},
		{"src\\win\\path.go", "src\\win\\path.go", true},
		{"Code + tests (InProgress)", "Code + tests", false},
		{"QA verdict PASS", "QA verdict PASS", false},
		{"https://github.com/a/b/pull/1", "https://github.com/a/b/pull/1", false},
		{"note: see docs/x.md", "note: see docs/x.md", false},
		{"README", "README", false},
	}
	for _, o := range outs {
		got, ok := refpath.Output(o.in)
		if got != o.want || ok != o.ok {
			t.Errorf("Output(%q) = %q %v, want %q %v", o.in, got, ok, o.want, o.ok)
		}
	}
}

func TestParseWorkflowStateManyFiles(t *testing.T) {
	var b strings.Builder
	b.WriteString("status: active\nfiles:\n")
	for i := 0; i < source.MaxFiles+50; i++ {
		b.WriteString("  - src/f" + strconv.Itoa(i) + ".go\n")
	}
	b.WriteString("files_changed: [src/f1.go, ./src/f1.go]\n")
	start := time.Now()
	c, _ := ParseWorkflowState("big.yaml", []byte(b.String()), nil)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("parsing %d files took %v", source.MaxFiles+50, d)
	}
	if len(c.Files) != source.MaxFiles || !sourcetest.HasFinding(c.Findings, "too-many-files", workflow.Warning) {
		t.Errorf("%d files, findings %v", len(c.Files), c.Findings)
	}
	if !sort.SliceIsSorted(c.Files, func(i, j int) bool { return c.Files[i].Path < c.Files[j].Path }) {
		t.Errorf("files not sorted")
	}
}

func FuzzParseWorkflowState(f *testing.F) {
	for _, s := range []string{wfOurs, wfCheckpointPaused, wfCheckpointAborted, wfAIOS, wfAIOX, wfSession, wfUnknownWorkflow, "status: [active\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, fs := ParseWorkflowState("x/state.yaml", data, nil)
		sourcetest.CheckCandidate(t, c, fs, "workflow:", len(data))
		again, _ := ParseWorkflowState("x/state.yaml", data, nil)
		if !reflect.DeepEqual(c, again) {
			t.Fatalf("not deterministic")
		}
	})
}
