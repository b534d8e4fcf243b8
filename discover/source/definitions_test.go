package source_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// wfPhaseIDs lists the ids of a definition's phases.
func wfPhaseIDs(d workflow.Definition) []string {
	var ids []string
	for _, p := range d.Phases {
		ids = append(ids, p.ID)
	}
	return ids
}

func wfPhaseAgents(d workflow.Definition) []string {
	var ids []string
	for _, p := range d.Phases {
		ids = append(ids, p.Agent)
	}
	return ids
}

func TestParseDefinitionReference(t *testing.T) {
	tests := []struct {
		file     string
		id, name string
		phases   []string
		agents   []string
		maxIter  int
		check    func(t *testing.T, d workflow.Definition)
	}{
		{
			file: "story-development-cycle.yaml", id: "story-development-cycle", name: "Story Development Cycle",
			phases: []string{"create", "validate", "implement", "review"},
			agents: []string{"sm", "po", "dev", "qa"},
			check: func(t *testing.T, d workflow.Definition) {
				if got := d.Phases[1].Decision; !reflect.DeepEqual(got, map[string]string{"GO": "implement", "NO-GO": "create"}) {
					t.Errorf("validate decision = %v", got)
				}
				if d.Phases[0].Task != "create-next-story.md" || d.Phases[0].Next != "validate" {
					t.Errorf("create phase = %+v", d.Phases[0])
				}
				if d.Phases[3].Decision["FAIL"] != "implement" {
					t.Errorf("review decision = %v", d.Phases[3].Decision)
				}
			},
		},
		{
			file: "qa-loop.yaml", id: "qa-loop", name: "QA Loop",
			phases:  []string{"review", "fix", "escalate"},
			agents:  []string{"qa", "dev", "master"},
			maxIter: 5,
			check: func(t *testing.T, d workflow.Definition) {
				if d.Phases[0].Decision["REJECT"] != "fix" || d.Phases[0].Decision["BLOCKED"] != "escalate" {
					t.Errorf("review decision = %v", d.Phases[0].Decision)
				}
			},
		},
		{
			file: "spec-pipeline.yaml", id: "spec-pipeline", name: "Spec Pipeline",
			phases: []string{"gather", "assess", "research", "spec", "critique"},
			agents: []string{"pm", "architect", "analyst", "pm", "qa"},
			check: func(t *testing.T, d workflow.Definition) {
				if d.Phases[2].SkipIf != "complexity class is SIMPLE" {
					t.Errorf("research skip_if = %q", d.Phases[2].SkipIf)
				}
				if d.Phases[4].Decision["NEEDS_REVISION"] != "spec" {
					t.Errorf("critique decision = %v", d.Phases[4].Decision)
				}
				if d.Index("Write Specification") != 3 || d.Index("CRITIQUE") != 4 || d.Index("nope") != -1 {
					t.Errorf("Index lookups wrong")
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "workflows", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			d, err := source.ParseDefinition(data)
			if err != nil {
				t.Fatalf("source.ParseDefinition: %v", err)
			}
			if d.ID != tt.id || d.Name != tt.name || d.MaxIterations != tt.maxIter {
				t.Errorf("got id=%q name=%q max=%d", d.ID, d.Name, d.MaxIterations)
			}
			if got := wfPhaseIDs(d); !reflect.DeepEqual(got, tt.phases) {
				t.Errorf("phases = %v, want %v", got, tt.phases)
			}
			if got := wfPhaseAgents(d); !reflect.DeepEqual(got, tt.agents) {
				t.Errorf("agents = %v, want %v", got, tt.agents)
			}
			tt.check(t, d)
		})
	}
}

// TestParseDefinitionSharedPack parses every workflow of the reference pack
// when the shared folder is present beside the project.
func TestParseDefinitionSharedPack(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "reference", "nexos-pack", "workflows")
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(files) == 0 {
		t.Skip("shared reference pack not present")
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		d, err := source.ParseDefinition(data)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if d.ID+".yaml" != filepath.Base(file) || len(d.Phases) == 0 {
			t.Errorf("%s: id %q, %d phases", file, d.ID, len(d.Phases))
		}
		if d.ID == "brownfield-discovery" {
			want := []string{"architecture-scan", "db-audit", "frontend-scan", "draft-assessment", "qa-review", "finalize"}
			if got := wfPhaseIDs(d); !reflect.DeepEqual(got, want) {
				t.Errorf("brownfield phases = %v", got)
			}
		}
	}
}

