package source_test

import (
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
)

func writeFiles(t *testing.T, root string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPrefetchGlobs: a prefetched glob answers what a walk answers, each
// caller gets its own copy, and after EndPrefetch globs walk again.
func TestPrefetchGlobs(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root,
		".orchestrate/workflows/b.yaml", ".orchestrate/workflows/a.yaml", ".orchestrate/workflows/a.yaml.bak",
		".aiox/epic-1-state.yaml", "docs/stories/s1/spec/.pipeline-state.json", "docs/stories/s2/story.md",
		"docs/specs/x/spec.md")
	cfg := config.Default()
	lists := []struct {
		patterns []string
		dirs     bool
	}{
		{cfg.Sources.Spec, true},
		{cfg.Sources.WorkflowState, false},
		{cfg.Sources.Epic, false},
		{cfg.Sources.Progress, false},
		{cfg.Sources.Spec, false}, // not prefetched: files, not folders
		{[]string{"docs/**/*.md"}, false},
	}
	plain, _ := source.NewRepo(root, cfg)
	want := make([][]string, len(lists))
	for i, l := range lists {
		want[i] = plain.Glob(l.patterns, l.dirs)
	}
	if len(want[0]) != 2 || len(want[1]) == 0 {
		t.Fatalf("fixture: spec folders %v, workflow states %v", want[0], want[1])
	}

	r, _ := source.NewRepo(root, cfg)
	r.PrefetchGlobs()
	var wg sync.WaitGroup
	for n := 0; n < 4; n++ { // concurrent callers, as the sources may be
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, l := range lists {
				if got := r.Glob(l.patterns, l.dirs); !reflect.DeepEqual(got, want[i]) {
					t.Errorf("prefetched Glob(%v, %v) = %v, want %v", l.patterns, l.dirs, got, want[i])
				}
			}
		}()
	}
	wg.Wait()
	got := r.Glob(cfg.Sources.WorkflowState, false)
	got[0] = "changed by a caller"
	if again := r.Glob(cfg.Sources.WorkflowState, false); !reflect.DeepEqual(again, want[1]) {
		t.Errorf("a caller's change leaked into the next answer: %v", again)
	}

	writeFiles(t, root, ".orchestrate/workflows/c.yaml")
	if got := r.Glob(cfg.Sources.WorkflowState, false); !reflect.DeepEqual(got, want[1]) {
		t.Errorf("during the prefetch window: %v, want the prefetched %v", got, want[1])
	}
	r.EndPrefetch()
	r.EndPrefetch() // twice is harmless
	if got := r.Glob(cfg.Sources.WorkflowState, false); len(got) != len(want[1])+1 {
		t.Errorf("after EndPrefetch: %v, want the new file too", got)
	}
}
