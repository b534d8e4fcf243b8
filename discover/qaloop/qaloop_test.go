package qaloop

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func qaPhaseSummary(c workflow.Candidate) string {
	var out []string
	for _, p := range c.Phases {
		out = append(out, p.ID+":"+p.Status)
	}
	return strings.Join(out, " ")
}

func TestParseQALoop(t *testing.T) {
	tests := []struct {
		name      string
		path      string
		data      string
		id        string
		status    string
		resumable bool
		iter, max int
		verdict   string
		fixed     bool
		phases    string
		findings  []string // codes expected (in any order), nil = none
		check     func(t *testing.T, c workflow.Candidate)
	}{
		{
			name: "AIOS camelCase",
			path: "qa/loop-status.json",
			data: `{"storyId": "4.2", "currentIteration": 2, "maxIterations": 5, "status": "in_progress",
				"startedAt": "2025-03-01T09:00:00Z", "updatedAt": "2025-03-01T10:30:00Z",
				"history": [
					{"iteration": 1, "reviewedAt": "2025-03-01T09:10:00Z", "verdict": "REJECT", "issuesFound": 3, "fixedAt": "2025-03-01T09:50:00Z", "issuesFixed": 3},
					{"iteration": 2, "reviewedAt": "2025-03-01T10:30:00Z", "verdict": "reject", "issuesFound": 1, "fixedAt": null, "issuesFixed": null}
				]}`,
			id: "qa-loop:4.2", status: "in_progress", resumable: true, iter: 2, max: 5, verdict: "REJECT", fixed: false,
			phases: "review:completed fix:current escalate:pending",
			check: func(t *testing.T, c workflow.Candidate) {
				if c.UpdatedFrom != "field:updatedAt" || !c.UpdatedAt.Equal(time.Date(2025, 3, 1, 10, 30, 0, 0, time.UTC)) {
					t.Errorf("updated %v %q", c.UpdatedAt, c.UpdatedFrom)
				}
				if !c.StartedAt.Equal(time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)) {
					t.Errorf("started %v", c.StartedAt)
				}
				want := []workflow.Iteration{{Number: 1, Verdict: "REJECT", Fixed: true}, {Number: 2, Verdict: "REJECT"}}
				if !reflect.DeepEqual(c.QA.History, want) {
					t.Errorf("history %+v", c.QA.History)
				}
				if c.Position.String() != "1/5 iterations done, at fix" {
					t.Errorf("position %q", c.Position.String())
				}
				if !reflect.DeepEqual(c.Stories, []string{"4.2"}) || !reflect.DeepEqual(c.StoryRefs, []workflow.StoryRef{{ID: "4.2", Status: "in_review"}}) {
					t.Errorf("stories %v %+v", c.Stories, c.StoryRefs)
				}
				if c.Source != (workflow.SourceRef{Kind: workflow.KindQALoop, Path: "qa/loop-status.json", Priority: 2}) || c.Workflow != workflow.DefQALoop || c.Type != workflow.TypeQALoop {
					t.Errorf("source %+v", c.Source)
				}
				if c.Phases[1].Agent != "dev" || c.Phases[0].Name != "QA Review" {
					t.Errorf("phases %+v", c.Phases)
				}
			},
		},
		{
			name: "AIOS iteration and lastVerdict spelling, fixes applied",
			path: "qa/4.3/loop-status.json",
			data: `{"storyId": "4.3", "iteration": 3, "status": "stopped", "lastVerdict": "reject",
				"history": [{"iteration": 3, "verdict": "REJECT", "fixedAt": "2025-03-02T10:00:00Z"}]}`,
			id: "qa-loop:4.3", status: "stopped", resumable: true, iter: 3, max: 5, verdict: "REJECT", fixed: true,
			phases: "review:current fix:completed escalate:pending",
		},
		{
			name: "snake_case with iterations and fixes_applied",
			path: "qa/loop-status.json",
			data: `{"story_id": "7.1", "current_iteration": 1, "max_iterations": 3, "status": "Paused", "last_verdict": "REJECT",
				"last_updated": "2025-04-01 12:00:00", "started_at": "2025-04-01T11:00:00Z",
				"iterations": [{"iteration": 1, "verdict": "REJECT", "fixes_applied": true}],
				"files_changed": ["src/x.go"], "gate_file": "qa/gates/7.1-gate.yml"}`,
			id: "qa-loop:7.1", status: "paused", resumable: true, iter: 1, max: 3, verdict: "REJECT", fixed: true,
			phases: "review:current fix:completed escalate:pending",
			check: func(t *testing.T, c workflow.Candidate) {
				if c.UpdatedFrom != "field:last_updated" {
					t.Errorf("updated from %q", c.UpdatedFrom)
				}
				if f, ok := sourcetest.File(c, "src/x.go"); !ok || f.Critical || f.From != "files_changed" {
					t.Errorf("files %+v", c.Files)
				}
				if f, ok := sourcetest.File(c, "qa/gates/7.1-gate.yml"); !ok || f.Critical || !f.Produced || f.From != "gate_file" {
					t.Errorf("gate %+v", c.Files)
				}
			},
		},
		{
			name: "snake_case iteration spelling, updated_at, history gate files",
			path: "qa/loop-status.json",
			data: `{"story_id": "7.2", "iteration": 2, "status": "running", "updated_at": "2025-04-02T00:00:00Z",
				"history": [{"iteration": 2, "verdict": "BLOCKED", "fixed_at": null, "gate_file": "qa/gates/7.2-b.yml"},
				            {"iteration": 1, "verdict": "REJECT", "fixed_at": "2025-04-01T00:00:00Z", "gate_file": "qa/gates/7.2-a.yml"}]}`,
			id: "qa-loop:7.2", status: "running", resumable: true, iter: 2, max: 5, verdict: "BLOCKED", fixed: false,
			phases: "review:completed fix:completed escalate:current",
			check: func(t *testing.T, c workflow.Candidate) {
				if c.QA.History[0].Number != 1 || c.QA.History[1].Verdict != "BLOCKED" {
					t.Errorf("history not sorted: %+v", c.QA.History)
				}
				if len(c.Files) != 2 || c.Files[0].From != "history[].gate_file" {
					t.Errorf("files %+v", c.Files)
				}
			},
		},
		{
			name: "wrapped qaLoop with story object",
			path: ".aiox/dashboard/loop-status.json",
			data: `{"story": {"id": "2.1", "path": "docs/stories/2.1.story.md"}, "lastIssuesFound": 4,
				"qaLoop": {"currentIteration": 4, "maxIterations": 4, "status": "escalated", "updatedAt": "2025-05-01T00:00:00Z",
				           "history": [{"iteration": 4, "verdict": "REJECT", "issuesFixed": 2}]}}`,
			id: "qa-loop:2.1", status: "escalated", resumable: true, iter: 4, max: 4, verdict: "REJECT", fixed: true,
			phases: "review:completed fix:completed escalate:current",
			check: func(t *testing.T, c workflow.Candidate) {
				if len(c.Files) != 1 || c.Files[0] != (workflow.RefFile{Path: "docs/stories/2.1.story.md", Phase: "review", Critical: true, From: "story.path"}) {
					t.Errorf("files %+v", c.Files)
				}
				if c.StoryRefs[0].Path != "docs/stories/2.1.story.md" {
					t.Errorf("refs %+v", c.StoryRefs)
				}
			},
		},
		{
			name: "wrapped qa_loop snake_case",
			path: "qa/loop-status.json",
			data: `{"qa_loop": {"story_id": "3.3", "current_iteration": 1, "status": "in-progress"}, "updated_at": "2025-05-02T00:00:00Z"}`,
			id:   "qa-loop:3.3", status: "in_progress", resumable: true, iter: 1, max: 5,
			phases: "review:current fix:pending escalate:pending",
			check: func(t *testing.T, c workflow.Candidate) {
				if c.UpdatedFrom != "field:updated_at" {
					t.Errorf("sibling fields are fallbacks: %q", c.UpdatedFrom)
				}
			},
		},
		{
			name: "wrapped loop with story text",
			path: "qa/loop-status.json",
			data: `{"story": "3.4", "loop": {"iteration": 2, "status": "completed", "lastVerdict": "approve"}}`,
			id:   "qa-loop:3.4", status: "completed", resumable: false, iter: 2, max: 5, verdict: "APPROVE",
			phases: "review:completed fix:skipped escalate:skipped",
			check: func(t *testing.T, c workflow.Candidate) {
				if c.StoryRefs[0].Status != "" {
					t.Errorf("a finished loop gives the story no status: %+v", c.StoryRefs)
				}
			},
		},
		{
			name: "idle is not resumable", path: "qa/loop-status.json",
			data: `{"storyId": "1.1", "status": "idle"}`,
			id:   "qa-loop:1.1", status: "idle", max: 5, phases: "review:current fix:pending escalate:pending",
		},
		{
			name: "pending is not resumable", path: "qa/loop-status.json",
			data: `{"storyId": "1.1", "status": "pending"}`,
			id:   "qa-loop:1.1", status: "pending", max: 5, phases: "review:current fix:pending escalate:pending",
		},
		{
			name: "approved is not resumable", path: "qa/loop-status.json",
			data: `{"storyId": "1.1", "status": "APPROVED", "history": [{"verdict": "APPROVE"}]}`,
			id:   "qa-loop:1.1", status: "approved", max: 5, iter: 1, verdict: "APPROVE", phases: "review:completed fix:skipped escalate:skipped",
		},
		{
			name: "unknown status", path: "qa/loop-status.json",
			data: `{"storyId": "1.1", "status": "waiting-for-godot"}`,
			id:   "qa-loop:1.1", status: "waiting_for_godot", max: 5, phases: "review:current fix:pending escalate:pending",
			findings: []string{"unknown-status"},
		},
		{
			name: "no status", path: "qa/loop-status.json",
			data: `{"storyId": "1.1"}`,
			id:   "qa-loop:1.1", max: 5, phases: "review:current fix:pending escalate:pending",
			findings: []string{"unknown-status"},
		},
		{
			name: "active counts as running", path: "qa/loop-status.json",
			data: `{"storyId": "1.1", "status": "active", "currentIteration": 6, "maxIterations": 5}`,
			id:   "qa-loop:1.1", status: "active", resumable: true, iter: 6, max: 5, phases: "review:pending fix:pending escalate:current",
		},
		{
			name: "no story id: folder name", path: "qa/5.5/loop-status.json",
			data: `{"status": "in_progress"}`,
			id:   "qa-loop:5.5", status: "in_progress", resumable: true, max: 5, phases: "review:current fix:pending escalate:pending",
			findings: []string{"no-story-id"},
			check: func(t *testing.T, c workflow.Candidate) {
				if len(c.Stories) != 0 {
					t.Errorf("no story is claimed: %v", c.Stories)
				}
			},
		},
		{
			name: "no story id: file stem", path: "qa/loop-status.json",
			data: `{"status": "in_progress"}`,
			id:   "qa-loop:loop-status", status: "in_progress", resumable: true, max: 5, phases: "review:current fix:pending escalate:pending",
			findings: []string{"no-story-id"},
		},
		{
			name: "currentIteration of wrong type falls back on history", path: "qa/loop-status.json",
			data: `{"storyId": "1.2", "status": "in_progress", "currentIteration": "abc", "history": [{"iteration": 2, "verdict": "REJECT", "fixes_applied": 1}]}`,
			id:   "qa-loop:1.2", status: "in_progress", resumable: true, iter: 2, max: 5, verdict: "REJECT", fixed: true,
			phases: "review:current fix:completed escalate:pending", findings: []string{"wrong-type"},
		},
		{
			name: "history as a mapping", path: "qa/loop-status.json",
			data: `{"storyId": "1.3", "status": "in_progress", "currentIteration": 1, "history": {}}`,
			id:   "qa-loop:1.3", status: "in_progress", resumable: true, iter: 1, max: 5,
			phases: "review:current fix:pending escalate:pending", findings: []string{"wrong-type"},
		},
		{
			name: "history items of wrong type", path: "qa/loop-status.json",
			data: `{"storyId": "1.4", "status": "in_progress", "history": ["REJECT", {"verdict": "REJECT"}], "maxIterations": "x"}`,
			id:   "qa-loop:1.4", status: "in_progress", resumable: true, iter: 2, max: 5, verdict: "REJECT",
			phases: "review:completed fix:current escalate:pending", findings: []string{"wrong-type", "wrong-type"},
		},
		{
			name: "YAML loop status", path: "qa/loop-status.yaml",
			data: "story_id: \"8.1\"\ncurrent_iteration: 1\nmax_iterations: 5\nstatus: in_progress\nhistory:\n  - iteration: 1\n    verdict: REJECT\n",
			id:   "qa-loop:8.1", status: "in_progress", resumable: true, iter: 1, max: 5, verdict: "REJECT",
			phases: "review:completed fix:current escalate:pending",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fs := ParseQALoop(tt.path, []byte(tt.data))
			if !reflect.DeepEqual(fs, c.Findings) {
				t.Errorf("returned findings differ from c.Findings")
			}
			if c.ID != tt.id || c.Status != tt.status || c.Resumable != tt.resumable {
				t.Errorf("id %q status %q resumable %v", c.ID, c.Status, c.Resumable)
			}
			if c.QA == nil {
				t.Fatalf("no QA")
			}
			if c.QA.Iteration != tt.iter || c.QA.MaxIterations != tt.max || c.QA.LastVerdict != tt.verdict || c.QA.FixesApplied != tt.fixed {
				t.Errorf("qa %+v", *c.QA)
			}
			// the position is where the loop picks up: the next iteration once fixes are applied
			if c.Position.Kind != workflow.PosIteration || c.Position.Total != tt.max || c.Position.Index < tt.iter || c.Position.Index > max(tt.iter, 1)+1 {
				t.Errorf("position %+v", c.Position)
			}
			if got := qaPhaseSummary(c); got != tt.phases {
				t.Errorf("phases %s, want %s", got, tt.phases)
			}
			var codes []string
			for _, f := range c.Findings {
				codes = append(codes, f.Code)
				if f.Severity == workflow.Blocking {
					t.Errorf("blocking finding %v", f)
				}
			}
			if strings.Join(codes, ",") != strings.Join(tt.findings, ",") {
				t.Errorf("findings %v, want %v", c.Findings, tt.findings)
			}
			if tt.check != nil {
				tt.check(t, c)
			}
			c2, _ := ParseQALoop(tt.path, []byte(tt.data))
			if !reflect.DeepEqual(c, c2) {
				t.Errorf("not deterministic")
			}
		})
	}
}

