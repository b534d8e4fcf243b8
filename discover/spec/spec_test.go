package spec

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

const specStandardState = `{
  "name": "login",
  "complexity": "STANDARD",
  "currentPhase": "research",
  "status": "in_progress",
  "updatedAt": "2025-06-10T10:00:00Z",
  "startedAt": "2025-06-10T08:00:00Z",
  "phases": [
    {"id": "gather", "status": "completed", "agent": "@pm", "output": "requirements.json"},
    {"id": "assess", "status": "completed", "output": "docs/specs/login/complexity.json"},
    {"id": "research", "status": "in_progress"}
  ]
}`

const specSimpleState = `{
  "feature": "tooltip",
  "complexityClass": "simple",
  "completed_phases": ["gather"],
  "updated_at": "2025-06-11T10:00:00Z"
}`

func TestParseSpecState(t *testing.T) {
	tests := []struct {
		name      string
		path      string
		json      string
		id        string
		status    string
		resumable bool
		verdict   string
		cx        string
		pos       workflow.Position
		completed []string
		skipped   []string
		current   []string
		files     []string
		stories   []string
		from      string
		codes     []string
	}{
		{
			name: "standard with state", path: "docs/specs/login/.pipeline-state.json", json: specStandardState,
			id: "spec:login", status: "in_progress", resumable: true, cx: "STANDARD",
			pos:       workflow.PhasePosition(3, 5, "Dependency Research"),
			completed: []string{"gather", "assess"}, current: []string{"research"},
			files:   []string{"docs/specs/login/complexity.json[cp@assess]", "docs/specs/login/requirements.json[p@gather]"},
			stories: []string{}, from: "field:updatedAt",
		},
		{
			name: "simple skips assess and research", path: "docs/stories/4.2/spec/.pipeline-state.json", json: specSimpleState,
			id: "spec:tooltip", status: "in_progress", resumable: true, cx: "SIMPLE",
			pos:       workflow.PhasePosition(2, 3, "Write Specification"),
			completed: []string{"gather"}, skipped: []string{"assess", "research"}, current: []string{"spec"},
			stories: []string{"4.2"}, from: "field:updated_at",
		},
		{
			name: "approved is completed", path: "docs/specs/a/.pipeline-state.json",
			json: `{"specId": "a", "phaseResults": {"gather": "done", "spec": {"status": "completed"}, "critique": {"status": "completed"}}, "verdict": "approved", "status": "in_progress"}`,
			id:   "spec:a", status: "completed", resumable: false, verdict: "APPROVED",
			pos:       workflow.PhasesDone(3, "Spec Critique"),
			completed: []string{"gather", "spec", "critique"}, skipped: []string{"assess", "research"},
			stories: []string{},
		},
		{
			name: "needs revision goes back to the spec", path: "docs/specs/b/.pipeline-state.json",
			json: `{"complexity": {"class": "COMPLEX", "score": 18}, "completed_phases": ["gather", "assess", "research", "spec", "critique"], "critique": {"verdict": "NEEDS_REVISION"},
			        "artifacts": {"critique": "critique.json", "spec": {"path": "spec-b.md"}, "gather": "requirements.json"}}`,
			id: "spec:b", status: "in_progress", resumable: true, verdict: "NEEDS_REVISION", cx: "COMPLEX",
			pos:       workflow.PhasePosition(4, 5, "Write Specification"),
			completed: []string{"gather", "assess", "research"}, current: []string{"spec"},
			files:   []string{"docs/specs/b/critique.json[cp@critique]", "docs/specs/b/requirements.json[cp@gather]", "docs/specs/b/spec-b.md[p@spec]"},
			stories: []string{},
		},
		{
			name: "blocked stays resumable", path: "docs/specs/c/.pipeline-state.json",
			json: `{"current_phase": 5, "completed_phases": [1, 2, 3, 4], "verdict": "Blocked - infeasible"}`,
			id:   "spec:c", status: "blocked", resumable: true, verdict: "BLOCKED",
			pos:       workflow.PhasePosition(5, 5, "Spec Critique"),
			completed: []string{"gather", "assess", "research", "spec"}, current: []string{"critique"},
			stories: []string{},
		},
		{
			name: "aliases and unknown phases", path: "docs/specs/d/.pipeline-state.json",
			json: `{"phases": ["requirements", "write_spec", "deploy"], "complexity": "MEDIUM"}`,
			id:   "spec:d", status: "in_progress", resumable: true,
			pos:       workflow.PhasePosition(3, 3, "Spec Critique"),
			completed: []string{"gather", "spec"}, skipped: []string{"assess", "research"}, current: []string{"critique"},
			stories: []string{}, codes: []string{"unknown-complexity", "unknown-phase"},
		},
		{
			name: "wrong types", path: "docs/specs/e/.pipeline-state.json",
			json: `{"name": ["x"], "phases": 5, "complexity": [1], "currentPhase": {"a": 1}, "artifacts": 3, "updatedAt": "soon"}`,
			id:   "spec:e", status: "in_progress", resumable: true,
			pos:     workflow.PhasePosition(1, 5, "Requirements Gathering"),
			current: []string{"gather"}, stories: []string{},
			codes: []string{"wrong-type", "wrong-type", "wrong-type", "wrong-type", "wrong-type", "wrong-type"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fs := ParseSpecState(tt.path, []byte(tt.json))
			if !reflect.DeepEqual(fs, c.Findings) {
				t.Errorf("returned findings differ from the candidate's")
			}
			if c.ID != tt.id || c.Type != workflow.TypeSpec || c.Workflow != workflow.DefSpec || c.Source.Kind != workflow.KindSpec || c.Source.Priority != 6 || c.Source.Path != tt.path {
				t.Errorf("id=%q type=%q workflow=%q source=%+v", c.ID, c.Type, c.Workflow, c.Source)
			}
			if c.Status != tt.status || c.Resumable != tt.resumable {
				t.Errorf("status=%q resumable=%v, want %q %v", c.Status, c.Resumable, tt.status, tt.resumable)
			}
			if c.Spec == nil || c.Spec.Verdict != tt.verdict || c.Spec.Complexity != tt.cx || c.Spec.Dir != filepath.ToSlash(filepath.Dir(tt.path)) {
				t.Errorf("spec = %+v", c.Spec)
			}
			if c.Position != tt.pos {
				t.Errorf("position = %+v, want %+v", c.Position, tt.pos)
			}
			for st, want := range map[string][]string{workflow.PhaseCompleted: tt.completed, workflow.PhaseSkipped: tt.skipped, workflow.PhaseCurrent: tt.current} {
				if got := sourcetest.PhasesWith(c, st); !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %v, want %v", st, got, want)
				}
			}
			if got := sourcetest.FileSummary(c); !reflect.DeepEqual(got, tt.files) {
				t.Errorf("files = %#v, want %#v", got, tt.files)
			}
			if !reflect.DeepEqual(c.Stories, tt.stories) {
				t.Errorf("stories = %v, want %v", c.Stories, tt.stories)
			}
			if c.UpdatedFrom != tt.from {
				t.Errorf("updated from %q, want %q", c.UpdatedFrom, tt.from)
			}
			var codes []string
			for _, f := range c.Findings {
				codes = append(codes, f.Code)
			}
			if !reflect.DeepEqual(codes, tt.codes) {
				t.Errorf("finding codes = %v, want %v (%v)", codes, tt.codes, c.Findings)
			}
		})
	}
}

