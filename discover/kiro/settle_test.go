package kiro

import (
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/strmem"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestSettleDropsTasks checks that a settled spec holds neither its tasks
// nor any string sharing memory with them (the titles, ids, headings and
// paths are substrings of the tasks.md text: one kept would keep the
// whole text alive for the run), with the cache's decoded parse too, and
// that the candidate still says what the tasks said.
func TestSettleDropsTasks(t *testing.T) {
	text := "# Tasks\n\n## Phase 1: Setup\n\n- [x] 1. Create `src/a.go` and src/b.go\n  - _Requirements: 1.1, 2.3_\n" +
		"- [ ] 2. Build the parser\n  - [ ] 2.1 Lexer in `src/lex.go`\n    - _Depends: 1_\n  - [x] 2.2 Tokens (P)\n    - Files: `src/tok.go`\n" +
		"- [~] 3. Queued step\n- [-] 4. Manually verify `src/a.go`\n  - _Blocked: waiting on review_\n- [x] 5. Done late\n- [x] 5. twice\n" +
		"- [ ] Unnumbered task with a long title that is clipped for its label somewhere\n- [/] 6. odd\n\n" +
		"## Task Dependency Graph\n\n```json\n{\"waves\":[{\"id\":0,\"tasks\":[\"3\"]},{\"id\":1,\"tasks\":[\"2.1\"]}]}\n```\n"
	exists := func(p string) bool {
		return p == "src/a.go" || p == "src/b.go" || p == "src/lex.go" || p == "src/tok.go" || p == "src"
	}
	parsed := ParseTasksIn([]byte(text), exists)
	fromCache, ok := decodeTasks(encodeTasks(&parsed))
	if !ok {
		t.Fatal("the encoded parse does not decode")
	}
	for name, ts := range map[string]Tasks{"parsed": parsed, "cached": fromCache} {
		for _, cmds := range []commands{{impl: "/kiro:spec-impl"}} {
			for _, root := range []string{".kiro", "docs"} {
				s := &spec{Root: root, Dir: root + "/specs/f", Name: "f", ID: "kiro:f", TasksPath: root + "/specs/f/tasks.md", Docs: []string{root + "/specs/f/tasks.md"}}
				s.setTasks(ts)
				s.settle(exists, cmds)
				if s.Tasks.Tasks != nil || s.Tasks.Waves != nil || s.Tasks.Duplicates != nil || s.Tasks.Unparsed != nil {
					t.Errorf("%s %s: the tasks are kept after settle: %+v", name, root, s.Tasks)
				}
				tasks := strmem.Strings(ts)
				kept := append(strmem.Strings(s.draft), strmem.Strings(s.marks)...)
				for _, k := range kept {
					for _, x := range tasks {
						if strmem.Overlap(k, x) {
							t.Errorf("%s %s: kept %q shares the tasks' memory (%q)", name, root, k, x)
						}
					}
				}
				// the test proves something: the draft holds task text
				c := build(s, s)
				rp := c.Resume
				if rp.Item != "2.1" || rp.Title != "Lexer in `src/lex.go`" || rp.Section != "2. Build the parser" || len(rp.Files) != 1 || rp.Files[0] != "src/lex.go" ||
					len(rp.Holes) == 0 || rp.Differs != (root == ".kiro") || len(s.marks.inProgress) != 1 || len(s.marks.queued) != 1 || len(c.Phases) == 0 {
					t.Errorf("%s %s: resume %+v, phases %v, marks %+v", name, root, *rp, c.Phases, s.marks)
				}
				if !hasFile(c, "src/a.go") || !hasFile(c, "src/tok.go") {
					t.Errorf("%s %s: files %+v", name, root, c.Files)
				}
			}
		}
	}
}

func hasFile(c workflow.Candidate, p string) bool {
	for _, f := range c.Files {
		if f.Path == p {
			return true
		}
	}
	return false
}
