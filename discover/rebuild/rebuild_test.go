package rebuild

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover"
	"github.com/orchestrate-dev/orchestrate/discover/epic"
	"github.com/orchestrate-dev/orchestrate/discover/qaloop"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/discover/spec"
	"github.com/orchestrate-dev/orchestrate/discover/story"
	"github.com/orchestrate-dev/orchestrate/discover/wfstate"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// rbRepo writes files into a fresh folder, scans it and returns the repo
// and the candidates.
func rbRepo(t testing.TB, files map[string]string) (*source.Repo, []workflow.Candidate) {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := source.NewRepo(root, config.Default())
	return r, discover.Scan(r, discover.Options{}).Candidates
}

// rbRebuild rebuilds candidate id of a repository.
func rbRebuild(t *testing.T, files map[string]string, id string) (workflow.Candidate, workflow.Candidate, []Provenance, bool) {
	t.Helper()
	r, cs := rbRepo(t, files)
	var c workflow.Candidate
	var others []workflow.Candidate
	for _, x := range cs {
		if x.ID == id {
			c = x
		} else {
			others = append(others, x)
		}
	}
	if c.ID == "" {
		var ids []string
		for _, x := range cs {
			ids = append(ids, x.ID+"="+x.Status)
		}
		t.Fatalf("no candidate %s in %v", id, ids)
	}
	out, prov, ok := Rebuild(r, c, others)
	rbCheckInvariants(t, c, out, prov, ok)
	return c, out, prov, ok
}

// rbCheckInvariants asserts what every rebuild keeps.
func rbCheckInvariants(t testing.TB, c, out workflow.Candidate, prov []Provenance, ok bool) {
	t.Helper()
	if !ok {
		if !reflect.DeepEqual(c, out) {
			t.Fatalf("a failed rebuild changed the candidate")
		}
		return
	}
	if out.ID != c.ID || out.Key != c.Key || out.Source != c.Source {
		t.Fatalf("rebuilt id/source %s %v, want %s %v", out.ID, out.Source, c.ID, c.Source)
	}
	if out.Status != StatusRebuilt || !out.Resumable || out.UpdatedFrom != "rebuilt" {
		t.Fatalf("rebuilt status %q resumable %v from %q", out.Status, out.Resumable, out.UpdatedFrom)
	}
	if len(prov) == 0 {
		t.Fatalf("no provenance")
	}
	var parse, note bool
	for _, f := range out.Findings {
		if f.Severity == workflow.Blocking {
			t.Fatalf("blocking finding on a rebuilt state: %+v", f)
		}
		parse = parse || (f.Check == workflow.CheckParse && f.Path == c.Source.Path && f.Severity == workflow.Warning && strings.Contains(f.Message, "corrupt"))
		note = note || (f.Check == CheckRebuild && f.Code == CodeRebuiltState)
	}
	if !parse || !note {
		t.Fatalf("findings lack the downgraded parse finding or rebuilt-state: %+v", out.Findings)
	}
}

func rbPart(prov []Provenance, part string) (Provenance, bool) {
	for _, p := range prov {
		if p.Part == part {
			return p, true
		}
	}
	return Provenance{}, false
}

func rbPhaseStatuses(c workflow.Candidate) string {
	var s []string
	for _, p := range c.Phases {
		s = append(s, p.ID+"="+p.Status)
	}
	return strings.Join(s, " ")
}

const rbTorn = "execution_id: sdc-1\nworkflow: story-development-cycle\nstory: \"4.2\"\nphases_completed:\n  - {phase: create, agent: sm, output: docs/stories/4.2.s.md\n"

func rbStory(status, extra string) string {
	return "# Story 4.2: Search\n\n**Status:** " + status + "\n\n## Acceptance Criteria\n1. works\n" + extra
}

const rbFileList = "\n## File List\n- src/search.go\n- src/search_test.go\n"

