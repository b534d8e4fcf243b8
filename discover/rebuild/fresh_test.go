package rebuild

import (
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Fresh starts from the .bak twin when it parses (every byte the framework
// wrote kept, the resume fields set), and renders the rebuilt candidate
// when there is no usable .bak; either way the result parses as its kind.
func TestFresh(t *testing.T) {
	const state = ".orchestrate/workflows/sdc-1.yaml"
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	bak := "# the framework's comment\nexecution_id: sdc-1\nworkflow: story-development-cycle\nstory: \"4.2\"\nstatus: interrupted\ncurrent_phase: implement\nresume_count: 2\ncustom_field: {kept: true}\n"
	rendered := []string{"execution_id: sdc-1", "story: \"4.2\"", "status: active", "resume_count: 1", `resumed_at: "2026-11-20T12:00:00Z"`}
	for _, tt := range []struct {
		name      string
		bak       string // "" for none
		want, not []string
	}{
		{"the .bak twin, its bytes kept", bak,
			[]string{"# the framework's comment\n", "custom_field: {kept: true}", "status: active", "resume_count: 3", `resumed_at: "2026-11-20T12:00:00Z"`}, nil},
		{"no .bak: the candidate rendered", "", rendered, []string{"custom_field"}},
		{"a torn .bak: the candidate rendered", rbTorn, rendered, []string{"custom_field"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{state: rbTorn, "docs/stories/4.2.s.md": rbStory("InProgress", "")}
			if tt.bak != "" {
				files[state+".bak"] = tt.bak
			}
			r, cs := rbRepo(t, files)
			var c workflow.Candidate
			for _, x := range cs {
				if x.ID == "workflow:sdc-1" {
					c = x
				}
			}
			out, prov, ok := Rebuild(r, c, nil)
			if !ok {
				t.Fatalf("not rebuilt: %v", prov)
			}
			got, err := Fresh(r.Root, out, state, now, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !ParsesAs(workflow.KindWorkflowState, state, got) {
				t.Errorf("the fresh state does not parse:\n%s", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(got), w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(string(got), n) {
					t.Errorf("holds %q:\n%s", n, got)
				}
			}
		})
	}
}

// With no .bak twin, a candidate of a kind Fresh cannot render is an error
// (there is nothing to write), never an empty state.
func TestFreshCannotRender(t *testing.T) {
	c := workflow.Candidate{ID: "x", Status: StatusRebuilt, Source: workflow.SourceRef{Kind: "no-such-kind", Path: "x.yaml"}}
	if got, err := Fresh(t.TempDir(), c, "x.yaml", time.Now(), nil); err == nil {
		t.Errorf("want an error, got %q", got)
	}
}
