package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/kiro"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestGenKiro checks that the generated specs read as the producers' own:
// every spec found, one in 25 in flight, 15 finished, four not started,
// five in design; each producer present; the same arguments give the same
// files.
func TestGenKiro(t *testing.T) {
	files := genKiro(".kiro", 50, "src/a.ts", "lib/b.go")
	if again := genKiro(".kiro", 50, "src/a.ts", "lib/b.go"); len(again) != len(files) {
		t.Fatal("not deterministic")
	} else {
		for p, c := range files {
			if again[p] != c {
				t.Fatalf("%s differs between runs", p)
			}
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
	cs, fs := kiro.KiroSource.Scan(r)
	if len(fs) != 0 || len(cs) != 50 {
		t.Fatalf("%d candidates, findings %v", len(cs), fs)
	}
	status := map[string]int{}
	frameworks := map[string]int{}
	for _, c := range cs {
		status[c.Status]++
		frameworks[c.Framework]++
		if c.Resumable && (c.Resume == nil || c.Resume.Item == "" || c.Resume.FrameworkCommand == "") {
			t.Errorf("%s: resume point %+v", c.ID, c.Resume)
		}
	}
	want := map[string]int{string(workflow.StatusDone): 30, string(workflow.StatusInProgress): 2, string(workflow.StatusReady): 8, string(workflow.StatusDraft): 10}
	for k, v := range want {
		if status[k] != v {
			t.Errorf("status %v, want %v", status, want)
			break
		}
	}
	if frameworks[kiro.FrameworkIDE] == 0 || frameworks[kiro.FrameworkCCSDD] == 0 {
		t.Errorf("frameworks %v", frameworks)
	}
}
