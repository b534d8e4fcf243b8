package source_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// A BMAD v4 workflow (workflow.sequence) is a workflow definition: every
// step with an agent, a named step or an action is a phase, in order.
func TestParseDefinitionBMADSequence(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "bmad-v4", "greenfield-fullstack.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	def, err := source.ParseDefinition(data)
	if err != nil {
		t.Fatalf("ParseDefinition: %v", err)
	}
	if def.ID != "greenfield-fullstack" || def.Name != "Greenfield Full-Stack Application Development" {
		t.Errorf("id, name = %q, %q", def.ID, def.Name)
	}
	wantIDs := []string{
		"analyst-project-brief.md", "pm-prd.md", "ux-expert-front-end-spec.md", "ux-expert-v0-prompt-optional",
		"architect-fullstack-architecture.md", "pm-prd.md-if-needed", "po-all-artifacts", "various",
		"project-setup-guidance", "development-order-guidance", "shard-documents", "create-story",
		"review-draft-story", "implement-story", "review-implementation", "address-qa-feedback", "epic-retrospective",
	}
	if got := wfPhaseIDs(def); !reflect.DeepEqual(got, wantIDs) {
		t.Errorf("phases = %q\nwant     %q", got, wantIDs)
	}
	wantAgents := []string{"analyst", "pm", "ux-expert", "ux-expert", "architect", "pm", "po", "", "", "", "po", "sm", "analyst", "dev", "qa", "dev", "po"}
	if got := wfPhaseAgents(def); !reflect.DeepEqual(got, wantAgents) {
		t.Errorf("agents = %q\nwant     %q", got, wantAgents)
	}
	for i, p := range def.Phases[:len(def.Phases)-1] {
		if p.Next != def.Phases[i+1].ID {
			t.Errorf("phase %s next = %q, want %q", p.ID, p.Next, def.Phases[i+1].ID)
		}
	}
	if p := def.Phases[3]; p.SkipIf != "user_wants_ai_generation" {
		t.Errorf("condition = %q", p.SkipIf)
	}
}

func TestParseDefinitionSequenceBadInput(t *testing.T) {
	tests := []struct {
		name, data string
		ok         bool
	}{
		{"only markers", "workflow:\n  id: x\n  sequence:\n    - workflow_end:\n      notes: x\n", false},
		{"not mappings", "workflow:\n  id: x\n  sequence: [1, two, [3]]\n", false},
		{"one agent", "workflow:\n  id: x\n  sequence:\n    - agent: '@dev'\n", true},
		{"hostile label", "workflow:\n  id: x\n  sequence:\n    - step: \"\\e[31m../../etc\"\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, err := source.ParseDefinition([]byte(tt.data))
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok %v", err, tt.ok)
			}
			for _, p := range def.Phases {
				if strings.ContainsAny(p.ID, "/\x1b ") {
					t.Errorf("unsafe id %q", p.ID)
				}
			}
		})
	}
}

// A stock BMAD v4 tree loads its workflows without a finding, and its
// core-config.yaml adds the story folders it names.
func TestFrameworkConfig(t *testing.T) {
	fixture := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", "bmad-v4", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name    string
		files   map[string]string
		stories []string
	}{
		{
			name: "stock BMAD v4",
			files: map[string]string{
				".bmad-core/core-config.yaml":                    fixture("core-config.yaml"),
				".bmad-core/workflows/greenfield-fullstack.yaml": fixture("greenfield-fullstack.yaml"),
			},
			stories: []string{"docs/stories/**/*.md", "docs/qa/*.md"},
		},
		{
			name:    "stories elsewhere",
			files:   map[string]string{".bmad-core/core-config.yaml": "devStoryLocation: planning/stories/\nqa:\n  qaLocation: ./planning/qa\n"},
			stories: []string{"docs/stories/**/*.md", "planning/stories/**/*.md", "planning/qa/*.md"},
		},
		{
			name:    "missing keys",
			files:   map[string]string{".bmad-core/core-config.yaml": "slashPrefix: BMad\nqa: {}\n"},
			stories: []string{"docs/stories/**/*.md"},
		},
		{
			name:    "placeholders and escapes ignored",
			files:   map[string]string{".bmad-core/core-config.yaml": "devStoryLocation: '{root}/docs/stories'\nqa:\n  qaLocation: ../outside\n"},
			stories: []string{"docs/stories/**/*.md"},
		},
		{
			name:    "absolute and wrong types ignored",
			files:   map[string]string{".bmad-core/core-config.yaml": "devStoryLocation: /etc\nqa: [a, b]\n"},
			stories: []string{"docs/stories/**/*.md"},
		},
		{
			name:    "no config",
			files:   map[string]string{},
			stories: []string{"docs/stories/**/*.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for p, body := range tt.files {
				full := filepath.Join(root, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cfg := config.Default()
			r, fs := source.NewRepo(root, cfg)
			for _, f := range fs {
				if f.Severity != workflow.Info {
					t.Errorf("finding %s: %s", f.Code, f.Message)
				}
			}
			if got := r.Config.Sources.Stories; !reflect.DeepEqual(got, tt.stories) {
				t.Errorf("stories = %q, want %q", got, tt.stories)
			}
			if !reflect.DeepEqual(cfg.Sources.Stories, config.Default().Sources.Stories) {
				t.Errorf("caller's config modified")
			}
		})
	}
}

func TestUnwrapAndFinishedBy(t *testing.T) {
	tests := []struct {
		name    string
		m       map[string]any
		wrapper string
		field   string
	}{
		{"engine_state", map[string]any{"engine_state": map[string]any{"status": "completed", "completed_at": "2026-01-01"}}, "engine_state", "completed_at"},
		{"any single wrapper", map[string]any{"run": map[string]any{"current_phase": "COMPLETE"}}, "run", "current_phase"},
		{"named wrapper with siblings", map[string]any{"version": 2, "pipelineState": map[string]any{"finishedAt": "x"}}, "pipelineState", "finishedAt"},
		{"not a wrapper: part of a state", map[string]any{"workflow": map[string]any{"id": "x"}}, "", ""},
		{"not a wrapper: two mappings", map[string]any{"a": map[string]any{}, "b": map[string]any{}}, "", ""},
		{"unnamed with siblings", map[string]any{"status": "x", "data": map[string]any{"phase": "done"}}, "", ""},
		{"null completion", map[string]any{"completed_at": nil, "finished_at": "null", "phase": "build"}, "", ""},
		{"phase FINISHED", map[string]any{"stage": "FINISHED"}, "", "stage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, k := source.Unwrap(tt.m)
			if k != tt.wrapper {
				t.Errorf("wrapper = %q, want %q", k, tt.wrapper)
			}
			if field, _ := source.FinishedBy([]map[string]any{st}); field != tt.field {
				t.Errorf("finished by %q, want %q", field, tt.field)
			}
		})
	}
}