func TestParseDefinitionVariants(t *testing.T) {
	tests := []struct {
		name   string
		yaml   string
		id     string
		phases []string
		agents []string
	}{
		{"flat layout", "id: flat\nname: Flat\nphases:\n  - id: a\n    agent: '@dev'\n  - id: b\n", "flat", []string{"a", "b"}, []string{"dev", ""}},
		{"phases under workflow", "workflow:\n  id: nested\n  phases:\n    - {id: one, agent: qa}\n", "nested", []string{"one"}, []string{"qa"}},
		{"id from name", "workflow: {id: n}\nphases:\n  - name: Story Creation\n    agent: sm\n", "n", []string{"story-creation"}, []string{"sm"}},
		{"non-mapping items skipped", "phases:\n  - 1\n  - plain\n  - {id: ok}\n", "", []string{"ok"}, []string{""}},
		{"decision with odd values", "phases:\n  - id: x\n    decision: {A: 1, B: [c], C: next}\n", "", []string{"x"}, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := source.ParseDefinition([]byte(tt.yaml))
			if err != nil {
				t.Fatalf("source.ParseDefinition: %v", err)
			}
			if d.ID != tt.id {
				t.Errorf("id = %q, want %q", d.ID, tt.id)
			}
			if got := wfPhaseIDs(d); !reflect.DeepEqual(got, tt.phases) {
				t.Errorf("phases = %v, want %v", got, tt.phases)
			}
			if got := wfPhaseAgents(d); !reflect.DeepEqual(got, tt.agents) {
				t.Errorf("agents = %v, want %v", got, tt.agents)
			}
		})
	}
	d, _ := source.ParseDefinition([]byte("phases:\n  - id: x\n    decision: {A: 1, B: [c], C: next}\n"))
	if want := map[string]string{"A": "1", "C": "next"}; !reflect.DeepEqual(d.Phases[0].Decision, want) {
		t.Errorf("decision = %v, want %v", d.Phases[0].Decision, want)
	}
}

func TestParseDefinitionBad(t *testing.T) {
	tests := []struct {
		name string
		data string
		code string
	}{
		{"empty", "", "empty"},
		{"syntax", "phases: [\n  - id: a\n", "syntax"},
		{"truncated", "workflow:\n  id: x\nphases:\n  - id: a\n    decision: {GO: ", "syntax"},
		{"top-level list", "- id: a\n- id: b\n", "not-a-mapping"},
		{"no phases", "workflow: {id: x}\n", "no-phases"},
		{"phases wrong type", "phases: 5\n", "no-phases"},
		{"phases mapping", "phases: {a: {agent: dev}}\n", "no-phases"},
		{"no usable phases", "phases: [1, two, [3]]\n", "no-phases"},
		{"items without id or name", "phases:\n  - agent: dev\n", "no-phases"},
		{"invalid utf8", "phases:\n  - id: \xff\xfe\n", "invalid-utf8"},
		{"alias bomb", sourcetest.AliasBomb(), "alias-bomb"},
		{"too deep", strings.Repeat("[", 100) + strings.Repeat("]", 100), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := source.ParseDefinition([]byte(tt.data))
			if err == nil {
				t.Fatalf("no error, got %+v", d)
			}
			var de *tolerant.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %T %v is not a source.DecodeError", err, err)
			}
			if tt.code != "" && de.Code != tt.code {
				t.Errorf("code = %q (%v), want %q", de.Code, err, tt.code)
			}
			f := source.DecodeFinding("w.yaml", err)
			if f.Check != workflow.CheckParse || f.Severity != workflow.Blocking || f.Path != "w.yaml" {
				t.Errorf("finding = %+v", f)
			}
		})
	}
}

