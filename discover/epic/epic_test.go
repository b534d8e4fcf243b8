package epic

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func epicWaveSummary(c workflow.Candidate) string {
	if c.Epic == nil {
		return "<nil>"
	}
	var parts []string
	for _, w := range c.Epic.Waves {
		var ids []string
		for _, s := range w.Stories {
			ids = append(ids, s.ID+"="+s.Status)
		}
		parts = append(parts, strconv.Itoa(w.Number)+" "+w.Status+" ["+strings.Join(ids, ",")+"]")
	}
	return strings.Join(parts, "; ")
}

func TestParseEpicState(t *testing.T) {
	tests := []struct {
		name  string
		path  string
		data  string
		check func(t *testing.T, c workflow.Candidate)
	}{
		{
			name: "epic_state wrapper camelCase with id lists",
			path: ".aios/epic-EPIC-ACT-state.yaml",
			data: `epic_state:
  epicId: EPIC-ACT
  executionPlan: docs/stories/epics/act/EPIC-ACT-EXECUTION.yaml
  mode: interactive
  status: active
  currentWave: 2
  startedAt: "2025-01-02T10:00:00Z"
  updatedAt: "2025-01-03T11:00:00Z"
  waves:
    - wave: 1
      status: completed
      stories: [ACT-1, ACT-2]
    - wave: 2
      status: in_progress
      stories: [ACT-3, ACT-4]
    - wave: 3
      status: pending
      stories: [ACT-5]
`,
			check: func(t *testing.T, c workflow.Candidate) {
				if c.ID != "epic:EPIC-ACT" || c.Key != "EPIC-ACT" || c.Type != workflow.TypeEpic || c.Workflow != workflow.DefEpic {
					t.Errorf("id/type = %q %q %q %q", c.ID, c.Key, c.Type, c.Workflow)
				}
				if c.Source != (workflow.SourceRef{Kind: workflow.KindEpicState, Path: ".aios/epic-EPIC-ACT-state.yaml", Priority: 1}) {
					t.Errorf("source = %+v", c.Source)
				}
				if c.Status != "active" || !c.Resumable || c.Mode != "interactive" {
					t.Errorf("status %q resumable %v mode %q", c.Status, c.Resumable, c.Mode)
				}
				if c.UpdatedFrom != "field:updatedAt" || !c.UpdatedAt.Equal(time.Date(2025, 1, 3, 11, 0, 0, 0, time.UTC)) {
					t.Errorf("updated %v from %q", c.UpdatedAt, c.UpdatedFrom)
				}
				if !c.StartedAt.Equal(time.Date(2025, 1, 2, 10, 0, 0, 0, time.UTC)) {
					t.Errorf("started %v", c.StartedAt)
				}
				if c.Position != (workflow.Position{Kind: workflow.PosWave, Index: 2, Done: 1, Total: 3, At: "wave 2"}) || c.Position.String() != "1/3 done, at wave 2" {
					t.Errorf("position %+v", c.Position)
				}
				if got := strings.Join(c.Stories, ","); got != "ACT-1,ACT-2,ACT-3,ACT-4,ACT-5" {
					t.Errorf("stories %s", got)
				}
				if got := epicWaveSummary(c); got != "1 completed [ACT-1=,ACT-2=]; 2 in_progress [ACT-3=,ACT-4=]; 3 pending [ACT-5=]" {
					t.Errorf("waves %s", got)
				}
				plan, ok := sourcetest.File(c, "docs/stories/epics/act/EPIC-ACT-EXECUTION.yaml")
				if !ok || !plan.Critical || plan.Phase != "waves" || plan.From != "executionPlan" {
					t.Errorf("plan file %+v %v", plan, ok)
				}
				if c.Epic.PlanPath != "docs/stories/epics/act/EPIC-ACT-EXECUTION.yaml" || c.Epic.CurrentWave != 2 {
					t.Errorf("epic %+v", c.Epic)
				}
				var ph []string
				for _, p := range c.Phases {
					ph = append(ph, p.ID+":"+p.Status)
				}
				if got := strings.Join(ph, " "); got != "wave-1:completed wave-2:current wave-3:pending final-gate:pending" {
					t.Errorf("phases %s", got)
				}
				if len(c.Findings) != 0 {
					t.Errorf("findings %v", c.Findings)
				}
			},
		},
		{
			name: "flat snake_case with story mappings and paths",
			path: ".aiox/epic-x-state.yaml",
			data: `epic_id: EPIC-9
execution_plan: ./plans/../plans/EPIC-9.yaml
status: In Progress
updated_at: 2025-02-01T08:00:00Z
base_commit: abc1234
waves:
  - number: 1
    status: done
    stories:
      - {id: "9.1", status: done, path: docs/stories/9.1.story.md}
  - number: 2
    status: in-progress
    stories:
      - {storyId: "9.2", status: Done, file: docs/stories/9.2.story.md, executor: "@dev", quality_gate: qa}
      - {story_id: "9.3", status: in_progress, path: docs/stories/9.3.story.md}
  - number: 3
    stories:
      - {id: "9.4", path: docs/stories/9.4.story.md}
files:
  - src/a.go
  - {path: src/b.go, hash: deadbeef}
`,
			check: func(t *testing.T, c workflow.Candidate) {
				if c.ID != "epic:EPIC-9" || c.Status != "in_progress" || c.StatusRaw != "In Progress" || c.Commit != "abc1234" {
					t.Errorf("id %q status %q raw %q commit %q", c.ID, c.Status, c.StatusRaw, c.Commit)
				}
				if c.UpdatedFrom != "field:updated_at" {
					t.Errorf("updated from %q", c.UpdatedFrom)
				}
				if c.Epic.CurrentWave != 2 {
					t.Errorf("current wave %d (first not completed)", c.Epic.CurrentWave)
				}
				if got := epicWaveSummary(c); got != "1 done [9.1=done]; 2 in_progress [9.2=done,9.3=in_progress]; 3 pending [9.4=]" {
					t.Errorf("waves %s", got)
				}
				if _, ok := sourcetest.File(c, "docs/stories/9.1.story.md"); ok {
					t.Errorf("stories of earlier waves are not referenced")
				}
				if f, _ := sourcetest.File(c, "docs/stories/9.2.story.md"); f.Critical || f.Path == "" {
					t.Errorf("done story of current wave: %+v", f)
				}
				if f, _ := sourcetest.File(c, "docs/stories/9.3.story.md"); !f.Critical {
					t.Errorf("incomplete story of current wave must be critical: %+v", f)
				}
				if f, ok := sourcetest.File(c, "docs/stories/9.4.story.md"); !ok || f.Critical {
					t.Errorf("later wave story: %+v %v", f, ok)
				}
				if f, ok := sourcetest.File(c, "plans/EPIC-9.yaml"); !ok || f.From != "execution_plan" {
					t.Errorf("plan path not cleaned: %+v", c.Files)
				}
				if f, ok := sourcetest.File(c, "src/b.go"); !ok || f.Hash != "deadbeef" || f.From != "files" || f.Critical {
					t.Errorf("files entry %+v", f)
				}
				want := []workflow.StoryRef{
					{ID: "9.1", Status: "done", Path: "docs/stories/9.1.story.md"},
					{ID: "9.2", Status: "done", Path: "docs/stories/9.2.story.md", Executor: "dev"},
					{ID: "9.3", Status: "in_progress", Path: "docs/stories/9.3.story.md"},
					{ID: "9.4", Path: "docs/stories/9.4.story.md"},
				}
				if !reflect.DeepEqual(c.StoryRefs, want) {
					t.Errorf("story refs %+v", c.StoryRefs)
				}
			},
		},
		{
			name: "stories as mappings id to status and id to object",
			path: ".nexos/epic-m-state.yaml",
			data: `epic: {id: EPIC-M, title: Mapping}
current_wave: wave-1
waves:
  - id: wave-1
    stories: {M-2: in_progress, M-1: done}
  - id: wave-2
    stories:
      M-3: {status: pending, path: docs/m3.md}
`,
			check: func(t *testing.T, c workflow.Candidate) {
				if c.Key != "EPIC-M" {
					t.Errorf("key %q", c.Key)
				}
				if got := epicWaveSummary(c); got != "1 in_progress [M-1=done,M-2=in_progress]; 2 pending [M-3=pending]" {
					t.Errorf("waves %s", got)
				}
				if c.Epic.CurrentWave != 1 || c.Status != "" || !c.Resumable {
					t.Errorf("current %d status %q", c.Epic.CurrentWave, c.Status)
				}
			},
		},
		{
			name: "top-level stories with a wave each",
			path: ".aiox/epic-T-state.yaml",
			data: `epic_state:
  epicId: T
  stories:
    T-3: {wave: 2, status: pending}
    T-1: {wave: 1, status: completed}
    T-2: {wave: 1, status: in_progress, path: docs/t2.md}
    T-9: {status: pending}
`,
			check: func(t *testing.T, c workflow.Candidate) {
				if got := epicWaveSummary(c); got != "1 in_progress [T-1=completed,T-2=in_progress]; 2 pending [T-3=pending]" {
					t.Errorf("waves %s", got)
				}
				if got := strings.Join(c.Stories, ","); got != "T-1,T-2,T-3,T-9" {
					t.Errorf("stories %s", got)
				}
				if c.Position.Index != 1 || c.Position.Total != 2 {
					t.Errorf("position %+v", c.Position)
				}
				if f, ok := sourcetest.File(c, "docs/t2.md"); !ok || !f.Critical {
					t.Errorf("t2 %+v", f)
				}
			},
		},
		{
			name: "waves list plus top-level stories list naming their wave",
			path: ".aiox/epic-L-state.yaml",
			data: `epicId: L
waves:
  - {wave: 1, status: completed}
  - {wave: 2, status: in_progress, stories: [L-3]}
stories:
  - {id: L-1, wave: 1, status: done}
  - {id: L-3, status: in_progress, path: docs/l3.md}
`,
			check: func(t *testing.T, c workflow.Candidate) {
				if got := epicWaveSummary(c); got != "1 completed [L-1=done]; 2 in_progress [L-3=in_progress]" {
					t.Errorf("waves %s", got)
				}
				if f, ok := sourcetest.File(c, "docs/l3.md"); !ok || !f.Critical {
					t.Errorf("l3 %+v", c.Files)
				}
			},
		},
		{
			name: "waves as a mapping keyed by number",
			path: ".aiox/epic-K-state.yaml",
			data: `epicId: K
waves:
  "2": {status: pending, stories: [K-2]}
  "1": [K-1]
  "10": completed
`,
			check: func(t *testing.T, c workflow.Candidate) {
				if got := epicWaveSummary(c); got != "1 pending [K-1=]; 2 pending [K-2=]; 10 completed []" {
					t.Errorf("waves %s", got)
				}
			},
		},
		{
			name: "waves of wrong type",
			path: ".aiox/epic-W-state.yaml",
			data: "epicId: W\nwaves: three\ncurrentWave: abc\n",
			check: func(t *testing.T, c workflow.Candidate) {
				if len(c.Epic.Waves) != 0 || !sourcetest.HasFinding(c.Findings, "wrong-type", workflow.Warning) {
					t.Errorf("waves %+v findings %v", c.Epic.Waves, c.Findings)
				}
				if c.Position.Index != 0 || c.Position.Total != 0 {
					t.Errorf("position %+v", c.Position)
				}
				n := 0
				for _, f := range c.Findings {
					if f.Code == "wrong-type" {
						n++
					}
				}
				if n != 2 {
					t.Errorf("want 2 wrong-type findings, got %v", c.Findings)
				}
			},
		},
		{
			name: "id falls back to the file name",
			path: ".aios/epic-EPIC-42-state.yaml",
			data: "status: paused\nwaves: []\n",
			check: func(t *testing.T, c workflow.Candidate) {
				if c.ID != "epic:EPIC-42" || c.Status != "paused" || !c.Resumable {
					t.Errorf("%q %q", c.ID, c.Status)
				}
			},
		},
		{
			name: "completed epic is not resumable",
			path: ".aios/epic-D-state.yaml",
			data: "epicId: D\nstatus: Completed\nwaves: [{wave: 1, status: completed, stories: [D-1]}]\n",
			check: func(t *testing.T, c workflow.Candidate) {
				if c.Resumable || c.Status != "completed" {
					t.Errorf("resumable %v status %q", c.Resumable, c.Status)
				}
				if c.Phases[len(c.Phases)-1].Status != workflow.PhaseCompleted {
					t.Errorf("final gate %+v", c.Phases)
				}
			},
		},
		{
			name: "aborted and cancelled are terminal",
			path: ".aios/epic-A-state.yaml",
			data: "epicId: A\nstatus: canceled\n",
			check: func(t *testing.T, c workflow.Candidate) {
				if c.Resumable || c.Status != "cancelled" {
					t.Errorf("resumable %v status %q", c.Resumable, c.Status)
				}
			},
		},
		{
			name: "all waves done waits on the final gate",
			path: ".aios/epic-F-state.yaml",
			data: "epicId: F\nstatus: active\nwaves:\n  - {wave: 1, status: completed}\n  - {wave: 2, status: completed}\n",
			check: func(t *testing.T, c workflow.Candidate) {
				if c.Position.String() != "2/2 done, at Final Gate" {
					t.Errorf("position %q", c.Position.String())
				}
				if c.Phases[2].ID != "final-gate" || c.Phases[2].Status != workflow.PhaseCurrent {
					t.Errorf("phases %+v", c.Phases)
				}
			},
		},
		{
			name: "current wave not listed",
			path: ".aios/epic-U-state.yaml",
			data: "epicId: U\ncurrentWave: 7\nwaves: [{wave: 1, stories: [U-1]}]\n",
			check: func(t *testing.T, c workflow.Candidate) {
				if !sourcetest.HasFinding(c.Findings, "unknown-wave", workflow.Warning) || c.Position.Index != 7 {
					t.Errorf("findings %v position %+v", c.Findings, c.Position)
				}
			},
		},
		{
			name: "duplicate wave numbers merge",
			path: ".aios/epic-Dup-state.yaml",
			data: "epicId: Dup\nwaves:\n  - {wave: 1, stories: [a]}\n  - {wave: 1, status: pending, stories: [b, a]}\n",
			check: func(t *testing.T, c workflow.Candidate) {
				if got := epicWaveSummary(c); got != "1 pending [a=,b=]" || !sourcetest.HasFinding(c.Findings, "duplicate-wave", workflow.Warning) {
					t.Errorf("waves %s findings %v", got, c.Findings)
				}
			},
		},
		{
			name: "unsafe paths stay verbatim",
			path: ".aios/epic-P-state.yaml",
			data: "epicId: P\nplan_path: \" ../../etc/passwd \"\nfiles: [/etc/shadow, a/../../b, ./ok//x.go]\n",
			check: func(t *testing.T, c workflow.Candidate) {
				var got []string
				for _, f := range c.Files {
					got = append(got, f.Path)
				}
				if strings.Join(got, "|") != "../../etc/passwd|/etc/shadow|a/../../b|ok/x.go" {
					t.Errorf("files %q", got)
				}
			},
		},
		{
			name: "context, agent and commit spellings",
			path: ".aios/epic-C-state.json",
			data: `{"epicId": "C", "baseCommit": "f00d", "current_agent": "@pm", "context": {"k": "v"}, "paused_at": 1700000000}`,
			check: func(t *testing.T, c workflow.Candidate) {
				if c.Commit != "f00d" || c.Agent != "pm" || c.Context["k"] != "v" || c.UpdatedFrom != "field:paused_at" {
					t.Errorf("%+v", c)
				}
			},
		},
		{
			name: "epic_state of wrong type falls back to flat",
			path: ".aios/epic-E-state.yaml",
			data: "epic_state: broken\nepicId: E\nstatus: active\n",
			check: func(t *testing.T, c workflow.Candidate) {
				if c.Key != "E" || c.Status != "active" || !sourcetest.HasFinding(c.Findings, "wrong-type", "") {
					t.Errorf("%q %q %v", c.Key, c.Status, c.Findings)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fs := ParseEpicState(tt.path, []byte(tt.data))
			if !reflect.DeepEqual(fs, c.Findings) {
				t.Errorf("returned findings differ from c.Findings")
			}
			for _, f := range c.Findings {
				if f.Severity == workflow.Blocking {
					t.Errorf("unexpected blocking finding %v", f)
				}
			}
			tt.check(t, c)
			c2, _ := ParseEpicState(tt.path, []byte(tt.data))
			if !reflect.DeepEqual(c, c2) {
				t.Errorf("not deterministic")
			}
		})
	}
}

func TestParseEpicStateBadInput(t *testing.T) {
	var bomb strings.Builder
	bomb.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 10; i++ {
		bomb.WriteString("a" + strconv.Itoa(i) + ": &a" + strconv.Itoa(i) + " [")
		for j := 0; j < 9; j++ {
			if j > 0 {
				bomb.WriteString(", ")
			}
			bomb.WriteString("*a" + strconv.Itoa(i-1))
		}
		bomb.WriteString("]\n")
	}
	bomb.WriteString("epic_state: {epicId: B, waves: *a10}\n")
	tests := []struct {
		name, path, data, code string
	}{
		{"malformed yaml", ".aios/epic-M-state.yaml", "epic_state:\n  epicId: [unclosed\n", "syntax"},
		{"truncated json", ".aios/epic-M-state.json", `{"epicId": "M", "waves": [`, "syntax"},
		{"alias bomb", ".aios/epic-M-state.yaml", bomb.String(), "alias-bomb"},
		{"invalid utf-8", ".aios/epic-M-state.yaml", "epicId: \xff\xfe\n", "invalid-utf8"},
		{"not a mapping", ".aios/epic-M-state.yaml", "- a\n- b\n", "not-a-mapping"},
		{"empty", ".aios/epic-M-state.yaml", "", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			c, fs := ParseEpicState(tt.path, []byte(tt.data))
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("took %v", d)
			}
			if c.ID != "epic:M" && !(tt.name == "alias bomb") {
				t.Errorf("id %q", c.ID)
			}
			if c.Status != "unreadable" || !c.Resumable || c.Position.Index != 0 {
				t.Errorf("status %q resumable %v position %+v", c.Status, c.Resumable, c.Position)
			}
			if len(fs) != 1 || fs[0].Code != tt.code || fs[0].Severity != workflow.Blocking || fs[0].Check != workflow.CheckParse {
				t.Errorf("findings %v", fs)
			}
		})
	}
}

