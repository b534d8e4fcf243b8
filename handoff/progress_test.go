package handoff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// seedProgress is a progress file as the framework writes it (the same
// fixture discover/progress's patch tests use; here it goes through the
// whole state update: atomic write, .bak, rollback).
var seedProgress = func() string {
	b, err := os.ReadFile(filepath.Join("testdata", "progress-seed.md"))
	if err != nil {
		panic(err)
	}
	return string(b)
}()

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