func TestCorruptFinding(t *testing.T) {
	r, cs := rbRepo(t, map[string]string{
		".orchestrate/workflows/a.yaml": "status: [\n",
		".orchestrate/workflows/b.yaml": "status: paused\n",
	})
	_ = r
	for _, c := range cs {
		_, ok := CorruptFinding(c)
		if want := c.ID == "workflow:a"; ok != want {
			t.Errorf("%s: corrupt %v, want %v", c.ID, ok, want)
		}
	}
	perm := workflow.Candidate{Status: StatusUnreadable, Source: workflow.SourceRef{Path: "x.yaml"},
		Findings: []workflow.Finding{{Check: workflow.CheckParse, Severity: workflow.Blocking, Code: "permission", Path: "x.yaml"}}}
	if _, ok := CorruptFinding(perm); ok {
		t.Errorf("a permission error is not corruption")
	}
	if _, prov, ok := Rebuild(nil, perm, nil); ok || len(prov) != 1 || !strings.Contains(prov[0].Detail, "cannot be opened") {
		t.Errorf("permission: ok %v prov %v", ok, prov)
	}
}

func TestRebuildFromBackup(t *testing.T) {
	good := strings.Replace(rbTorn, "docs/stories/4.2.s.md\n", "docs/stories/4.2.s.md}\n  - {phase: validate, agent: po}\ncurrent_phase: implement\nstatus: interrupted\nupdated_at: 2026-11-20T10:00:00Z\nmode: preflight\n", 1)
	for _, tt := range []struct {
		name, id string
		files    map[string]string
		check    func(t *testing.T, out workflow.Candidate)
	}{
		{
			name: "workflow state", id: "workflow:sdc-1",
			files: map[string]string{
				".orchestrate/workflows/sdc-1.yaml":     rbTorn,
				".orchestrate/workflows/sdc-1.yaml.bak": good,
				"docs/stories/4.2.s.md":                 rbStory("InProgress", ""),
			},
			check: func(t *testing.T, out workflow.Candidate) {
				if out.Type != workflow.TypeSDC || out.Mode != "preflight" || rbPhaseStatuses(out) != "create=completed validate=completed implement=current review=pending" {
					t.Errorf("type %s mode %q phases %s", out.Type, out.Mode, rbPhaseStatuses(out))
				}
				if !source.HasRef(out.Files, "docs/stories/4.2.s.md") {
					t.Errorf("story file not referenced: %+v", out.Files)
				}
			},
		},
		{
			name: "epic", id: "epic:3",
			files: map[string]string{
				".aiox/epic-3-state.yaml":     "epic_state:\n  epic_id: \"3\"\n  waves: [\n",
				".aiox/epic-3-state.yaml.bak": "epic_state:\n  epic_id: \"3\"\n  status: active\n  current_wave: 2\n  waves:\n    - {wave: 1, status: completed, stories: [{id: \"3.1\", status: done}]}\n    - {wave: 2, stories: [{id: \"3.4\", status: in_progress}]}\n",
				"docs/stories/3.4.x.md":       "# Story 3.4: X\n**Status:** InProgress\n",
			},
			check: func(t *testing.T, out workflow.Candidate) {
				if out.Epic == nil || out.Epic.CurrentWave != 2 || len(out.Epic.Waves) != 2 {
					t.Errorf("epic %+v", out.Epic)
				}
			},
		},
		{
			name: "qa loop", id: "qa-loop:2.1",
			files: map[string]string{
				"qa/2.1/loop-status.json":     `{"storyId": "2.1", "status": "running", "history": [`,
				"qa/2.1/loop-status.json.bak": `{"storyId": "2.1", "status": "running", "currentIteration": 2, "lastVerdict": "REJECT"}`,
			},
			check: func(t *testing.T, out workflow.Candidate) {
				if out.QA == nil || out.QA.Iteration != 2 || out.QA.LastVerdict != "REJECT" || out.Key != "2.1" {
					t.Errorf("qa %+v key %s", out.QA, out.Key)
				}
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, out, prov, ok := rbRebuild(t, tt.files, tt.id)
			if !ok {
				t.Fatalf("not rebuilt: %v", prov)
			}
			p, found := rbPart(prov, "state")
			if !found || !strings.HasSuffix(p.From, ".bak") {
				t.Errorf("provenance %v", prov)
			}
			tt.check(t, out)
		})
	}
}

