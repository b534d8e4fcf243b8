package handoff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const seedProgress = "# Workflow Progress - 2025-06-30T14:35:22Z\n" +
	"\n" +
	"## Execution Metadata\n" +
	"- **Workflow**: workflow.prompt.md\n" +
	"- **Started**: 2025-06-30T14:30:00Z\n" +
	"- **Last Checkpoint**: 2025-06-30T14:35:22Z\n" +
	"- **Status**: paused\n" +
	"- **Reason**: timeout\n" +
	"\n" +
	"## Configuration\n" +
	"```yaml\n" +
	"model: \"gpt-4o\"\n" +
	"status: not-this-one\n" +
	"```\n" +
	"\n" +
	"## Conversation History\n" +
	"### Message 1 (User)\n" +
	"- Status: not this one either\n" +
	"\n" +
	"## Execution State\n" +
	"- Current step: 3 of 5\n" +
	"- Completed tools: [\"project-analysis\", \"build-test\"]\n" +
	"- Pending operations: [\"code-generation\", \"test-validation\"]\n"

func TestUpdateStateProgressFile(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, ".orchestrate", "progress", "run.md")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(seedProgress), 0o640)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	b, err := UpdateState(root, ".orchestrate/progress/run.md", now)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if !strings.Contains(string(got), "- **Status**: active\n") || !strings.Contains(string(got), "- **Resume Count**: 1\n") {
		t.Errorf("not marked:\n%s", got)
	}
	if bak, _ := os.ReadFile(p + ".bak"); string(bak) != seedProgress {
		t.Error(".bak is not the previous version")
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if err := b.Restore(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != seedProgress {
		t.Error("restore")
	}
}