func TestEpicSourceScan(t *testing.T) {
	root := t.TempDir()
	sourcetest.Write(t, root, map[string]string{
		".aiox/epic-ACT-state.yaml":     "epic_state:\n  epicId: ACT\n  status: active\n  currentWave: 1\n  waves:\n    - {wave: 1, stories: [\"1.1\", \"1.2\"]}\n",
		".aiox/epic-ACT-state.yaml.bak": "epic_state:\n  epicId: ACT\n",
		".aiox/sprint-state.yaml":       "epic_state:\n  epicId: SPRINT\n  status: paused\n",
		".aiox/workflow-state.yaml":     "workflow_id: sdc\nstatus: active\n",
		".aiox/broken-state.yaml":       "epic_state: [\n",
		".aios/epic-BAD-state.yaml":     "epic_state: {epicId: [\n",
		".aios/epic-BAD-state.yaml.bak": "epic_state: {epicId: BAD, status: active}\n",
		".nexos/epic-BIN-state.yaml":    "epicId: BIN\x00\x01\x02",
		".nexos/epic-flat-state.yaml":   "epic_id: FLAT\nstatus: in_progress\nwaves: [{wave: 1, stories: [\"2.1\"]}]\n",
	})
	mt := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(root, ".aiox/sprint-state.yaml"), mt, mt); err != nil {
		t.Fatal(err)
	}
	r, _ := source.NewRepo(root, config.Default())
	r.Stories["1.1"] = &workflow.Story{ID: "1.1", Path: "docs/stories/1.1.story.md"}
	r.Stories["2.1"] = &workflow.Story{ID: "2.1", Path: "docs/stories/2.1.story.md"}
	src := EpicSource
	if src.Kind() != workflow.KindEpicState || src.Priority() != workflow.PriorityEpic {
		t.Fatalf("kind/priority %q %d", src.Kind(), src.Priority())
	}
	cs, loose := src.Scan(r)
	if len(loose) != 0 {
		t.Errorf("loose findings %v", loose)
	}
	byPath := map[string]workflow.Candidate{}
	var paths []string
	for _, c := range cs {
		byPath[c.Source.Path] = c
		paths = append(paths, c.Source.Path)
	}
	want := ".aios/epic-BAD-state.yaml,.aiox/epic-ACT-state.yaml,.aiox/sprint-state.yaml,.nexos/epic-BIN-state.yaml,.nexos/epic-flat-state.yaml"
	if got := strings.Join(paths, ","); got != want {
		t.Fatalf("scanned %s\nwant    %s", got, want)
	}

	act := byPath[".aiox/epic-ACT-state.yaml"]
	if act.BackupPath != ".aiox/epic-ACT-state.yaml.bak" {
		t.Errorf("backup %q", act.BackupPath)
	}
	if f, ok := sourcetest.File(act, "docs/stories/1.1.story.md"); !ok || !f.Critical || f.From != "story" {
		t.Errorf("story lookup: %+v", act.Files)
	}
	if _, ok := sourcetest.File(act, ""); ok || len(act.Files) != 1 {
		t.Errorf("1.2 has no story file: %+v", act.Files)
	}
	if act.UpdatedFrom != "mtime" || act.UpdatedAt.IsZero() {
		t.Errorf("mtime fallback %v %q", act.UpdatedAt, act.UpdatedFrom)
	}

	sprint := byPath[".aiox/sprint-state.yaml"]
	if sprint.ID != "epic:SPRINT" || !sprint.UpdatedAt.Equal(mt) {
		t.Errorf("sprint %q %v", sprint.ID, sprint.UpdatedAt)
	}

	bad := byPath[".aios/epic-BAD-state.yaml"]
	if bad.ID != "epic:BAD" || bad.Status != "unreadable" || !bad.Resumable || bad.BackupPath != ".aios/epic-BAD-state.yaml.bak" {
		t.Errorf("bad %+v", bad)
	}
	if !sourcetest.HasFinding(bad.Findings, "syntax", workflow.Blocking) || !sourcetest.HasFinding(bad.Findings, "backup-available", workflow.Info) {
		t.Errorf("bad findings %v", bad.Findings)
	}

	bin := byPath[".nexos/epic-BIN-state.yaml"]
	if bin.ID != "epic:BIN" || bin.Status != "unreadable" || !sourcetest.HasFinding(bin.Findings, "binary", workflow.Blocking) {
		t.Errorf("bin %+v", bin)
	}
	if sourcetest.HasFinding(bin.Findings, "backup-available", "") {
		t.Errorf("no backup exists")
	}

	flat := byPath[".nexos/epic-flat-state.yaml"]
	if f, ok := sourcetest.File(flat, "docs/stories/2.1.story.md"); !ok || !f.Critical {
		t.Errorf("flat files %+v", flat.Files)
	}

	cs2, _ := src.Scan(r)
	if !reflect.DeepEqual(cs, cs2) {
		t.Errorf("scan not deterministic")
	}
}