func TestRebuildBackupAlsoCorrupt(t *testing.T) {
	_, _, prov, ok := rbRebuild(t, map[string]string{
		".orchestrate/workflows/sdc-1.yaml":     rbTorn,
		".orchestrate/workflows/sdc-1.yaml.bak": "status: [\n",
	}, "workflow:sdc-1")
	if ok {
		t.Fatalf("rebuilt from nothing")
	}
	joined := ""
	for _, p := range prov {
		joined += p.From + ": " + p.Detail + "\n"
	}
	if !strings.Contains(joined, "does not parse either") || !strings.Contains(joined, "names no story") {
		t.Errorf("provenance does not say what was tried:\n%s", joined)
	}
}

func TestRebuildSDCFromStories(t *testing.T) {
	changeLog := "\n## Change Log\n| Date | Version | Description | Author |\n|---|---|---|---|\n| 2026-11-18 | 1.0 | Initial story creation | Bob (SM) |\n| 2026-11-19 | 1.1 | Implemented the search | James (Dev Agent) |\n"
	for _, tt := range []struct {
		name, story, from string
		extra             map[string]string
		phases            string
		updated           string
	}{
		{name: "in progress", story: rbStory("InProgress", rbFileList), from: "story 4.2 status",
			phases: "create=completed validate=completed implement=current review=pending"},
		{name: "in review", story: rbStory("InReview", ""), from: "story 4.2 status",
			phases: "create=completed validate=completed implement=completed review=current"},
		{name: "draft", story: rbStory("Draft", ""), from: "story 4.2 status",
			phases: "create=completed validate=current implement=pending review=pending"},
		{name: "unknown status, story exists", story: rbStory("Whatever", ""), from: "story file docs/stories/4.2.s.md",
			phases: "create=completed validate=completed implement=current review=pending"},
		{name: "unknown status, change log", story: rbStory("Whatever", changeLog), from: "Change Log of story 4.2",
			phases: "create=completed validate=completed implement=completed review=current", updated: "2026-11-19T00:00:00Z"},
		{name: "unknown status, gate file", story: rbStory("Whatever", ""), from: "artifact docs/qa/gates/4.2-search.yml",
			extra:  map[string]string{"docs/qa/gates/4.2-search.yml": "gate: PASS\nupdated: 2026-11-19T08:00:00Z\n", "docs/qa/gates/4.21-other.yml": "gate: FAIL\n"},
			phases: "create=completed validate=completed implement=completed review=completed", updated: "2026-11-19T08:00:00Z"},
		{name: "status beats the change log", story: rbStory("Ready", changeLog), from: "story 4.2 status",
			phases: "create=completed validate=completed implement=current review=pending", updated: "2026-11-19T00:00:00Z"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{".orchestrate/workflows/sdc-1.yaml": rbTorn, "docs/stories/4.2.s.md": tt.story, "src/search.go": "package src\n"}
			for k, v := range tt.extra {
				files[k] = v
			}
			c, out, prov, ok := rbRebuild(t, files, "workflow:sdc-1")
			if !ok {
				t.Fatalf("not rebuilt: %v", prov)
			}
			if got := rbPhaseStatuses(out); got != tt.phases {
				t.Errorf("phases %s\nwant   %s", got, tt.phases)
			}
			if p, _ := rbPart(prov, "phases completed"); p.From != tt.from {
				t.Errorf("decided by %q, want %q (%v)", p.From, tt.from, prov)
			}
			if p, _ := rbPart(prov, "story"); p.From != "text of .orchestrate/workflows/sdc-1.yaml" {
				t.Errorf("story found in %q", p.From)
			}
			if out.Type != workflow.TypeSDC || len(out.Stories) != 1 || out.Stories[0] != "4.2" {
				t.Errorf("type %s stories %v", out.Type, out.Stories)
			}
			want := c.UpdatedAt
			if tt.updated != "" {
				if w, _ := time.Parse(time.RFC3339, tt.updated); w.After(want) {
					want = w
				}
			}
			if !out.UpdatedAt.Equal(want) {
				t.Errorf("updated %v, want %v", out.UpdatedAt, want)
			}
		})
	}
}

