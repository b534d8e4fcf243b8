package kiro

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

// TestFolderListing: a spec folder listed through the descriptor the
// cache opened it with gives the candidates and findings the listing by
// path (the cache off) gives: a spec whose only tasks.md is a FIFO or a
// folder is still a spec, a folder holding no spec document is none, a
// symlinked spec folder is not followed, a tasks.md symlink is a file.
func TestFolderListing(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		".kiro/steering/product.md":         "# P\n",
		".kiro/specs/plain/requirements.md": "# R\n",
		".kiro/specs/plain/tasks.md":        "- [x] 1. one\n- [ ] 2. two\n",
		".kiro/specs/dirtasks/design.md":    "# D\n",
		".kiro/specs/notes/readme.txt":      "no spec\n",
		".kiro/specs/linked-tasks/real.md":  "- [x] 1. a\n- [ ] 2. b\n",
		"elsewhere/requirements.md":         "# R\n",
	}
	sourcetest.Write(t, root, files)
	specs := filepath.Join(root, ".kiro", "specs")
	for _, d := range []string{"fifo-only", "dirtasks/tasks.md"} {
		if err := os.MkdirAll(filepath.Join(specs, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(specs, "fifo-only", "tasks.md"), 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	if err := os.Symlink("real.md", filepath.Join(specs, "linked-tasks", "tasks.md")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if err := os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(specs, "linked-folder")); err != nil {
		t.Fatal(err)
	}
	cache := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	off, _, _ := cacheScan(t, root, nil)
	for _, id := range []string{"kiro:plain", "kiro:fifo-only", "kiro:dirtasks", "kiro:linked-tasks"} {
		if !strings.Contains(off, `"`+id+`"`) {
			t.Errorf("no %s: %s", id, off)
		}
	}
	for _, id := range []string{"kiro:notes", "kiro:linked-folder"} {
		if strings.Contains(off, `"`+id+`"`) {
			t.Errorf("%s is a spec: %s", id, off)
		}
	}
	for _, run := range []string{"first", "warm"} {
		if got, _, _ := cacheScan(t, root, cache); got != off {
			t.Errorf("%s:\n%s\nwant (cache off)\n%s", run, got, off)
		}
	}
}

// TestTooManySpecs: past maxSpecs spec folders the rest are not read, and
// one warning says so, with the cache on or off; folders that are no spec
// do not count (the first batch read holds some: a second one reads the
// specs still allowed).
func TestTooManySpecs(t *testing.T) {
	defer func(n int) { maxSpecs = n }(maxSpecs)
	maxSpecs = 7
	root := t.TempDir()
	files := map[string]string{}
	for i := 0; i < maxSpecs+3; i++ {
		files[fmt.Sprintf(".kiro/specs/s%02d/requirements.md", i)] = "# R\n"
		if i%3 == 0 {
			files[fmt.Sprintf(".kiro/specs/s%02d-none/readme.txt", i)] = "no spec\n"
		}
	}
	sourcetest.Write(t, root, files)
	cache := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	off, _, _ := cacheScan(t, root, nil)
	if n := strings.Count(off, `"id":"kiro:s`); n != maxSpecs {
		t.Errorf("%d candidates, want %d: %s", n, maxSpecs, off)
	}
	if !strings.Contains(off, "kiro-too-many-specs") || !strings.Contains(off, `"kiro:s06"`) || strings.Contains(off, `"kiro:s07"`) {
		t.Errorf("the bound: %s", off)
	}
	if got, _, _ := cacheScan(t, root, cache); got != off {
		t.Error("with the cache: not the cache-off scan")
	}
}