func TestParseQALoopBadInput(t *testing.T) {
	tests := []struct{ name, path, data, code string }{
		{"truncated json", "qa/9.9/loop-status.json", `{"storyId": "9.9", "history": [`, "syntax"},
		{"not an object", "qa/9.9/loop-status.json", `[1, 2]`, "not-an-object"},
		{"invalid utf-8", "qa/9.9/loop-status.json", "{\"storyId\": \"\xff\"}", "invalid-utf8"},
		{"trailing data", "qa/9.9/loop-status.json", `{} {}`, "syntax"},
		{"too deep", "qa/9.9/loop-status.json", strings.Repeat("[", 100) + strings.Repeat("]", 100), "too-deep"},
		{"yaml alias bomb", "qa/9.9/loop-status.yaml", "a: &a [x,x,x,x,x,x,x,x,x]\n" + strings.Repeat("b: [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n", 1) +
			func() string {
				var b strings.Builder
				prev := "a"
				for i := 0; i < 10; i++ {
					name := "l" + string(rune('a'+i))
					b.WriteString(name + ": &" + name + " [" + strings.TrimSuffix(strings.Repeat("*"+prev+",", 9), ",") + "]\n")
					prev = name
				}
				return b.String()
			}(), "alias-bomb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			c, fs := ParseQALoop(tt.path, []byte(tt.data))
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("took %v", d)
			}
			if c.ID != "qa-loop:9.9" || c.Status != "unreadable" || !c.Resumable || c.Type != workflow.TypeQALoop {
				t.Errorf("candidate %q %q %v", c.ID, c.Status, c.Resumable)
			}
			if len(fs) != 1 || fs[0].Code != tt.code || fs[0].Severity != workflow.Blocking {
				t.Errorf("findings %v", fs)
			}
		})
	}
}