func TestRebuildFromLinkedIndexAndPath(t *testing.T) {
	// the status file names nothing readable; the loops index points at it
	_, out, prov, ok := rbRebuild(t, map[string]string{
		"qa/loop-status.json":       "{\x00\x00\x00",
		".aiox/qa-loops-index.json": `{"loops": [{"storyId": "2.1", "status": "running", "path": "qa/loop-status.json"}]}`,
		"docs/stories/2.1.x.md":     "# Story 2.1: X\n**Status:** InProgress\n",
		"docs/qa/gates/2.1-x.yml":   "gate: FAIL\n",
	}, "qa-loop:loop-status")
	if !ok {
		t.Fatalf("not rebuilt: %v", prov)
	}
	if p, _ := rbPart(prov, "story"); p.From != ".aiox/qa-loops-index.json" {
		t.Errorf("story from %q", p.From)
	}
	if out.QA == nil || out.QA.LastVerdict != "REJECT" || out.Phases[1].Status != workflow.PhaseCurrent {
		t.Errorf("qa %+v phases %s", out.QA, rbPhaseStatuses(out))
	}
	// the loop's folder names the story
	_, out, prov, ok = rbRebuild(t, map[string]string{
		"qa/2.1/loop-status.json": "",
		"docs/stories/2.1.x.md":   "# Story 2.1: X\n**Status:** InReview\n",
	}, "qa-loop:2.1")
	if !ok || out.QA == nil || out.QA.LastVerdict != "" {
		t.Fatalf("ok %v qa %+v prov %v", ok, out.QA, prov)
	}
}

func TestRebuildEpicFromStories(t *testing.T) {
	_, out, prov, ok := rbRebuild(t, map[string]string{
		".aiox/epic-3-state.yaml": "epic_state:\n  epic_id: \"3\"\n  waves:\n    - {wave: 1, stories: [{id: \"3.1\", status: done}, {id: \"3.9\"}]\n    - wave: 2\n      stories: [{id: \"3.4\", path: docs/stories/3.4.x.md",
		"docs/stories/3.1.a.md":   "# Story 3.1: A\n**Status:** Done\n",
		"docs/stories/3.4.x.md":   "# Story 3.4: X\n**Status:** InProgress\n",
		"docs/stories/3.7.y.md":   "# Story 3.7: Y\n**Epic:** Epic 3\n**Status:** Draft\n",
		"docs/stories/4.1.z.md":   "# Story 4.1: Z\n**Status:** Draft\n",
	}, "epic:3")
	if !ok {
		t.Fatalf("not rebuilt: %v", prov)
	}
	if out.Epic == nil || len(out.Epic.Waves) != 1 || out.Epic.CurrentWave != 1 {
		t.Fatalf("epic %+v", out.Epic)
	}
	got := ""
	for _, s := range out.Epic.Waves[0].Stories {
		got += s.ID + "=" + s.Status + " "
	}
	if got != "3.1=done 3.4=in_progress 3.7=pending 3.9=pending " {
		t.Errorf("wave stories %q", got)
	}
	if _, found := rbPart(prov, "waves"); !found {
		t.Errorf("no waves provenance: %v", prov)
	}
}

func TestRebuildSpecFromArtifacts(t *testing.T) {
	_, out, prov, ok := rbRebuild(t, map[string]string{
		"docs/specs/login/.pipeline-state.json": "{",
		"docs/specs/login/requirements.json":    `{"functional": []}`,
		"docs/specs/login/spec.md":              "# Spec\n",
	}, "spec:login")
	if !ok {
		t.Fatalf("not rebuilt: %v", prov)
	}
	found := false
	for _, p := range prov {
		found = found || p.From == "artifact docs/specs/login/spec.md"
	}
	if !found || out.Spec == nil {
		t.Errorf("provenance %v spec %+v", prov, out.Spec)
	}
}

