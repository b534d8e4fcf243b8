package kiro

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzParseKiro checks that no tasks.md makes the parser panic, hang or
// break its bounds, and that the counts stay consistent.
func FuzzParseKiro(f *testing.F) {
	for _, s := range []string{
		"- [ ] 1. a\n  - [x] 1.1 b\n  - [ ]* 1.2 c\n",
		"- [-] 2. p\n- [x] 2.1 q `src/a.ts`\n  - _Requirements: 1.1_\n  - _Depends: 2_\n",
		"## Task Dependency Graph\n```json\n{\"waves\":[{\"id\":0,\"tasks\":[\"1\"]}]}\n```\n",
		"- [~] **3.1** x (P)\n- [/] 9 y\n<!--\n- [ ] z\n",
		`{"executionHistory":{"1 a":[{"timestamp":1767225600000}]},"pbtResults":{"1 a":{"status":"passed"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ts := ParseTasks(data)
		if len(ts.Tasks) > maxTasks || len(ts.Unparsed) > maxUnparsed {
			t.Fatalf("bounds: %d tasks", len(ts.Tasks))
		}
		if b := boxLines(strings.ToValidUTF8(string(data), "\uFFFD")); len(ts.Tasks) > b {
			t.Fatalf("%d tasks, more than the %d box lines ParseTasksIn sized them for", len(ts.Tasks), b)
		}
		c := ts.Count()
		if c.Done > c.Total || c.OptionalDone > c.OptionalTotal || c.Total+c.OptionalTotal > c.Boxes {
			t.Fatalf("counts: %+v", c)
		}
		for i, x := range ts.Tasks {
			if x.Parent >= i || len(x.Paths) > maxTaskPaths || len(x.Requirements) > maxRefs || len(x.Title) > maxTitleLen+len("…") {
				t.Fatalf("task bounds: %+v", x)
			}
		}
		if first := ts.FirstOpen(); first != nil && (first.Closed() || first.Optional || !first.Leaf()) {
			t.Fatalf("first open: %+v", first)
		}
		_, _ = ts.StaleParents()
		_ = ts.Holes()
		// the cache's encoding gives the parse back
		back, ok := decodeTasks(encodeTasks(&ts))
		if !ok || back.Count() != c || len(back.Tasks) != len(ts.Tasks) || len(back.Waves) != len(ts.Waves) {
			t.Fatalf("cache round trip: %v", ok)
		}
		for i := range ts.Tasks {
			if !reflect.DeepEqual(back.Tasks[i], ts.Tasks[i]) {
				t.Fatalf("cache round trip of task %d: %+v != %+v", i, back.Tasks[i], ts.Tasks[i])
			}
		}
		// a spec settled from any parse builds its candidate, its counts
		// as the tasks gave them, without the tasks
		for _, root := range []string{".kiro", "docs"} {
			sp := &spec{Root: root, Dir: root + "/specs/f", Name: "f", ID: "kiro:f", TasksPath: root + "/specs/f/tasks.md", Docs: []string{root + "/specs/f/tasks.md"}}
			sp.setTasks(ts)
			sp.settle(func(string) bool { return true }, commands{impl: "/kiro:spec-impl"})
			if sp.Tasks.Tasks != nil {
				t.Fatal("tasks kept after settle")
			}
			if cand := build(sp, sp); cand.Resume == nil || cand.Resume.Done != c.Done || cand.Resume.Total != c.Total {
				t.Fatalf("settled candidate: %+v", cand.Resume)
			}
		}
		_, _ = decodeTasks(data) // arbitrary bytes as a cached value: no panic
		// the other documents' values: the parse back, and no panic on any bytes
		m := parseMeta(data)
		if back, _, ok := docRoundTrip(metaCodec, m); !ok || !reflect.DeepEqual(back, m) {
			t.Fatalf("meta round trip: %v %+v %+v", ok, back, m)
		}
		cf := parseConfig(data)
		if back, _, ok := docRoundTrip(configCodec, cf); !ok || !reflect.DeepEqual(back, cf) {
			t.Fatalf("config round trip: %v", ok)
		}
		j := parseSpecJSON(data)
		if back, _, ok := docRoundTrip(specJSONCodec, j); !ok || !reflect.DeepEqual(back, j) {
			t.Fatalf("spec.json round trip: %v", ok)
		}
		metaCodec.decode(&docReader{b: data})
		configCodec.decode(&docReader{b: data})
		specJSONCodec.decode(&docReader{b: data})
	})
}