func TestParseSpecStateBadInput(t *testing.T) {
	tests := []struct {
		name, data, code string
	}{
		{"malformed", `{"name": "x",}`, "syntax"},
		{"truncated", `{"name": "x", "phases": [`, "syntax"},
		{"empty", ``, "syntax"},
		{"array", `[1, 2]`, "not-an-object"},
		{"trailing data", `{} {}`, "syntax"},
		{"invalid utf8", "{\"name\": \"\xff\"}", "invalid-utf8"},
		{"binary", "\x00\x01\x02\x03", "syntax"},
		{"deep", "{\"a\":" + string(make([]byte, 0)) + wfRepeat("[", 80) + wfRepeat("]", 80) + "}", "too-deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fs := ParseSpecState("docs/stories/4.2/spec/.pipeline-state.json", []byte(tt.data))
			if c.ID != "spec:4.2" || c.Status != "unreadable" || !c.Resumable || c.Type != workflow.TypeSpec {
				t.Errorf("candidate = %+v", c)
			}
			if !reflect.DeepEqual(c.Stories, []string{"4.2"}) {
				t.Errorf("stories = %v", c.Stories)
			}
			if len(fs) != 1 || fs[0].Code != tt.code || fs[0].Severity != workflow.Blocking || fs[0].Check != workflow.CheckParse {
				t.Errorf("findings = %+v, want code %q", fs, tt.code)
			}
		})
	}
}