func TestParseQALoopIndex(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		ids      string
		findings string
		check    func(t *testing.T, cs []workflow.Candidate)
	}{
		{
			name: "loops list",
			data: `{"loops": [
				{"storyId": "4.2", "status": "in_progress", "statusFile": "qa/4.2/loop-status.json", "currentIteration": 2, "maxIterations": 5, "updatedAt": "2025-01-01T00:00:00Z"},
				{"story_id": "1.1", "status": "completed", "path": "qa/1.1/loop-status.json", "iteration": 3}
			]}`,
			ids: "qa-loop:1.1 qa-loop:4.2",
			check: func(t *testing.T, cs []workflow.Candidate) {
				c := cs[1]
				if c.Source != (workflow.SourceRef{Kind: workflow.KindQALoopIndex, Path: ".aiox/qa-loops-index.json", Priority: 2}) {
					t.Errorf("source %+v", c.Source)
				}
				if !c.Resumable || c.QA.Iteration != 2 || c.UpdatedFrom != "field:updatedAt" {
					t.Errorf("entry %+v %+v", c, c.QA)
				}
				if f, ok := sourcetest.File(c, "qa/4.2/loop-status.json"); !ok || f.Critical || f.From != "statusFile" {
					t.Errorf("files %+v", c.Files)
				}
				if cs[0].Resumable || cs[0].QA.Iteration != 3 {
					t.Errorf("completed entry %+v", cs[0])
				}
			},
		},
		{
			name: "object keyed by story id",
			data: `{"version": 2, "updatedAt": "2025-01-01T00:00:00Z",
				"6.1": {"status": "paused", "status_file": "qa/6.1/loop-status.json"},
				"5.1": {"status": "running"}}`,
			ids: "qa-loop:5.1 qa-loop:6.1",
		},
		{
			name: "loops keyed by story id",
			data: `{"loops": {"6.2": {"status": "stopped"}, "bad": 3}}`,
			ids:  "qa-loop:6.2", findings: "wrong-type",
		},
		{
			name: "bare array",
			data: `[{"storyId": "6.3", "status": "in_progress"}]`,
			ids:  "qa-loop:6.3",
		},
		{
			name: "entry without id uses its status file",
			data: `{"loops": [{"statusFile": "qa/6.4/loop-status.json", "status": "paused"}, {"status": "paused"}]}`,
			ids:  "qa-loop:6.4", findings: "no-story-id",
			check: func(t *testing.T, cs []workflow.Candidate) {
				if !sourcetest.HasFinding(cs[0].Findings, "no-story-id", workflow.Warning) || len(cs[0].Stories) != 0 {
					t.Errorf("entry %+v", cs[0])
				}
			},
		},
		{
			name: "duplicate entries",
			data: `{"loops": [{"storyId": "6.5", "status": "paused"}, {"storyId": "6.5", "status": "running"}]}`,
			ids:  "qa-loop:6.5", findings: "duplicate-entry",
			check: func(t *testing.T, cs []workflow.Candidate) {
				if cs[0].Status != "paused" {
					t.Errorf("first entry wins: %q", cs[0].Status)
				}
			},
		},
		{
			name: "loops of wrong type", data: `{"loops": "many"}`, findings: "wrong-type",
		},
		{
			name: "truncated", data: `{"loops": [{"storyId": `, findings: "syntax",
		},
		{
			name: "scalar", data: `"loops"`, findings: "not-an-object",
		},
		{
			name: "wrong field types in an entry",
			data: `{"loops": [{"storyId": "6.6", "status": "in_progress", "currentIteration": "abc", "history": {}}]}`,
			ids:  "qa-loop:6.6",
			check: func(t *testing.T, cs []workflow.Candidate) {
				n := 0
				for _, f := range cs[0].Findings {
					if f.Code == "wrong-type" {
						n++
					}
				}
				if n != 2 {
					t.Errorf("findings %v", cs[0].Findings)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, fs := ParseQALoopIndex(".aiox/qa-loops-index.json", []byte(tt.data))
			var ids, codes []string
			for _, c := range cs {
				ids = append(ids, c.ID)
				if c.Source.Kind != workflow.KindQALoopIndex {
					t.Errorf("kind %q", c.Source.Kind)
				}
			}
			for _, f := range fs {
				codes = append(codes, f.Code)
				if f.Severity != workflow.Warning {
					t.Errorf("index findings are warnings: %v", f)
				}
			}
			if strings.Join(ids, " ") != tt.ids || strings.Join(codes, ",") != tt.findings {
				t.Errorf("ids %q findings %v", ids, fs)
			}
			if tt.check != nil && len(cs) > 0 {
				tt.check(t, cs)
			}
		})
	}
}

