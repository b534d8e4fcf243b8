package bmad6

import (
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestQuickSpec: an interrupted quick-spec (tech-spec-wip.md in progress)
// is a candidate at priority 3 resuming at the step after its
// stepsCompleted, wherever the implementation artifacts are; a finished or
// malformed one is not.
func TestQuickSpec(t *testing.T) {
	wip := string(readFixture(t, "tech_spec_wip.md"))
	steps := func(s string) string { return strings.Replace(wip, "stepsCompleted: [1, 2]", s, 1) }
	const impl = "_bmad-output/implementation-artifacts/"
	tests := []struct {
		name    string
		files   map[string]string
		id      string // "" for no candidate
		item    string
		done    int
		current string
		command string
	}{
		{"6.0 default folder, steps 1-2", map[string]string{impl + "tech-spec-wip.md": wip, "src/labels/print.ts": "x", "src/labels/queue.ts": "x", "_bmad/bmm/config.yaml": "# Version: 6.0.2\nimplementation_artifacts: \"{project-root}/_bmad-output/implementation-artifacts\"\n"},
			"quick-spec:bulk-label-reprint", "step 3", 2, "generate", "/bmad-bmm-quick-spec"},
		{"step 1 only (block list)", map[string]string{impl + "tech-spec-wip.md": steps("stepsCompleted:\n  - 1")},
			"quick-spec:bulk-label-reprint", "step 2", 1, "investigate", "/bmad-quick-spec"},
		{"beside an alpha.9 ledger", map[string]string{"docs/sprint-artifacts/sprint-status.yaml": ledger("", "1-1-a: backlog"), "docs/sprint-artifacts/tech-spec-wip.md": steps("stepsCompleted: []")},
			"quick-spec:bulk-label-reprint", "step 1", 0, "understand", "/bmad-quick-spec"},
		{"all steps, never saved", map[string]string{impl + "tech-spec-wip.md": steps("stepsCompleted: [1, 2, 3, 4]")},
			"quick-spec:bulk-label-reprint", "save the spec", 4, "", "/bmad-quick-spec"},
		{"finished spec", map[string]string{impl + "tech-spec-wip.md": strings.Replace(wip, "'in-progress'", "'ready-for-dev'", 1)}, "", "", 0, "", ""},
		{"no front matter", map[string]string{impl + "tech-spec-wip.md": "# Tech-Spec\n\nstatus: in-progress\n"}, "", "", 0, "", ""},
		{"unterminated front matter", map[string]string{impl + "tech-spec-wip.md": "---\nstatus: in-progress\n"}, "", "", 0, "", ""},
		{"no slug: from the title", map[string]string{impl + "tech-spec-wip.md": strings.Replace(wip, "slug: 'bulk-label-reprint'\n", "", 1)},
			"quick-spec:bulk-label-reprint", "step 3", 2, "generate", "/bmad-quick-spec"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, _ := scan(repoWith(t, tt.files))
			var q *workflow.Candidate
			for i := range cs {
				if strings.HasPrefix(cs[i].ID, "quick-spec:") {
					q = &cs[i]
				}
			}
			if tt.id == "" {
				if q != nil {
					t.Fatalf("unexpected %s", q.ID)
				}
				return
			}
			if q == nil || q.ID != tt.id {
				t.Fatalf("candidates %v, want %s", ids(cs), tt.id)
			}
			if !q.Resumable || q.Source.Priority != workflow.PriorityWorkflow || q.Source.Kind != workflow.KindBMADLedger || q.Type != workflow.TypeWorkflow || q.Framework != Framework {
				t.Errorf("candidate %+v", q)
			}
			rp := q.Resume
			if rp.Item != tt.item || rp.Done != tt.done || rp.Total != 4 || !strings.HasPrefix(rp.FrameworkCommand, tt.command) {
				t.Errorf("resume %+v", rp)
			}
			if q.Position.Index != tt.done || q.Position.Total != 4 {
				t.Errorf("position %+v", q.Position)
			}
			cur := ""
			for _, ph := range q.Phases {
				if ph.Status == workflow.PhaseCurrent {
					cur = ph.ID
				}
			}
			if cur != tt.current {
				t.Errorf("current phase %q, want %q", cur, tt.current)
			}
			if tt.name == "6.0 default folder, steps 1-2" {
				var refs []string
				for _, f := range q.Files {
					refs = append(refs, f.Path)
				}
				if got := strings.Join(refs, ","); got != impl+"tech-spec-wip.md,src/labels/print.ts,src/labels/queue.ts" {
					t.Errorf("files %s (a missing files_to_modify entry is not referenced)", got)
				}
			}
		})
	}
}
