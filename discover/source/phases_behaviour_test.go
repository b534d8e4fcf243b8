package source_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func mustYAML(t *testing.T, s string) map[string]any {
	t.Helper()
	m, err := tolerant.DecodeYAMLMap([]byte(s))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return m
}

func findingMessages(fs []workflow.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Message)
	}
	return out
}

func TestTypeOfAndAliasDefSpellings(t *testing.T) {
	tests := []struct {
		id  string
		typ workflow.Type
		def string
	}{
		{"Story-Development-Cycle", workflow.TypeSDC, workflow.DefSDC},
		{" SDC ", workflow.TypeSDC, workflow.DefSDC},
		{"development cycle", workflow.TypeSDC, workflow.DefSDC},
		{"QA Loop", workflow.TypeQALoop, workflow.DefQALoop},
		{"spec.pipeline", workflow.TypeSpec, workflow.DefSpec},
		{"execute--epic", workflow.TypeEpic, workflow.DefEpic},
		{"Execute_Epic_Plan", workflow.TypeEpic, workflow.DefEpic},
		{"greenfield-fullstack", workflow.TypeWorkflow, ""},
		{"", workflow.TypeWorkflow, ""},
	}
	for _, tt := range tests {
		if got := source.TypeOf(tt.id); got != tt.typ {
			t.Errorf("TypeOf(%q) = %v, want %v", tt.id, got, tt.typ)
		}
		if got := source.AliasDef(tt.id); got != tt.def {
			t.Errorf("AliasDef(%q) = %q, want %q", tt.id, got, tt.def)
		}
	}
}

func TestParseRefKeyLabel(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		in         any
		ok         bool
		want       source.PhaseRef
		key, label string
	}{
		{"3", true, source.PhaseRef{Raw: "3", Num: 3}, "#3", "3"},
		{"Phase 3", true, source.PhaseRef{Raw: "Phase 3", Num: 3}, "#3", "Phase 3"},
		{"phase_12", true, source.PhaseRef{Raw: "phase_12", Num: 12}, "#12", "phase_12"},
		{4, true, source.PhaseRef{Raw: "4", Num: 4}, "#4", "4"},
		{"3_self_healing", true, source.PhaseRef{Raw: "3_self_healing", Num: 3, Name: "self_healing"}, "n:self_healing", "self_healing"},
		{"2. Code Review", true, source.PhaseRef{Raw: "2. Code Review", Num: 2, Name: "Code Review"}, "n:code_review", "Code Review"},
		{" Review ", true, source.PhaseRef{Raw: "Review", Name: "Review"}, "n:review", "Review"},
		{long, true, source.PhaseRef{Raw: long[:200], Name: long[:200]}, "n:" + long[:200], long[:200]},
		{"", false, source.PhaseRef{}, "", ""},
		{nil, false, source.PhaseRef{}, "", ""},
		{[]any{"3"}, false, source.PhaseRef{}, "", ""},
		{map[string]any{"phase": 3}, false, source.PhaseRef{}, "", ""},
	}
	for _, tt := range tests {
		got, ok := source.ParseRef(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseRef(%#v) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		if got.Key() != tt.key || got.Label() != tt.label {
			t.Errorf("ParseRef(%#v): Key %q Label %q; want %q %q", tt.in, got.Key(), got.Label(), tt.key, tt.label)
		}
	}
}

func TestDefIndex(t *testing.T) {
	def := workflow.Definition{Phases: []workflow.PhaseDef{
		{ID: "plan", Name: "Planning"},
		{ID: "self-healing", Name: "Self Healing"},
		{ID: "review"},
	}}
	tests := []struct {
		ref  string
		want int
	}{
		{"1", 0},
		{"3", 2},
		{"4", -1},
		{"phase 0", -1},
		{"self_healing", 1},
		{"Self Healing", 1},
		{"3_review", 2},
		{"planning", 0},
		{"9_plan", 0}, // the name decides, not the number
		{"deploy", -1},
	}
	for _, tt := range tests {
		ref, _ := source.ParseRef(tt.ref)
		if got := source.DefIndex(def, ref); got != tt.want {
			t.Errorf("DefIndex(%q) = %d, want %d", tt.ref, got, tt.want)
		}
	}
}

