package handoff

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover"
	"github.com/orchestrate-dev/orchestrate/discover/rebuild"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

var rbNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// rbFixture writes files, scans, and rebuilds candidate id.
func rbFixture(t *testing.T, files map[string]string, id string) (string, workflow.Candidate) {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		if err := gitfixture.WriteFile(root, p, content); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := discover.NewRepo(root, config.Default())
	cs := discover.Scan(r, discover.Options{}).Candidates
	for _, c := range cs {
		if c.ID == id {
			out, prov, ok := rebuild.Rebuild(r, c, cs)
			if !ok {
				t.Fatalf("%s not rebuilt: %v", id, prov)
			}
			return root, out
		}
	}
	t.Fatalf("no candidate %s", id)
	return "", workflow.Candidate{}
}

// rbFiles reads every file under root (relative path -> content).
func rbFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rbRescan scans root again and returns candidate id.
func rbRescan(t *testing.T, root, id string) workflow.Candidate {
	t.Helper()
	r, _ := discover.NewRepo(root, config.Default())
	for _, c := range discover.Scan(r, discover.Options{}).Candidates {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no candidate %s after the write", id)
	return workflow.Candidate{}
}

const (
	rbTornWF = "execution_id: sdc-1\nworkflow: story-development-cycle\nstory: \"4.2\"\nphases_completed:\n  - {phase: create, agent: sm\n"
	rbStory  = "# Story 4.2: S\n\n**Status:** InProgress\n\n## File List\n- src/a.go\n"
)

func TestWriteRebuiltFromBackupKeepsItsBytes(t *testing.T) {
	bak := "# the framework's comment\nexecution_id: sdc-1\nworkflow: story-development-cycle\nstory: \"4.2\"\nstatus: interrupted\ncurrent_phase: implement\nresume_count: 2\ncustom_field: {kept: true}\n"
	root, c := rbFixture(t, map[string]string{
		".orchestrate/workflows/sdc-1.yaml":     rbTornWF,
		".orchestrate/workflows/sdc-1.yaml.bak": bak,
		"docs/stories/4.2.s.md":                 rbStory,
	}, "workflow:sdc-1")
	before := rbFiles(t, root)
	b, err := WriteRebuilt(root, c, rbNow)
	if err != nil {
		t.Fatal(err)
	}
	after := rbFiles(t, root)
	state := after[".orchestrate/workflows/sdc-1.yaml"]
	for _, want := range []string{"# the framework's comment", "custom_field: {kept: true}", "status: active", "resumed_at: \"2026-11-20T12:00:00Z\"", "resume_count: 3"} {
		if !strings.Contains(state, want) {
			t.Errorf("rebuilt state lacks %q:\n%s", want, state)
		}
	}
	if after[".orchestrate/workflows/sdc-1.yaml.bak"] != bak {
		t.Errorf("the .bak twin changed")
	}
	if got := after[".orchestrate/workflows/sdc-1.yaml.corrupt-20261120T120000Z"]; got != rbTornWF {
		t.Errorf("corrupt copy %q", got)
	}
	if re := rbRescan(t, root, "workflow:sdc-1"); re.Status != "active" {
		t.Errorf("after the write: status %s", re.Status)
	}
	if err := b.Restore(); err != nil {
		t.Fatal(err)
	}
	restored := rbFiles(t, root)
	delete(restored, ".orchestrate/workflows/sdc-1.yaml.corrupt-20261120T120000Z")
	if len(restored) != len(before) {
		t.Errorf("files after restore: %d, before %d", len(restored), len(before))
	}
	for p, v := range before {
		if restored[p] != v {
			t.Errorf("%s not restored", p)
		}
	}
}

func TestWriteRebuiltRendersEachKind(t *testing.T) {
	for _, tt := range []struct {
		name, id, path string
		files          map[string]string
		want           []string
		check          func(t *testing.T, re workflow.Candidate)
	}{
		{
			name: "workflow state", id: "workflow:sdc-1", path: ".orchestrate/workflows/sdc-1.yaml",
			files: map[string]string{".orchestrate/workflows/sdc-1.yaml": rbTornWF, "docs/stories/4.2.s.md": rbStory},
			want:  []string{"execution_id: sdc-1", "workflow: story-development-cycle", "story: \"4.2\"", "current_phase: implement", "status: active", "resume_count: 1", "rebuilt_at:"},
			check: func(t *testing.T, re workflow.Candidate) {
				if re.Type != workflow.TypeSDC || re.Position.Name != "Implementation" {
					t.Errorf("type %s position %s", re.Type, re.Position)
				}
			},
		},
		{
			name: "qa loop", id: "qa-loop:2.1", path: "qa/2.1/loop-status.json",
			files: map[string]string{"qa/2.1/loop-status.json": "{\"storyId\": \"2.1\",", "docs/stories/2.1.x.md": "# Story 2.1: X\n**Status:** InProgress\n"},
			want:  []string{`"storyId": "2.1"`, `"status": "active"`, `"lastVerdict": "REJECT"`, `"resumeCount": 1`},
			check: func(t *testing.T, re workflow.Candidate) {
				if re.QA == nil || re.QA.LastVerdict != "REJECT" || !re.Resumable {
					t.Errorf("qa %+v resumable %v", re.QA, re.Resumable)
				}
			},
		},
		{
			name: "epic", id: "epic:3", path: ".aiox/epic-3-state.yaml",
			files: map[string]string{".aiox/epic-3-state.yaml": "epic_state:\n  epic_id: \"3\"\n  stories: [\"3.1\", \"3.4\"", "docs/stories/3.1.a.md": "# Story 3.1: A\n**Status:** Done\n", "docs/stories/3.4.b.md": "# Story 3.4: B\n**Status:** InProgress\n"},
			want:  []string{"epic_state:", "  epic_id: \"3\"", "  status: active", "  resume_count: 1", "id: \"3.4\""},
			check: func(t *testing.T, re workflow.Candidate) {
				if re.Epic == nil || len(re.Epic.Waves) != 1 || len(re.Stories) != 2 {
					t.Errorf("epic %+v stories %v", re.Epic, re.Stories)
				}
			},
		},
		{
			name: "spec", id: "spec:login", path: "docs/specs/login/.pipeline-state.json",
			files: map[string]string{"docs/specs/login/.pipeline-state.json": "{", "docs/specs/login/requirements.json": "{}", "docs/specs/login/spec.md": "# s\n"},
			want:  []string{`"status": "active"`, `"phase": "gather"`},
			check: func(t *testing.T, re workflow.Candidate) {
				if re.Spec == nil || re.Status != "active" {
					t.Errorf("spec %+v status %s", re.Spec, re.Status)
				}
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, c := rbFixture(t, tt.files, tt.id)
			b, err := updateOrRebuild(root, c, rbNow, wrappersFor(c.Source.Kind))
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(tt.path)))
			for _, w := range tt.want {
				if !strings.Contains(string(data), w) {
					t.Errorf("lacks %q:\n%s", w, data)
				}
			}
			tt.check(t, rbRescan(t, root, tt.id))
			if !b.unchangedSinceUpdate() {
				t.Errorf("the backup does not know what was written")
			}
			if err := b.Restore(); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(tt.path))); string(got) != tt.files[tt.path] {
				t.Errorf("not restored: %q", got)
			}
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(tt.path)) + ".bak"); err == nil {
				t.Errorf("a .bak was left behind")
			}
		})
	}
}