func TestLoadDefinitions(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for _, name := range []string{"story-development-cycle.yaml", "qa-loop.yaml", "spec-pipeline.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "workflows", name))
		if err != nil {
			t.Fatal(err)
		}
		files[".nexos/workflows/"+name] = string(data)
	}
	files[".nexos/workflows/broken.yaml"] = "phases: [\n"
	files[".nexos/workflows/nophases.yml"] = "workflow: {id: empty}\n"
	files[".nexos/workflows/noid.yaml"] = "phases: [{id: only}]\n"
	files[".nexos/workflows/binary.yaml"] = "phases:\x00\x01"
	// a later folder defining the same id does not win
	files["workflows/qa-loop.yaml"] = "workflow: {id: qa-loop}\nphases: [{id: other}]\n"
	files["workflows/custom.yaml"] = "workflow: {id: custom, name: Custom}\nphases: [{id: step, agent: dev}]\n"
	sourcetest.Write(t, root, files)

	r, findings := source.NewRepo(root, config.Default())
	var ids []string
	for id := range r.Definitions {
		ids = append(ids, id)
	}
	wantIDs := []string{"custom", "noid", "qa-loop", "spec-pipeline", "story-development-cycle"}
	if !reflect.DeepEqual(sourcetest.Sorted(ids), wantIDs) {
		t.Errorf("definitions = %v, want %v", sourcetest.Sorted(ids), wantIDs)
	}
	if got := r.Definitions["qa-loop"]; got.Source != ".nexos/workflows/qa-loop.yaml" || len(got.Phases) != 3 {
		t.Errorf("qa-loop = %+v", got)
	}
	if got := r.Definition("epic-execution"); got.Source != "builtin" {
		t.Errorf("epic-execution should fall back to the built-in, got %+v", got)
	}
	if got := r.Definition("nope"); len(got.Phases) != 0 {
		t.Errorf("unknown definition = %+v", got)
	}
	codes := map[string]string{}
	for _, f := range findings {
		if f.Severity != workflow.Warning || f.Check != workflow.CheckParse || !strings.HasSuffix(f.Message, "(using the built-in definition)") {
			t.Errorf("finding not a downgraded parse warning: %+v", f)
		}
		codes[f.Path] = f.Code
	}
	want := map[string]string{
		".nexos/workflows/broken.yaml":  "syntax",
		".nexos/workflows/nophases.yml": "no-phases",
		".nexos/workflows/binary.yaml":  "binary",
	}
	if !reflect.DeepEqual(codes, want) {
		t.Errorf("finding codes = %v, want %v", codes, want)
	}
}

func FuzzParseDefinition(f *testing.F) {
	for _, name := range []string{"story-development-cycle.yaml", "qa-loop.yaml", "spec-pipeline.yaml"} {
		if data, err := os.ReadFile(filepath.Join("testdata", "workflows", name)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("phases: [\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := source.ParseDefinition(data)
		if err != nil {
			var de *tolerant.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error is not a source.DecodeError: %T %v", err, err)
			}
			if fd := source.DecodeFinding("w.yaml", err); fd.Check != workflow.CheckParse || fd.Code == "" {
				t.Fatalf("bad finding %+v", fd)
			}
			return
		}
		if len(d.Phases) == 0 || len(d.Phases) > len(data) {
			t.Fatalf("%d phases from %d bytes", len(d.Phases), len(data))
		}
		for _, p := range d.Phases {
			if p.ID == "" || p.Name == "" {
				t.Fatalf("phase without id or name: %+v", p)
			}
		}
	})
}

// The built-in definitions are built once: looking one up allocates
// nothing, and a caller's copy of the map does not change the next one.
func TestBuiltinDefinitionsBuiltOnce(t *testing.T) {
	r := &source.Repo{}
	if n := testing.AllocsPerRun(10, func() { _ = r.Definition(workflow.DefSDC) }); n != 0 {
		t.Errorf("Definition allocates %v times", n)
	}
	m := source.BuiltinDefinitions()
	delete(m, workflow.DefSDC)
	if _, ok := source.BuiltinDefinitions()[workflow.DefSDC]; !ok {
		t.Error("deleting from one result changed the next")
	}
	d, ok := source.BuiltinDefinition(workflow.DefQALoop)
	if !ok || d.MaxIterations != 5 || len(d.Phases) != 3 {
		t.Errorf("BuiltinDefinition(qa-loop) = %+v, %v", d, ok)
	}
	if _, ok := source.BuiltinDefinition("nope"); ok {
		t.Error("BuiltinDefinition(nope) found")
	}
}