// TestRecorded: phases recorded as lists, as mappings of results, and in
// several sources, read in a stable order with the first record winning and
// every unusable value reported.
func TestRecorded(t *testing.T) {
	m1 := mustYAML(t, `
phases_completed:
  - 1_plan
  - {phase: 2, agent: "@dev", outputs: [a.md, {path: b.md}, "", 5, [x]], status: failed}
  - [bad]
  - {agent: nobody}
phaseResults:
  "10_ship": done
  "2_build": skipped
  review: weird
  "1_plan": completed
history: oops
`)
	m2 := mustYAML(t, `
phases_completed:
  - {id: deploy, output: out.txt, result: pass}
  - {name: docs, artifacts: {file: c.md}, state: n/a}
  - {step: lint, artifact: {nope: 1}}
  - {phase: 1_plan, status: running}
`)
	f := &source.Fields{Path: "state.yaml"}
	got := source.Recorded(f, []map[string]any{m1, nil, m2}, []source.RecList{
		{Key: "phases_completed", Dflt: workflow.PhaseCompleted},
		{Key: "phaseResults", Dflt: workflow.PhasePending},
		{Key: "history", Dflt: workflow.PhasePending},
	})
	ref := func(s string) source.PhaseRef { r, _ := source.ParseRef(s); return r }
	want := []source.Rec{
		{Ref: ref("1_plan"), State: workflow.PhaseCompleted, From: "phases_completed"},
		{Ref: ref("2"), Agent: "dev", Outputs: []string{"a.md", "b.md", "5"}, State: "active", From: "phases_completed"},
		{Ref: ref("2_build"), State: workflow.PhaseSkipped, From: "phaseResults"},
		{Ref: ref("10_ship"), State: workflow.PhaseCompleted, From: "phaseResults"},
		{Ref: ref("review"), State: workflow.PhasePending, From: "phaseResults"},
		{Ref: ref("deploy"), Outputs: []string{"out.txt"}, State: workflow.PhaseCompleted, From: "phases_completed"},
		{Ref: ref("docs"), Outputs: []string{"c.md"}, State: workflow.PhaseSkipped, From: "phases_completed"},
		{Ref: ref("lint"), State: workflow.PhaseCompleted, From: "phases_completed"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Recorded =\n%+v\nwant\n%+v", got, want)
	}
	wantMsgs := []string{
		"field outputs[]: want text, got a list",
		"field phases_completed[]: want a phase name or a mapping, got a list",
		"field history: want a list or a mapping of phases, got text",
		"field artifact: want text or a list of text, got a mapping",
	}
	if msgs := findingMessages(f.Findings); !reflect.DeepEqual(msgs, wantMsgs) {
		t.Errorf("findings =\n%q\nwant\n%q", msgs, wantMsgs)
	}
}

func TestRecordedStopsAtAThousand(t *testing.T) {
	var l []any
	for i := 0; i < 1500; i++ {
		l = append(l, "step "+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676)))
	}
	got := source.Recorded(&source.Fields{}, []map[string]any{{"steps": l}}, []source.RecList{{Key: "steps"}})
	if len(got) != 1000 {
		t.Errorf("Recorded kept %d records, want the first 1000", len(got))
	}
}

func TestStrTimeOverSources(t *testing.T) {
	srcs := []map[string]any{
		{"name": nil, "when": "soon"},
		{"title": "T", "updated": "2026-01-02T03:04:05Z"},
	}
	f := &source.Fields{}
	if s, k := source.Str(f, srcs, "name", "title"); s != "T" || k != "title" {
		t.Errorf("Str = %q %q", s, k)
	}
	if s, k := source.Str(f, srcs, "none"); s != "" || k != "" {
		t.Errorf("Str(absent) = %q %q", s, k)
	}
	if tm, k := source.Time(f, srcs, "updated"); k != "updated" || !tm.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("Time = %v %q", tm, k)
	}
	// "soon" is found first, is not a time: a finding, and the later source is
	// still asked for the key.
	if tm, k := source.Time(f, srcs, "when"); k != "" || !tm.IsZero() {
		t.Errorf("Time(when) = %v %q", tm, k)
	}
	if msgs := findingMessages(f.Findings); len(msgs) != 1 || msgs[0] != "field when: want a timestamp, got text" {
		t.Errorf("findings = %q", msgs)
	}
}

func TestMode(t *testing.T) {
	for in, want := range map[string]string{
		"YOLO": "autopilot", "auto-pilot": "autopilot", "Auto": "autopilot",
		" Interactive ": "interactive", "pre_flight": "preflight",
		"Custom Mode": "custom mode", "": "",
	} {
		if got := source.Mode(in); got != want {
			t.Errorf("Mode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSkipBeforeAndCurrentPhaseID(t *testing.T) {
	const (
		P = workflow.PhasePending
		C = workflow.PhaseCompleted
		S = workflow.PhaseSkipped
		R = workflow.PhaseCurrent
	)
	tests := []struct {
		name  string
		in    []string
		cur   int
		want  []string
		curID string
	}{
		{"before the current one", []string{P, C, P, R, P}, 3, []string{S, C, S, R, P}, "p3"},
		{"before the last completed", []string{P, C, P, C, P}, -1, []string{S, C, S, C, P}, ""},
		{"nothing completed", []string{P, P}, -1, []string{P, P}, ""},
		{"index past the end", []string{P, R}, 9, []string{S, R}, "p1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ps []workflow.Phase
			for i, s := range tt.in {
				ps = append(ps, workflow.Phase{ID: "p" + string(rune('0'+i)), Status: s})
			}
			source.SkipBefore(ps, tt.cur)
			var got []string
			for _, p := range ps {
				got = append(got, p.Status)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("statuses = %v, want %v", got, tt.want)
			}
			if id := source.CurrentPhaseID(&workflow.Candidate{Phases: ps}); id != tt.curID {
				t.Errorf("CurrentPhaseID = %q, want %q", id, tt.curID)
			}
		})
	}
}
