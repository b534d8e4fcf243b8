package speckit

import "testing"

// FuzzParseSpecKit checks that no tasks.md makes the parser panic, hang or
// break its bounds.
func FuzzParseSpecKit(f *testing.F) {
	for _, s := range []string{tasksPartial, tasksDone, "- [x] **T0", "## Phase 1：\n- [ ] T-01 `a/b` in c/d.go, e.go\n  - **Files**: x,y\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ts := ParseTasks(data)
		if len(ts.Tasks) > maxTasks || ts.Done() > len(ts.Tasks) {
			t.Fatalf("bounds: %d tasks", len(ts.Tasks))
		}
		for _, x := range ts.Tasks {
			if len(x.Paths) > maxTaskPaths || len(x.Title) > maxTitleLen+len("…") {
				t.Fatalf("task bounds: %+v", x)
			}
		}
		_ = ts.Holes()
	})
}