func TestQALoopSourceScan(t *testing.T) {
	root := t.TempDir()
	sourcetest.Write(t, root, map[string]string{
		"qa/4.2/loop-status.json":   `{"storyId": "4.2", "currentIteration": 2, "status": "in_progress", "updatedAt": "2025-01-01T00:00:00Z"}`,
		"qa/4.3/loop-status.json":   `{"storyId": "4.3", "currentIteration": 1, "status": "paused", "updatedAt": "2025-01-05T00:00:00Z"}`,
		"qa/4.4/loop-status.json":   `{"currentIteration": 1, "status": "paused"`,
		"qa/loop-status.json":       `{"story_id": "4.5", "status": "stopped"}`,
		"qa/loop-status.json.bak":   `{"story_id": "4.5", "status": "running"}`,
		"docs/stories/4.5.story.md": "# Story 4.5\n",
		".aiox/qa-loops-index.json": `{"loops": [
			{"storyId": "4.2", "status": "in_progress", "updatedAt": "2025-01-02T00:00:00Z"},
			{"storyId": "4.3", "status": "paused", "updatedAt": "2025-01-04T00:00:00Z"},
			{"storyId": "x", "statusFile": "qa/4.4/loop-status.json", "status": "paused"},
			{"storyId": "9.9", "status": "escalated", "iteration": 5, "maxIterations": 5}
		]}`,
	})
	cfg := config.Default()
	cfg.Sources.QALoopIndex = append(cfg.Sources.QALoopIndex, ".aios/qa-loops-index.json")
	sourcetest.Write(t, root, map[string]string{".aios/qa-loops-index.json": `{"9.9": {"status": "escalated"}, "4.3": {"status": "paused"}}`})
	r, _ := source.NewRepo(root, cfg)
	r.Stories["4.5"] = &workflow.Story{ID: "4.5", Path: "docs/stories/4.5.story.md"}
	r.Stories["9.9"] = &workflow.Story{ID: "9.9", Path: "docs/stories/9.9.story.md"}
	src := QALoopSource
	if src.Kind() != workflow.KindQALoop || src.Priority() != workflow.PriorityQALoop {
		t.Fatalf("kind/priority")
	}
	cs, loose := src.Scan(r)
	if len(loose) != 0 {
		t.Errorf("loose %v", loose)
	}
	byID := map[string]workflow.Candidate{}
	var ids []string
	for _, c := range cs {
		byID[c.ID] = c
		ids = append(ids, c.ID)
	}
	if got := strings.Join(ids, " "); got != "qa-loop:4.2 qa-loop:4.3 qa-loop:4.4 qa-loop:4.5 qa-loop:9.9" {
		t.Fatalf("ids %s", got)
	}
	aiox := workflow.SourceRef{Kind: workflow.KindQALoopIndex, Path: ".aiox/qa-loops-index.json", Priority: 2}
	aios := workflow.SourceRef{Kind: workflow.KindQALoopIndex, Path: ".aios/qa-loops-index.json", Priority: 2}

	c42 := byID["qa-loop:4.2"]
	if !reflect.DeepEqual(c42.Evidence, []workflow.SourceRef{aiox}) || !sourcetest.HasFinding(c42.Findings, "index-newer", workflow.Info) {
		t.Errorf("4.2 evidence %+v findings %v", c42.Evidence, c42.Findings)
	}
	if c42.QA.Iteration != 2 || c42.Source.Kind != workflow.KindQALoop {
		t.Errorf("the file's values are kept: %+v", c42)
	}
	c43 := byID["qa-loop:4.3"]
	if !reflect.DeepEqual(c43.Evidence, []workflow.SourceRef{aios, aiox}) || sourcetest.HasFinding(c43.Findings, "index-newer", "") {
		t.Errorf("4.3 evidence %+v findings %v", c43.Evidence, c43.Findings)
	}
	c44 := byID["qa-loop:4.4"]
	if c44.Status != "unreadable" || !reflect.DeepEqual(c44.Evidence, []workflow.SourceRef{aiox}) {
		t.Errorf("4.4 matched by status file path: %+v", c44)
	}
	c45 := byID["qa-loop:4.5"]
	if c45.BackupPath != "qa/loop-status.json.bak" || len(c45.Files) != 1 || c45.Files[0].Path != "docs/stories/4.5.story.md" || !c45.Files[0].Critical {
		t.Errorf("4.5 %+v files %+v", c45, c45.Files)
	}
	if c45.UpdatedFrom != "mtime" {
		t.Errorf("4.5 mtime fallback: %q", c45.UpdatedFrom)
	}
	c99 := byID["qa-loop:9.9"]
	// index files are read in path order: the first one to list a loop owns it
	if c99.Source != aios || !reflect.DeepEqual(c99.Evidence, []workflow.SourceRef{aiox}) || !c99.Resumable {
		t.Errorf("9.9 index-only %+v", c99)
	}
	if len(c99.Files) != 1 || c99.Files[0].Path != "docs/stories/9.9.story.md" || c99.UpdatedFrom != "mtime" {
		t.Errorf("9.9 files %+v from %q", c99.Files, c99.UpdatedFrom)
	}

	cs2, _ := src.Scan(r)
	if !reflect.DeepEqual(cs, cs2) {
		t.Errorf("not deterministic")
	}
}

