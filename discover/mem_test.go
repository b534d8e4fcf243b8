package discover

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
)

// memStories is the number of story files TestScanHeapPerStory scans.
const memStories = 2000

// memStoryBytesBound is the most live heap a scanned story may keep (its
// story, sections, candidate and the map entries that index them), in
// bytes; 20,000 stories must fit a status run well under 100 MiB.
const memStoryBytesBound = 2200

// memStoryText is a story shaped like benchgen's stories shape (seven
// sections, a Change Log and Dependencies kept as text, a File List).
func memStoryText(i int) string {
	epic, n := i/100+1, i%100+1
	return fmt.Sprintf("# Story %d.%d: Invoice token\n\n## Status\n\nDone - 100%% Complete\n\n**Epic:** %d\n**Executor:** @dev\n**Quality Gate:** @qa\n\n"+
		"## Story\n\n**As a** user, **I want** invoice token, **so that** my work goes faster.\n\n"+
		"## Acceptance Criteria\n\n1. **Given** a signed-in user, **When** they use invoice token, **Then** it completes in under a second.\n2. Errors are reported with a clear message.\n3. The change is covered by tests.\n\n"+
		"## Scope\n\n**IN:** invoice token for existing accounts. **OUT:** bulk operations.\n\n"+
		"## Dependencies\n\n- Story %d.%d\n\n"+
		"## Tasks / Subtasks\n\n- [x] Data model (AC: 1)\n- [x] Handler (AC: 1, 2)\n- [ ] Tests (AC: 3)\n\n"+
		"## Dev Notes\n\nFollow the existing package layout; no new dependencies.\n\n"+
		"## File List\n\n- `src/pkg%03d/sub06/file%05d.go`\n- `src/pkg%03d/sub07/file%05d.go`\n\n"+
		"## Change Log\n\n| Date | Agent | Change |\n|------|-------|--------|\n| 2026-10-01 | @sm | Drafted |\n",
		epic, n, epic, epic, n+1, i%500, i, (i+7)%500, i+1)
}

// liveHeap is the live heap after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestScanHeapPerStory bounds the live heap a scan keeps per story: a
// 20,000-story repository is listed by status within the memory bar only if
// each story stays small. ORCHESTRATE_HEAP_PROFILE=<file> writes the heap
// profile taken with the scan's result alive (go tool pprof
// -sample_index=inuse_space).
func TestScanHeapPerStory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 2,000 files")
	}
	if os.Getenv("ORCHESTRATE_HEAP_PROFILE") != "" {
		defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
		runtime.MemProfileRate = 1
	}
	root := t.TempDir()
	dir := filepath.Join(root, "docs", "stories")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < memStories; i++ {
		name := fmt.Sprintf("%d.%d.invoice-token.md", i/100+1, i%100+1)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(memStoryText(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := source.NewRepo(root, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	before := liveHeap()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	res := Scan(r, Options{})
	runtime.ReadMemStats(&m1)
	after := liveHeap()
	if len(res.Candidates) != memStories || len(res.Stories) != memStories {
		t.Fatalf("%d candidates, %d stories; want %d", len(res.Candidates), len(res.Stories), memStories)
	}
	if p := os.Getenv("ORCHESTRATE_HEAP_PROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	per := int64(after-before) / memStories
	t.Logf("live heap per scanned story: %d bytes (%d allocated in %d allocations)", per,
		(m1.TotalAlloc-m0.TotalAlloc)/memStories, (m1.Mallocs-m0.Mallocs)/memStories)
	if per > memStoryBytesBound {
		t.Errorf("a scanned story keeps %d bytes of live heap, want at most %d", per, memStoryBytesBound)
	}
	runtime.KeepAlive(res)
	runtime.KeepAlive(r)
}
