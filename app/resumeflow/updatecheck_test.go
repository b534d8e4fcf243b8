package resumeflow

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/app/loaded"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// startUpdateCheck answers as handoff.CheckUpdate does, in the background
// or not, and as often as asked.
func TestStartUpdateCheckMatchesCheckUpdate(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".orchestrate", "workflows")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"good.yaml": "execution_id: good\nstatus: interrupted\ncurrent_phase: 2\n",
		"flow.yaml": "{execution_id: flow, status: interrupted}\n", // not patchable
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := &loaded.Session{Root: root, Now: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	for _, name := range []string{"good.yaml", "flow.yaml", "missing.yaml"} {
		for _, resumable := range []bool{true, false} {
			c := workflow.Candidate{ID: "workflow:" + name, Resumable: resumable, Status: "interrupted",
				Source: workflow.SourceRef{Kind: workflow.KindWorkflowState, Path: ".orchestrate/workflows/" + name}}
			want := fmt.Sprint(handoff.CheckUpdate(s.Root, c, s.Now))
			update := startUpdateCheck(s, c)
			for i := 0; i < 2; i++ {
				if got := fmt.Sprint(update()); got != want {
					t.Errorf("%s (resumable %v), call %d: %s, want %s", name, resumable, i+1, got, want)
				}
			}
		}
	}
}