func TestWriteRebuiltRefuses(t *testing.T) {
	root, c := rbFixture(t, map[string]string{".orchestrate/workflows/sdc-1.yaml": rbTornWF, "docs/stories/4.2.s.md": rbStory}, "workflow:sdc-1")
	state := filepath.Join(root, ".orchestrate/workflows/sdc-1.yaml")
	notRebuilt := c
	notRebuilt.Status = "interrupted"
	if _, err := WriteRebuilt(root, notRebuilt, rbNow); err == nil {
		t.Errorf("wrote a state that is not rebuilt")
	}
	// repaired since discovery
	if err := os.WriteFile(state, []byte("execution_id: sdc-1\nstatus: paused\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteRebuilt(root, c, rbNow); err == nil || !strings.Contains(err.Error(), "parses now") {
		t.Errorf("overwrote a repaired state: %v", err)
	}
	// a symlink, a folder, outside the repository
	os.Remove(state)
	os.Symlink("elsewhere.yaml", state)
	if _, err := WriteRebuilt(root, c, rbNow); err == nil {
		t.Errorf("replaced a symlink")
	}
	os.Remove(state)
	os.Mkdir(state, 0o755)
	if _, err := WriteRebuilt(root, c, rbNow); err == nil {
		t.Errorf("replaced a folder")
	}
	out := c
	out.Source.Path = "../x.yaml"
	if _, err := WriteRebuilt(root, out, rbNow); err == nil {
		t.Errorf("wrote outside the repository")
	}
	for _, p := range []string{".orchestrate/workflows/sdc-1.yaml.corrupt-20261120T120000Z"} {
		if _, err := os.Stat(filepath.Join(root, p)); err == nil {
			t.Errorf("%s written by a refused call", p)
		}
	}
}

func TestWriteRebuiltKeepsEveryCorruptCopy(t *testing.T) {
	root, c := rbFixture(t, map[string]string{".orchestrate/workflows/sdc-1.yaml": rbTornWF, "docs/stories/4.2.s.md": rbStory}, "workflow:sdc-1")
	first, err := WriteRebuilt(root, c, rbNow)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Restore(); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteRebuilt(root, c, rbNow); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, ".orchestrate/workflows")
	for _, name := range []string{"sdc-1.yaml.corrupt-20261120T120000Z", "sdc-1.yaml.corrupt-20261120T120000Z-2"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(data, []byte(rbTornWF)) {
			t.Errorf("%s: %q %v", name, data, err)
		}
	}
}

func TestUpdateOrRebuildPatchesOthers(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, ".orchestrate/workflows/x.yaml")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("execution_id: x\nstatus: paused\n"), 0o644)
	c := workflow.Candidate{ID: "workflow:x", Status: "paused", Source: workflow.SourceRef{Kind: workflow.KindWorkflowState, Path: ".orchestrate/workflows/x.yaml"}}
	if _, err := updateOrRebuild(root, c, rbNow, nil); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if !strings.Contains(string(data), "status: active") || !strings.Contains(string(data), "resume_count: 1") {
		t.Errorf("not patched: %s", data)
	}
}