func TestRebuildNothingUsable(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"no stories":  {".orchestrate/workflows/sdc-1.yaml": rbTorn},
		"other kind":  {".orchestrate/workflows/sdc-1.yaml": "workflow: spec-pipeline\nstory: \"4.2\"\n  bad: [\n", "docs/stories/4.2.s.md": rbStory("InProgress", "")},
		"empty epic":  {".aiox/epic-9-state.yaml": ""},
		"empty specs": {"docs/specs/x/.pipeline-state.json": "{"},
	} {
		t.Run(name, func(t *testing.T) {
			r, cs := rbRepo(t, files)
			for _, c := range cs {
				if c.Status != StatusUnreadable {
					continue
				}
				_, prov, ok := Rebuild(r, c, nil)
				if ok || len(prov) == 0 {
					t.Errorf("%s: ok %v prov %v", c.ID, ok, prov)
				}
			}
		})
	}
}

func TestRebuildDeterministic(t *testing.T) {
	files := map[string]string{
		".orchestrate/workflows/sdc-1.yaml": rbTorn + "story: 4.3 4.2\n",
		"docs/stories/4.2.s.md":             rbStory("InProgress", rbFileList),
		"docs/stories/4.3.t.md":             "# Story 4.3: T\n**Status:** Draft\n",
	}
	r, cs := rbRepo(t, files)
	for _, c := range cs {
		if c.Status != StatusUnreadable {
			continue
		}
		a, pa, _ := Rebuild(r, c, cs)
		b, pb, _ := Rebuild(r, c, cs)
		if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(pa, pb) {
			t.Errorf("not deterministic")
		}
		if p, _ := rbPart(pa, "other stories named"); !strings.Contains(p.Detail, "4.3") {
			t.Errorf("the other story is not mentioned: %v", pa)
		}
	}
}

func TestRebuildChangeLogLayouts(t *testing.T) {
	for _, tt := range []struct {
		log  string
		role int
	}{
		{"| Date | Agent | Change |\n|---|---|---|\n| 2026-01-01 | @sm | Story created (Draft) |\n| 2026-01-02 | @po | Validated |\n", rbValidate},
		{"| Date | Version | Description | Author |\n|---|---|---|---|\n| 2026-01-03 | 1.1 | QA review | Quinn (Test Architect) |\n| 2026-01-02 | 1.0 | created | Bob (SM) |\n", rbReview},
		{"| Date | Status | Notes |\n|---|---|---|\n| 2026-01-03 | Ready for Review | done |\n", rbImplement},
		{"- 2026-01-03 @dev implemented the API\n- 2026-01-01 @sm created\n", rbImplement},
		{"| Date | Description |\n|---|---|\n| 2026-01-03 | something |\n", -1},
	} {
		st, _ := story.ParseStory("docs/stories/1.1.x.md", []byte("# Story 1.1: X\n**Status:** Done\n\n## Change Log\n"+tt.log), nil)
		row, ok := rbLatestLog(st)
		if got := map[bool]int{true: row.role, false: -1}[ok]; got != tt.role {
			t.Errorf("%q: role %d, want %d", tt.log, got, tt.role)
		}
	}
	for agent, role := range map[string]int{"Bob (SM)": rbCreate, "Sarah (PO)": rbValidate, "James (Dev Agent)": rbImplement, "Claude Code QA": rbReview, "Claude Code Review": rbReview, "someone": -1} {
		if got := rbAgentRole(agent); got != role {
			t.Errorf("%q: %d, want %d", agent, got, role)
		}
	}
}