func wfRepeat(s string, n int) string {
	out := ""
	for i := 0; i < n; i++ {
		out += s
	}
	return out
}

func TestSpecVerdictAndComplexity(t *testing.T) {
	verdicts := []struct{ file, data, want string }{
		{"critique.json", `{"verdict": "APPROVED"}`, "APPROVED"},
		{"critique.json", `{"critique": {"verdict": "needs revision"}}`, "NEEDS_REVISION"},
		{"critique.yaml", "critique:\n  date: 2025-01-01\n  verdict: \"BLOCKED\"\n", "BLOCKED"},
		{"critique.yml", "verdict: APPROVE\n", "APPROVED"},
		{"critique.md", "# Critique\n\n**Verdict:** APPROVED ✅\n", "APPROVED"},
		{"critique.md", "# Critique\n- Verdict: NEEDS_REVISION (3.6)\n", "NEEDS_REVISION"},
		{"critique.md", "## Verdict\n\n**BLOCKED** — escalate\n", "BLOCKED"},
		{"critique.md", "## Verdict: needs-revision\n", "NEEDS_REVISION"},
		{"critique.md", "no verdict here\n", ""},
		{"critique.md", "Verdict: PASS\n", "PASS"},
		{"critique.json", `{"verdict": 3}`, ""},
	}
	for _, v := range verdicts {
		got, _ := specReadVerdict("d/"+v.file, []byte(v.data))
		if got != v.want {
			t.Errorf("verdict of %s %q = %q, want %q", v.file, v.data, got, v.want)
		}
	}
	if _, fs := specReadVerdict("d/critique.json", []byte(`{"verdict": `)); len(fs) != 1 || fs[0].Severity != workflow.Warning {
		t.Errorf("malformed critique findings = %v", fs)
	}
	cxs := []struct{ file, data, want string }{
		{"complexity.json", `{"class": "SIMPLE", "score": 12}`, "SIMPLE"},
		{"complexity.json", `{"result": {"complexity_class": "complex"}}`, "COMPLEX"},
		{"complexity.json", `{"total_score": 12}`, "STANDARD"},
		{"complexity.json", `{"score": 5}`, "SIMPLE"},
		{"complexity.yaml", "assessment:\n  classification: STANDARD\n", "STANDARD"},
		{"complexity.md", "# Assessment\n**Complexity Class:** SIMPLE (score 6)\n", "SIMPLE"},
		{"complexity.md", "nothing\n", ""},
	}
	for _, c := range cxs {
		got, _ := specReadComplexity("d/"+c.file, []byte(c.data))
		if got != c.want {
			t.Errorf("complexity of %s %q = %q, want %q", c.file, c.data, got, c.want)
		}
	}
}

func TestSpecArtifactPhase(t *testing.T) {
	tests := []struct{ name, phase string }{
		{"requirements.json", "gather"}, {"Requirements.MD", "gather"}, {"requirements-v2.yaml", "gather"},
		{"complexity.json", "assess"}, {"complexity-assessment.md", "assess"},
		{"research.json", "research"}, {"research_findings.yml", "research"},
		{"spec.md", "spec"}, {"spec-login.md", "spec"}, {"specification.md", "spec"},
		{"critique.json", "critique"}, {"spec-critique.md", "critique"}, {"critique-2.json", "critique"},
		{".pipeline-state.json", ""}, {"notes.txt", ""}, {"spec.txt", ""}, {"spec-.md", ""}, {"implementation.yaml", ""},
	}
	for _, tt := range tests {
		if got, _ := specArtifactPhase(tt.name); got != tt.phase {
			t.Errorf("specArtifactPhase(%q) = %q, want %q", tt.name, got, tt.phase)
		}
	}
}

