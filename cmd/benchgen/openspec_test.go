package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/openspec"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
)

// TestGenOpenSpec checks the generated changes as orchestrate reads them:
// n candidates (the archive never), four in ten in flight, and the same
// files for the same n.
func TestGenOpenSpec(t *testing.T) {
	const n = 50
	files := genOpenSpec("openspec", n)
	again := genOpenSpec("openspec", n)
	if len(files) != len(again) {
		t.Fatalf("not deterministic: %d vs %d files", len(files), len(again))
	}
	for p, c := range files {
		if again[p] != c {
			t.Fatalf("not deterministic: %s", p)
		}
	}
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := source.NewRepo(root, config.Default())
	cs, _ := openspec.OpenSpecSource.Scan(r)
	if len(cs) != n {
		t.Fatalf("candidates = %d, want %d", len(cs), n)
	}
	byStatus := map[string]int{}
	for _, c := range cs {
		byStatus[c.StatusRaw]++
		if c.Resumable && (c.Resume == nil || c.Resume.Item == "" || c.Resume.Done == 0 || c.Resume.Done >= c.Resume.Total) {
			t.Errorf("%s: in flight without a resume point: %+v", c.ID, c.Resume)
		}
	}
	want := map[string]int{"in-progress": 20, "complete": 20, "not-started": 5, "no-tasks": 5}
	for k, v := range want {
		if byStatus[k] != v {
			t.Errorf("%s = %d, want %d (%v)", k, byStatus[k], v, byStatus)
		}
	}
}