// FuzzRebuild feeds arbitrary state, backup and story bytes to Rebuild: it
// never panics, a failed rebuild leaves the candidate as it was, and a
// successful one keeps the invariants.
func FuzzRebuild(f *testing.F) {
	f.Add(".orchestrate/workflows/sdc-1.yaml", []byte(rbTorn), []byte("status: paused\n"), []byte(rbStory("InProgress", rbFileList)))
	f.Add("qa/loop-status.json", []byte("{\x00"), []byte(`{"storyId":"4.2","status":"running"}`), []byte(rbStory("InReview", "")))
	f.Add(".aiox/epic-4-state.yaml", []byte("epic_state: [\n  4.2\n"), []byte(""), []byte(rbStory("Done", "\n## Change Log\n| a | b |\n|--|--|\n| 2026-01-01 | @qa |\n")))
	f.Add("docs/specs/x/.pipeline-state.json", []byte("{"), []byte("{}"), []byte(""))
	r, _ := rbRepo(f, nil)
	f.Fuzz(func(t *testing.T, statePath string, state, bak, storyData []byte) {
		if len(state)+len(bak)+len(storyData) > 1<<16 {
			return
		}
		root := t.TempDir()
		var src source.Source
		switch {
		case strings.HasPrefix(statePath, "qa/"):
			statePath, src = "qa/loop-status.json", qaloop.QALoopSource
		case strings.HasPrefix(statePath, ".aiox/"):
			statePath, src = ".aiox/epic-4-state.yaml", epic.EpicSource
		case strings.HasPrefix(statePath, "docs/specs/"):
			statePath, src = "docs/specs/x/.pipeline-state.json", spec.SpecSource
		default:
			statePath, src = ".orchestrate/workflows/sdc-1.yaml", wfstate.WorkflowStateSource
		}
		for p, data := range map[string][]byte{statePath: state, statePath + ".bak": bak, "docs/stories/4.2.s.md": storyData, "docs/specs/x/spec.md": []byte("# s\n")} {
			full := filepath.Join(root, filepath.FromSlash(p))
			_ = os.MkdirAll(filepath.Dir(full), 0o755)
			_ = os.WriteFile(full, data, 0o644)
		}
		repo := *r
		repo.Root, repo.Stories = root, map[string]*workflow.Story{}
		cs := discover.Scan(&repo, discover.Options{Sources: []source.Source{story.StorySource, src}}).Candidates
		for _, c := range cs {
			if c.Status != StatusUnreadable {
				continue
			}
			out, prov, ok := Rebuild(&repo, c, cs)
			rbCheckInvariants(t, c, out, prov, ok)
		}
	})
}

// A story candidate refers to its own file whether or not its Files list it
// (a story not in flight lists its File List only); another kind refers
// only to the files it lists.
func TestRbLinksOwnStoryFile(t *testing.T) {
	const p = ".aiox/workflow-state.md"
	cases := []struct {
		name string
		o    workflow.Candidate
		want bool
	}{
		{"story not in flight", workflow.Candidate{Source: workflow.SourceRef{Kind: workflow.KindStory, Path: p}, Files: []workflow.RefFile{{Path: "src/a.go"}}}, true},
		{"story in flight", workflow.Candidate{Source: workflow.SourceRef{Kind: workflow.KindStory, Path: p}, Files: []workflow.RefFile{{Path: p}}, Resumable: true}, true},
		{"another story", workflow.Candidate{Source: workflow.SourceRef{Kind: workflow.KindStory, Path: "docs/stories/1.1.md"}}, false},
		{"a state of another kind at that path", workflow.Candidate{Source: workflow.SourceRef{Kind: workflow.KindEpicState, Path: p}}, false},
		{"a state listing it", workflow.Candidate{Source: workflow.SourceRef{Kind: workflow.KindEpicState, Path: "x.yaml"}, Files: []workflow.RefFile{{Path: p}}}, true},
		{"evidence naming it", workflow.Candidate{Source: workflow.SourceRef{Kind: workflow.KindWorkflowState, Path: "y.yaml"}, Evidence: []workflow.SourceRef{{Path: p}}}, true},
	}
	for _, tc := range cases {
		if got := rbLinks(tc.o, p); got != tc.want {
			t.Errorf("%s: rbLinks = %v, want %v", tc.name, got, tc.want)
		}
	}
}
