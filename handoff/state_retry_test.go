package handoff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A resume killed after marking the state (and before handing off) leaves
// the marked state beside the unmarked .bak; the retry counts one resume,
// not two, and keeps the unmarked .bak.
func TestUpdateStateAfterKilledResume(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".orchestrate", "workflows")
	os.MkdirAll(dir, 0o755)
	orig := "# our state\nexecution_id: sdc-1\nstatus: interrupted\ncurrent_phase: 3\n"
	p := filepath.Join(dir, "sdc-1.yaml")
	os.WriteFile(p, []byte(orig), 0o644)
	t1 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	if _, err := updateState(root, ".orchestrate/workflows/sdc-1.yaml", t1, allWrappers, true); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(p)
	if !strings.Contains(string(first), "resume_count: 1") {
		t.Fatalf("first update:\n%s", first)
	}
	// the process died here; the retry:
	if _, err := updateState(root, ".orchestrate/workflows/sdc-1.yaml", t1.Add(time.Minute), allWrappers, true); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(p)
	if !strings.Contains(string(second), "resume_count: 1") || strings.Contains(string(second), "resume_count: 2") {
		t.Errorf("the retry counted twice:\n%s", second)
	}
	if bak, _ := os.ReadFile(p + ".bak"); string(bak) != orig {
		t.Errorf(".bak = %q, want the unmarked original", bak)
	}
	// a later, real second resume (the workflow was interrupted again and
	// its agent set the status back) counts 2
	again := strings.Replace(string(second), "status: active", "status: interrupted", 1) + "current_agent: dev\n"
	os.WriteFile(p, []byte(again), 0o644)
	if _, err := updateState(root, ".orchestrate/workflows/sdc-1.yaml", t1.Add(time.Hour), allWrappers, true); err != nil {
		t.Fatal(err)
	}
	third, _ := os.ReadFile(p)
	if !strings.Contains(string(third), "resume_count: 2") {
		t.Errorf("a real second resume:\n%s", third)
	}
}