func FuzzParseEpicState(f *testing.F) {
	f.Add(".aios/epic-X-state.yaml", []byte("epic_state:\n  epicId: X\n  waves:\n    - {wave: 1, stories: [a, b]}\n"))
	f.Add(".aios/epic-X-state.json", []byte(`{"epicId":"X","waves":[{"wave":1}]}`))
	f.Add(".aios/epic-X-state.yaml", []byte("waves: three\n"))
	f.Fuzz(func(t *testing.T, p string, data []byte) {
		defer sourcetest.Watchdog(p, data)()
		c, fs := ParseEpicState(p, data)
		sourcetest.EpicCheckCandidate(t, c, fs, len(p)+len(data), workflow.TypeEpic, "epic:")
		c2, _ := ParseEpicState(p, data)
		if !reflect.DeepEqual(c, c2) {
			t.Fatalf("not deterministic")
		}
	})
}

func TestParseEpicStateAliasFanOut(t *testing.T) {
	// 60 aliases (under MaxAliases) that expand to 2^30 nodes
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x]\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%d]\n", i, i, i-1, i-1)
	}
	b.WriteString("waves: *a30\n")
	done := make(chan struct{})
	var c workflow.Candidate
	var fs []workflow.Finding
	go func() {
		defer close(done)
		c, fs = ParseEpicState(".aios/epic-X-state.yaml", []byte(b.String()))
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("alias fan-out hangs the parser")
	}
	if c.Status != "unreadable" || len(fs) != 1 || fs[0].Severity != workflow.Blocking || fs[0].Check != workflow.CheckParse {
		t.Errorf("status %q findings %v", c.Status, fs)
	}
}