func TestQALoopSourceScanBadIndex(t *testing.T) {
	root := t.TempDir()
	sourcetest.Write(t, root, map[string]string{".aiox/qa-loops-index.json": "{\"loops\": [\x00\x01"})
	r, _ := source.NewRepo(root, config.Default())
	cs, loose := QALoopSource.Scan(r)
	if len(cs) != 0 || len(loose) != 1 || loose[0].Code != "binary" || loose[0].Severity != workflow.Warning {
		t.Errorf("cs %v loose %v", cs, loose)
	}
	if err := os.WriteFile(filepath.Join(root, ".aiox/qa-loops-index.json"), []byte(`{"loops": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, loose = QALoopSource.Scan(r)
	if len(loose) != 1 || loose[0].Code != "syntax" {
		t.Errorf("loose %v", loose)
	}
}

func FuzzParseQALoop(f *testing.F) {
	f.Add("qa/loop-status.json", []byte(`{"storyId":"4.2","currentIteration":2,"status":"in_progress","history":[{"iteration":1,"verdict":"REJECT"}]}`))
	f.Add("qa/4.2/loop-status.json", []byte(`{"qa_loop":{"story_id":"4.2"},"story":{"id":"4.2","path":"a.md"}}`))
	f.Add("qa/loop-status.json", []byte(`{"history": {}, "currentIteration": "abc"`))
	f.Fuzz(func(t *testing.T, p string, data []byte) {
		defer sourcetest.Watchdog(p, data)()
		c, fs := ParseQALoop(p, data)
		sourcetest.EpicCheckCandidate(t, c, fs, len(p)+len(data), workflow.TypeQALoop, "qa-loop:")
		if c.QA == nil || c.QA.MaxIterations <= 0 {
			t.Fatalf("qa %+v", c.QA)
		}
		c2, _ := ParseQALoop(p, data)
		if !reflect.DeepEqual(c, c2) {
			t.Fatalf("not deterministic")
		}
	})
}

func FuzzParseQALoopIndex(f *testing.F) {
	f.Add([]byte(`{"loops":[{"storyId":"4.2","status":"in_progress","statusFile":"qa/4.2/loop-status.json"}]}`))
	f.Add([]byte(`{"4.2":{"status":"paused"},"version":1}`))
	f.Add([]byte(`{"loops":[{"storyId":`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer sourcetest.Watchdog("", data)()
		cs, fs := ParseQALoopIndex(".aiox/qa-loops-index.json", data)
		if len(cs) == 0 && len(fs) == 0 && len(data) > 0 {
			// an index with no entries is fine only when it decodes to an empty collection
			if _, err := tolerant.DecodeJSON(data); err != nil {
				t.Fatalf("no result and no finding for undecodable input")
			}
		}
		seen := map[string]bool{}
		for _, c := range cs {
			sourcetest.EpicCheckCandidate(t, c, c.Findings, len(data), workflow.TypeQALoop, "qa-loop:")
			if seen[c.ID] {
				t.Fatalf("duplicate id %q", c.ID)
			}
			seen[c.ID] = true
		}
		if len(cs)+len(fs) > len(data)+1 {
			t.Fatalf("%d candidates and %d findings from %d bytes", len(cs), len(fs), len(data))
		}
		cs2, fs2 := ParseQALoopIndex(".aiox/qa-loops-index.json", data)
		if !reflect.DeepEqual(cs, cs2) || !reflect.DeepEqual(fs, fs2) {
			t.Fatalf("not deterministic")
		}
	})
}

// A loop that records no status but a completion time is finished, and
// says which field decided.
func TestQALoopFinishedBy(t *testing.T) {
	tests := []struct {
		name, data, field string
	}{
		{"completedAt", `{"storyId": "1.1", "completedAt": "2026-11-02T10:00:00Z"}`, "completedAt"},
		{"wrapped finished_at", `{"qa_loop": {"storyId": "1.1", "finished_at": "2026-11-02T10:00:00Z"}}`, "finished_at"},
		{"status finished", `{"storyId": "1.1", "status": "finished"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fs := ParseQALoop("qa/1.1/loop-status.json", []byte(tt.data))
			if c.Resumable || c.Status != "completed" {
				t.Errorf("status %q resumable %v", c.Status, c.Resumable)
			}
			got := ""
			for _, f := range fs {
				if f.Code == "finished" {
					got = f.Message
				}
				if f.Code == "unknown-status" {
					t.Errorf("unexpected %s", f.Message)
				}
			}
			if (tt.field == "") != (got == "") || !strings.Contains(got, tt.field) {
				t.Errorf("finished finding = %q, want one naming %q", got, tt.field)
			}
		})
	}
}
