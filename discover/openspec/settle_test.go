package openspec

import (
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/strmem"
)

// TestSettleDropsTasks checks that a settled change holds neither its
// tasks nor its look-ups nor any string sharing memory with the tasks
// (items, titles, groups and paths are substrings of the tasks.md text:
// one kept would keep the whole text alive for the run), with the
// cache's decoded parse too, and that the candidate still says what the
// tasks said.
func TestSettleDropsTasks(t *testing.T) {
	text := "## 1. Setup\n\n- [x] 1.1 Create `src/a.go`\n\n```\n- [ ] 1.0 fenced example\n```\n\n- [ ] 1.2 Open hole\n\n## 2. Build\n\n" +
		"- [ ] 2.1 Lexer in `src/lex.go` (Requirements: R1)\n- [x] 2.2 Tokens `src/tok.go`\n- [ ] 2.3 Later\n"
	exists := func(p string) bool { return p == "src/a.go" || p == "src/lex.go" || p == "src/tok.go" || p == "src" }
	parsed := ParseTasksIn([]byte(text), exists)
	fromCache, ok := decodeTasks(encodeTasks(nil, &parsed))
	if !ok {
		t.Fatal("the encoded parse does not decode")
	}
	for name, ts := range map[string]Tasks{"parsed": parsed, "cached": fromCache} {
		rt := &root{Dir: "openspec", Layout: Layout{Version: "1.x"}}
		c := &change{Root: rt, Dir: "openspec/changes/c", ID: "c", TasksPath: "openspec/changes/c/tasks.md", Tasks: ts, exists: exists}
		c.settle()
		if c.Tasks.Tasks != nil || c.Tasks.Groups != nil || c.exists != nil {
			t.Errorf("%s: the tasks are kept after settle: %+v", name, c.Tasks)
		}
		tasks := strmem.Strings(ts)
		kept := strmem.Strings(c.d)
		for _, k := range kept {
			for _, x := range tasks {
				if strmem.Overlap(k, x) {
					t.Errorf("%s: kept %q shares the tasks' memory (%q)", name, k, x)
				}
			}
		}
		// the test proves something: the draft holds task text
		cand := Build(c)
		rp := cand.Resume
		if rp.Item != "1.2" || rp.Title != "Open hole" || rp.Section != "1. Setup" || len(rp.Holes) == 0 || !rp.Differs ||
			len(cand.Phases) != 2 || cand.Position.At != "1.2" || len(cand.Findings) != 1 {
			t.Errorf("%s: resume %+v, phases %v, position %+v, findings %v", name, *rp, cand.Phases, cand.Position, cand.Findings)
		}
		found := false
		for _, f := range cand.Files {
			found = found || f.Path == "src/a.go"
		}
		if !found {
			t.Errorf("%s: files %+v", name, cand.Files)
		}
	}
}