func TestSpecSourceScan(t *testing.T) {
	root := t.TempDir()
	sourcetest.Write(t, root, map[string]string{
		// SIMPLE, spec written, critique to run
		"docs/stories/4.2/spec/requirements.json": `{"functional": []}`,
		"docs/stories/4.2/spec/complexity.json":   `{"class": "SIMPLE"}`,
		"docs/stories/4.2/spec/spec.md":           "# Spec\n",
		"docs/stories/4.2.story.md":               "# Story 4.2: x\n",
		// STANDARD, critique asks for a revision
		"docs/specs/login/requirements.json": `{}`,
		"docs/specs/login/complexity.md":     "Complexity class: STANDARD\n",
		"docs/specs/login/research.json":     `{}`,
		"docs/specs/login/spec-login.md":     "# Spec\n",
		"docs/specs/login/critique-1.json":   `{"verdict": "BLOCKED"}`,
		"docs/specs/login/critique.json":     `{"verdict": "NEEDS_REVISION"}`,
		// approved: completed
		"docs/specs/done/requirements.json": `{}`,
		"docs/specs/done/spec.md":           "# Spec\n",
		"docs/specs/done/critique.md":       "# Critique\n\n**Verdict:** APPROVED\n",
		// nothing of the pipeline: no candidate
		"docs/specs/empty/notes.txt": "hello",
		// a state file plus artifacts on disk
		"docs/specs/withstate/.pipeline-state.json": `{"name": "With State", "currentPhase": "assess", "completed_phases": ["gather"], "complexity": "STANDARD"}`,
		"docs/specs/withstate/requirements.md":      "# Requirements\n",
		// a broken state file: rebuilt from the artifacts, blocking finding
		"docs/specs/broken/.pipeline-state.json": `{"name": `,
		"docs/specs/broken/requirements.json":    `{}`,
		// a broken critique: warning, still resumable
		"docs/specs/badcritique/requirements.json": `{}`,
		"docs/specs/badcritique/spec.md":           "# Spec\n",
		"docs/specs/badcritique/critique.json":     `{"verdict": `,
	})
	old := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	newest := time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC)
	for _, p := range []string{"docs/stories/4.2/spec/requirements.json", "docs/stories/4.2/spec/complexity.json"} {
		if err := os.Chtimes(filepath.Join(root, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(filepath.Join(root, "docs/stories/4.2/spec/spec.md"), newest, newest); err != nil {
		t.Fatal(err)
	}
	r, _ := source.NewRepo(root, config.Default())
	r.Stories["4.2"] = &workflow.Story{ID: "4.2", Path: "docs/stories/4.2.story.md"}
	src := SpecSource
	if src.Kind() != workflow.KindSpec || src.Priority() != 6 {
		t.Errorf("kind=%q priority=%d", src.Kind(), src.Priority())
	}
	cs, fs := src.Scan(r)
	if len(fs) != 0 {
		t.Errorf("source findings = %v", fs)
	}
	byID := map[string]workflow.Candidate{}
	var ids []string
	for _, c := range cs {
		byID[c.ID] = c
		ids = append(ids, c.ID)
	}
	wantIDs := []string{"spec:4.2", "spec:badcritique", "spec:broken", "spec:done", "spec:login", "spec:With-State"}
	if !reflect.DeepEqual(sourcetest.Sorted(ids), sourcetest.Sorted(wantIDs)) {
		t.Fatalf("ids = %v, want %v", ids, wantIDs)
	}

	simple := byID["spec:4.2"]
	if simple.Position != (workflow.PhasePosition(3, 3, "Spec Critique")) || simple.Spec.Complexity != "SIMPLE" {
		t.Errorf("simple position %+v spec %+v", simple.Position, simple.Spec)
	}
	if got := sourcetest.PhasesWith(simple, workflow.PhaseSkipped); !reflect.DeepEqual(got, []string{"assess", "research"}) {
		t.Errorf("skipped = %v", got)
	}
	if !reflect.DeepEqual(simple.Stories, []string{"4.2"}) || simple.StoryRefs[0].Path != "docs/stories/4.2.story.md" {
		t.Errorf("stories %v refs %+v", simple.Stories, simple.StoryRefs)
	}
	if !simple.UpdatedAt.Equal(newest) || simple.UpdatedFrom != "mtime" || simple.Source.Path != "docs/stories/4.2/spec" {
		t.Errorf("updated %v from %q source %q", simple.UpdatedAt, simple.UpdatedFrom, simple.Source.Path)
	}
	wantFiles := []string{
		"docs/stories/4.2/spec/complexity.json[p@assess]",
		"docs/stories/4.2/spec/requirements.json[cp@gather]",
		"docs/stories/4.2/spec/spec.md[cp@spec]",
	}
	if got := sourcetest.FileSummary(simple); !reflect.DeepEqual(got, wantFiles) {
		t.Errorf("files = %v", got)
	}

	login := byID["spec:login"]
	if login.Spec.Verdict != "NEEDS_REVISION" || login.Spec.Complexity != "STANDARD" || login.Status != "in_progress" || !login.Resumable {
		t.Errorf("login = %+v %+v", login.Spec, login)
	}
	if login.Position != (workflow.PhasePosition(4, 5, "Write Specification")) || login.Agent != "pm" {
		t.Errorf("login position %+v agent %q", login.Position, login.Agent)
	}
	if login.Spec.Artifacts["critique"] != "docs/specs/login/critique.json" || login.Spec.Artifacts["spec"] != "docs/specs/login/spec-login.md" {
		t.Errorf("artifacts = %v", login.Spec.Artifacts)
	}

	done := byID["spec:done"]
	if done.Status != "completed" || done.Resumable || done.Spec.Verdict != "APPROVED" {
		t.Errorf("done = %q %v %q", done.Status, done.Resumable, done.Spec.Verdict)
	}

	ws := byID["spec:With-State"]
	if ws.Spec.Name != "With State" || ws.Source.Path != "docs/specs/withstate/.pipeline-state.json" || ws.UpdatedFrom != "mtime" {
		t.Errorf("with state = %+v %+v", ws.Spec, ws.Source)
	}
	if got := sourcetest.FileSummary(ws); !reflect.DeepEqual(got, []string{"docs/specs/withstate/requirements.md[cp@gather]"}) {
		t.Errorf("with state files = %v", got)
	}
	if ws.Position != (workflow.PhasePosition(2, 5, "Complexity Assessment")) {
		t.Errorf("with state position = %+v", ws.Position)
	}

	broken := byID["spec:broken"]
	if broken.Status != "unreadable" || !broken.Resumable || !sourcetest.HasFinding(broken.Findings, "syntax", workflow.Blocking) {
		t.Errorf("broken = %+v", broken)
	}
	if got := sourcetest.PhasesWith(broken, workflow.PhaseCompleted); !reflect.DeepEqual(got, []string{"gather"}) {
		t.Errorf("broken completed = %v (rebuilt from the artifacts)", got)
	}

	bc := byID["spec:badcritique"]
	if !bc.Resumable || !sourcetest.HasFinding(bc.Findings, "syntax", workflow.Warning) || sourcetest.HasFinding(bc.Findings, "", workflow.Blocking) {
		t.Errorf("bad critique = %v %v", bc.Resumable, bc.Findings)
	}

	again, _ := src.Scan(r)
	if !reflect.DeepEqual(cs, again) {
		t.Errorf("scan is not deterministic")
	}
}

func FuzzParseSpecState(f *testing.F) {
	for _, s := range []string{specStandardState, specSimpleState, `{"verdict": "APPROVED", "completed_phases": [1,2,3,4,5]}`, `{"name": "x",`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, fs := ParseSpecState("docs/specs/x/.pipeline-state.json", data)
		sourcetest.CheckCandidate(t, c, fs, "spec:", len(data)+8)
		if c.Spec == nil || c.Spec.Dir != "docs/specs/x" || c.Type != workflow.TypeSpec {
			t.Fatalf("spec = %+v", c.Spec)
		}
		if c.Spec.Verdict == "APPROVED" && c.Resumable && c.Status != "unreadable" {
			t.Fatalf("approved but resumable")
		}
		again, _ := ParseSpecState("docs/specs/x/.pipeline-state.json", data)
		if !reflect.DeepEqual(c, again) {
			t.Fatalf("not deterministic")
		}
	})
}
