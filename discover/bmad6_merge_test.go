package discover

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestMergeBMADv6StoryInDocsStories checks that a v6 story file in
// docs/stories (the alpha layout), read by both the story source and the v6
// ledger source, is one candidate: the ledger's, with the story as evidence,
// whatever status each side gives it; and that a v4 story beside it stays.
func TestMergeBMADv6StoryInDocsStories(t *testing.T) {
	tests := []struct {
		name, ledger, file string
		wantID             string
	}{
		{"both in progress", "in-progress", "in-progress", "sdc:1.2"},
		{"ledger in progress, file ready", "in-progress", "ready-for-dev", "sdc:1.2"},
		{"ledger review, file in progress", "review", "in-progress", "qa-review:1.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				"docs/sprint-status.yaml":         "development_status:\n  epic-1: in-progress\n  1-2-harvest-log: " + tt.ledger + "\n",
				"docs/stories/1-2-harvest-log.md": "# Story 1.2: Harvest log\n\nStatus: " + tt.file + "\n\n## Tasks / Subtasks\n\n- [ ] Task 1: Form\n",
				"docs/stories/4.1.legacy.md":      "# Story 4.1: Legacy\n\n## Status\n\nInProgress\n",
			}
			for p, c := range files {
				full := filepath.Join(dir, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r, _ := source.NewRepo(dir, config.Default())
			res := Scan(r, Options{})
			count := 0
			for _, c := range res.Candidates {
				if c.HasStory("1.2") {
					count++
					if c.ID != tt.wantID || c.Source.Kind != workflow.KindBMADLedger || len(c.Evidence) == 0 {
						t.Errorf("got %s from %s, evidence %v", c.ID, c.Source.Kind, c.Evidence)
					}
				}
			}
			if count != 1 {
				t.Errorf("story 1.2 listed %d times: %v", count, res.Candidates)
			}
			legacy := Lookup(res.Candidates, "sdc:4.1")
			if len(legacy) != 1 || legacy[0].Source.Kind != workflow.KindStory || legacy[0].Framework != "" {
				t.Errorf("the v4 story is left alone: %v", legacy)
			}
		})
	}
}
