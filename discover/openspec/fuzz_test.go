package openspec

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
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
		if b := boxLines(strings.ToValidUTF8(string(data), "\uFFFD")); len(ts.Tasks) > b {
			t.Fatalf("%d tasks, more than the %d box lines parseTasks sized them for", len(ts.Tasks), b)
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
		// the cache's encoding gives the parse back (ParseTasks asks the
		// file system nothing: every parse of it is storable)
		if back, ok := decodeTasks(encodeTasks(nil, &ts)); !ok || !reflect.DeepEqual(back, ts) {
			t.Fatalf("cache round trip: %v\n%+v\n%+v", ok, back, ts)
		}
		// a change settled from any parse builds its candidate, its counts
		// as the tasks gave them, without the tasks
		for _, v := range []string{"0.x", "1.x"} {
			ch := &change{Root: &root{Dir: "openspec", Layout: Layout{Version: v}}, Dir: "openspec/changes/c", ID: "c", TasksPath: "openspec/changes/c/tasks.md", Tasks: ts,
				exists: func(string) bool { return true }}
			ch.settle()
			if ch.Tasks.Tasks != nil || ch.exists != nil {
				t.Fatal("tasks kept after settle")
			}
			if cand := Build(ch); cand.Resume == nil || cand.Resume.Done != d || cand.Resume.Total != n {
				t.Fatalf("settled candidate: %+v", cand.Resume)
			}
		}
		ct := countTasks(data)
		cd2, ct2 := ct.Count()
		if d2, t2, boxes, ok := decodeCounts(encodeCounts(cd2, ct2, len(ct.Tasks))); !ok || d2 != cd2 || t2 != ct2 || boxes != len(ct.Tasks) {
			t.Fatalf("counts round trip: %v", ok)
		}
		_, _ = decodeTasks(data) // arbitrary bytes as a cached value: no panic
		_, _, _, _ = decodeCounts(data)
		created, schema := parseMeta(data)
		if c2, s2, ok := decodeMeta(encodeMeta(created, schema)); !ok || c2 != created || s2 != schema {
			t.Fatalf("meta round trip: %v", ok)
		}
		_, _, _ = decodeMeta(data)
	})
}
