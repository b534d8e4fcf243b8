package handoff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/agentsession"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func TestPresetSession(t *testing.T) {
	home, root := t.TempDir(), "/work/repo"
	proj := filepath.Join(home, ".claude", "projects", agentsession.ClaudeProjectDirs(root)[0])
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "c1.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
	for _, tc := range []struct {
		preset, id, wantID, note string
	}{
		{"claude", "c1", "c1", ""},          // the preset's own
		{"codex", "c1", "", "claude"},       // another agent's
		{"gemini", "c1", "", "claude"},      // a preset whose folder is not read: still not its own
		{" codex ", "c1", "", "claude"},     // as configured, spaces and all
		{"codex", "unknown", "unknown", ""}, // owner not known: handed over as recorded
		{"", "c1", "c1", ""},                // no preset (handoff.command): the template decides
		{"\x1b]0;x\x07", "c1", "c1", ""},    // an unknown preset (refused before it runs): no note naming it
		{"codex", "", "", ""},
	} {
		c, note := PresetSession(getenv, root, tc.preset, workflow.Candidate{ID: "w", AISessionID: tc.id})
		if c.AISessionID != tc.wantID || (note == "") != (tc.note == "") || !strings.Contains(note, tc.note) {
			t.Errorf("%q %q: id %q note %q", tc.preset, tc.id, c.AISessionID, note)
		}
		if c.ID != "w" {
			t.Errorf("candidate changed: %+v", c)
		}
	}
}
