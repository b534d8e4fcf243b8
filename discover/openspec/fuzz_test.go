package openspec

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseOpenSpec checks that no tasks.md makes the parser panic, hang
// or break its bounds, and that its counts stay consistent.
func FuzzParseOpenSpec(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "tasks_*.md"))
	for _, p := range seeds {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{"```\n- [ ] 1\n", "- [\u00a0] ", "## 1.\n - [x] 1.1 `a/b.go`\n   - Files: a, b\n", "~~~~\n~~~\n- [x]\n", "1. [ ] a\n+ [x] b\n  2) [ ]\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ts := ParseTasks(data)
		if len(ts.Tasks) > maxTasks {
			t.Fatalf("bounds: %d tasks", len(ts.Tasks))
		}
		d, n := ts.Count()
		cd, cn := ts.CLICount()
		od, on := ts.OldCount()
		md, mn := ts.MidCount()
		if d > n || cd > cn || od > on || md > mn || n > cn || on > mn || mn > cn {
			t.Fatalf("counts: %d/%d cli %d/%d old %d/%d 1.8-1.13.0 %d/%d", d, n, cd, cn, od, on, md, mn)
		}
		for _, x := range ts.Tasks {
			if len(x.Paths) > maxTaskPaths || len(x.Refs) > maxTaskRefs || len(x.Title) > maxTitleLen+len("…") {
				t.Fatalf("task bounds: %+v", x)
			}
		}
		if first := ts.FirstOpen(); first != nil && (first.Done || first.Fenced) {
			t.Fatalf("first open is closed or fenced: %+v", first)
		}
		_ = ts.Holes()
	})
}
