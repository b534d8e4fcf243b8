package kiro

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name + "/tasks.md")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestCounts checks the counting rule (Part D.2) on real-shaped files:
// required leaves only (parents and optional tasks out), optional ones
// beside, every box as cc-sdd counts them; the resume point, holes,
// markers and stale parents.
func TestCounts(t *testing.T) {
	tests := []struct {
		fixture          string
		want             Counts
		first            string
		holes            []string
		inProgress       []string
		unticked, ticked []string
		unparsed         []int
		waves            int
	}{
		// 1.x: indented sub-tasks, `- [ ]*` optional, [-] on a parent and a
		// leaf, a checkpoint, boxes in a fenced example, a dependency graph
		{"ide1x", Counts{Done: 2, Total: 6, OptionalTotal: 2, BoxesDone: 2, Boxes: 10}, "2.3", nil, []string{"2", "2.3"}, nil, nil, nil, 5},
		// early flat layout: sub-tasks at column 0 under `- [ ] N.`, a [-]
		// parent whose children are all done, an open parent likewise
		{"early", Counts{Done: 6, Total: 9, BoxesDone: 6, Boxes: 12}, "4.1", []string{"4.1"}, []string{"2"}, []string{"2", "3"}, nil, nil, 0},
		// cc-sdd: (P), _Depends:_, _Blocked:_, an optional sub-task
		{"ccsdd", Counts{Done: 2, Total: 5, OptionalTotal: 1, BoxesDone: 3, Boxes: 9}, "2.2", nil, nil, nil, nil, nil, 0},
		{"bugfix", Counts{Done: 1, Total: 3, BoxesDone: 1, Boxes: 3}, "2", nil, nil, nil, nil, nil, 0},
		// heading parents, unnumbered checkpoints, [/] and a commented box
		{"headings", Counts{Done: 4, Total: 6, BoxesDone: 4, Boxes: 6}, "2.1", []string{"2.1"}, nil, nil, nil, []int{17}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			ts := ParseTasks(readFixture(t, tt.fixture))
			if got := ts.Count(); got != tt.want {
				t.Errorf("Count = %+v, want %+v", got, tt.want)
			}
			first := ts.FirstOpen()
			if first == nil || first.ID != tt.first {
				t.Errorf("FirstOpen = %+v, want %s", first, tt.first)
			}
			if got := ts.Holes(); !reflect.DeepEqual(got, tt.holes) {
				t.Errorf("Holes = %v, want %v", got, tt.holes)
			}
			if got := ts.Marked(InProgress); !reflect.DeepEqual(got, tt.inProgress) {
				t.Errorf("Marked([-]) = %v, want %v", got, tt.inProgress)
			}
			u, k := ts.StaleParents()
			if !reflect.DeepEqual(u, tt.unticked) || !reflect.DeepEqual(k, tt.ticked) {
				t.Errorf("StaleParents = %v %v, want %v %v", u, k, tt.unticked, tt.ticked)
			}
			if !reflect.DeepEqual(ts.Unparsed, tt.unparsed) {
				t.Errorf("Unparsed = %v, want %v", ts.Unparsed, tt.unparsed)
			}
			if len(ts.Waves) != tt.waves {
				t.Errorf("Waves = %v, want %d", ts.Waves, tt.waves)
			}
		})
	}
}

// TestTaskLines checks one line at a time: states, optional marks, ids,
// annotations, paths (text that is not a path never becomes one).
func TestTaskLines(t *testing.T) {
	tests := []struct {
		name, text string
		id         string
		state      rune
		optional   bool
		title      string
		reqs       []string
		paths      []string
		blocked    string
		parallel   bool
	}{
		{"open", "- [ ] 1. Set up project structure", "1", Open, false, "Set up project structure", nil, nil, "", false},
		{"done upper", "- [X] 2.1 Create data models", "2.1", Done, false, "Create data models", nil, nil, "", false},
		{"in progress", "- [-] 2.3 Implement the client", "2.3", InProgress, false, "Implement the client", nil, nil, "", false},
		{"queued", "- [~] 4 Queue me", "4", Queued, false, "Queue me", nil, nil, "", false},
		{"optional star after box", "  - [ ]* 2.2 Write property test", "2.2", Open, true, "Write property test", nil, nil, "", false},
		{"optional star on id", "- [ ] 12.7* W3C Feed Validator 検証テスト", "12.7", Open, true, "W3C Feed Validator 検証テスト", nil, nil, "", false},
		{"hand-written id", "- [x] M24-T002 Migrate the schema", "M24-T002", Done, false, "Migrate the schema", nil, nil, "", false},
		{"bold id", "- [ ] **3.1** Bold id", "3.1", Open, false, "Bold id", nil, nil, "", false},
		{"unnumbered", "- [x] Checkpoint A：parser merged", "", Done, false, "Checkpoint A：parser merged", nil, nil, "", false},
		{"inline requirements", "- [ ] 5. Ship it _Requirements: 5.1, 5.2_", "5", Open, false, "Ship it", []string{"5.1", "5.2"}, nil, "", false},
		{"words requirements", "- [ ] 1. Base\n  - _Requirements: All requirements need foundational setup_", "1", Open, false, "Base", []string{"All requirements need foundational setup"}, nil, "", false},
		{"full-width requirements", "- [ ] 1. Base\n  - Requirements：1.1、1.2", "1", Open, false, "Base", []string{"1.1", "1.2"}, nil, "", false},
		{"parallel and blocked", "- [ ] 2.2 Generate RSS (P)\n  - _Blocked: upstream 500_", "2.2", Open, false, "Generate RSS", nil, nil, "upstream 500", true},
		{"paths backticked and bare", "- [ ] 3. Edit `src/a.ts` and lib/b.go", "3", Open, false, "Edit `src/a.ts` and lib/b.go", nil, []string{"src/a.ts", "lib/b.go"}, "", false},
		{"not paths", "- [ ] 3. Call /api/v2/contacts, see https://x.io/a.md, bump v1.2.3, `npm run build`", "3", Open, false, "", nil, nil, "", false},
		{"file detail", "- [ ] 3. Edit\n  - File: src/stt/client.ts\n  - Files: `a/b.ts`, `c/d.ts`", "3", Open, false, "Edit", nil, []string{"src/stt/client.ts", "a/b.ts", "c/d.ts"}, "", false},
		{"unsafe path", "- [ ] 3. Read `../../etc/passwd` and `/etc/shadow`", "3", Open, false, "", nil, nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := ParseTasks([]byte(tt.text))
			if len(ts.Tasks) != 1 {
				t.Fatalf("tasks = %+v", ts.Tasks)
			}
			x := ts.Tasks[0]
			if x.ID != tt.id || x.State != tt.state || x.Optional != tt.optional {
				t.Errorf("got id %q state %q optional %v", x.ID, x.State, x.Optional)
			}
			if tt.title != "" && x.Title != tt.title {
				t.Errorf("title = %q, want %q", x.Title, tt.title)
			}
			if !reflect.DeepEqual(x.Requirements, tt.reqs) {
				t.Errorf("requirements = %q, want %q", x.Requirements, tt.reqs)
			}
			if !reflect.DeepEqual(x.Paths, tt.paths) {
				t.Errorf("paths = %q, want %q", x.Paths, tt.paths)
			}
			if x.Blocked != tt.blocked || x.Parallel != tt.parallel {
				t.Errorf("blocked %q parallel %v", x.Blocked, x.Parallel)
			}
		})
	}
}

// TestHierarchy checks parents by id first, then by indentation, and
// that children of an optional parent are optional.
func TestHierarchy(t *testing.T) {
	text := strings.Join([]string{
		"- [ ] 1. Parent",
		"- [x] 1.1 Flat child at column 0",
		"  - [ ] Unnumbered child by indentation",
		"- [ ]* 2. Optional parent",
		"  - [ ] 2.1 Child of optional",
		"### 3. Heading parent",
		"- [x] 3.1 Under a heading, no box parent",
		"```",
		"- [ ] 9. In a fence",
		"```",
	}, "\n")
	ts := ParseTasks([]byte(text))
	parents := []int{}
	for _, x := range ts.Tasks {
		parents = append(parents, x.Parent)
	}
	if want := []int{-1, 0, 1, -1, 3, -1}; !reflect.DeepEqual(parents, want) {
		t.Fatalf("parents = %v, want %v", parents, want)
	}
	if !ts.Tasks[4].Optional {
		t.Error("the child of an optional parent is optional")
	}
	if got := ts.Count(); got.Total != 2 || got.Done != 1 || got.OptionalTotal != 1 {
		t.Errorf("Count = %+v", got)
	}
}

// TestBounds checks that a hostile file costs a bounded result.
func TestBounds(t *testing.T) {
	var b strings.Builder
	for i := 0; i < maxTasks+10; i++ {
		b.WriteString("- [ ] 1.")
		b.WriteString(strings.Repeat("1", 3))
		b.WriteString(" t\n")
	}
	ts := ParseTasks([]byte(b.String()))
	if len(ts.Tasks) != maxTasks || !ts.Truncated {
		t.Errorf("tasks %d truncated %v", len(ts.Tasks), ts.Truncated)
	}
	if len(ts.Duplicates) != 1 {
		t.Errorf("duplicates = %v", ts.Duplicates)
	}
	deep := strings.Repeat(" ", 3000) + "- [ ] x " + strings.Repeat("y", 10000)
	ts = ParseTasks([]byte(deep))
	if len(ts.Tasks) != 1 || len(ts.Tasks[0].Title) > maxTitleLen+len("…") {
		t.Errorf("long line: %d tasks", len(ts.Tasks))
	}
	// an unclosed fence: nothing after it is a task
	ts = ParseTasks([]byte("```\n- [ ] 1. no\n"))
	if len(ts.Tasks) != 0 {
		t.Errorf("fenced: %+v", ts.Tasks)
	}
}

// TestFileDetail checks a bare file name in a File: detail.
func TestFileDetail(t *testing.T) {
	ts := ParseTasks([]byte("- [ ] 2.2 Add the session middleware\n  - File: middleware.ts\n  - **Files**: a.go, b/c.go\n"))
	if got := ts.Tasks[0].Paths; !reflect.DeepEqual(got, []string{"middleware.ts", "a.go", "b/c.go"}) {
		t.Errorf("paths %q", got)
	}
}

// TestGroupName checks a group's label: "N. title" for a numbered top
// task, the number never doubled when the title repeats it.
func TestGroupName(t *testing.T) {
	tests := []struct {
		line, want string
	}{
		{"- [ ] 2. Implement core functionality", "2. Implement core functionality"},
		{"- [ ] 1. 1. Setup the project", "1. Setup the project"},
		{"- [ ] 1. 1 Setup", "1. Setup"},
		{"- [ ] 3. 3.1 is not the same number", "3. 3.1 is not the same number"},
		{"- [ ] 1. 1.5x faster parsing", "1. 1.5x faster parsing"},
		{"- [ ] 1. 10 workers", "1. 10 workers"},
		{"- [ ] 2.1 2.1 Wire", "2.1 Wire"},
		{"- [ ] 4. 4.", "4. 4."},
		{"- [ ] Unnumbered group", "Unnumbered group"},
	}
	for _, tt := range tests {
		ts := ParseTasks([]byte(tt.line + "\n"))
		if len(ts.Tasks) != 1 {
			t.Errorf("%q: %d tasks", tt.line, len(ts.Tasks))
			continue
		}
		if got := groupName(&ts.Tasks[0]); got != tt.want {
			t.Errorf("%q: group name %q, want %q", tt.line, got, tt.want)
		}
	}
}

// TestBoxLines checks the estimate ParseTasksIn sizes its tasks with: every
// line a task can stand on counts, prose does not, and it is never below
// the tasks parsed.
func TestBoxLines(t *testing.T) {
	tests := []struct {
		name string
		text string
		want int
	}{
		{"empty", "", 0},
		{"prose", "# Tasks\nsome text [x]\n", 0},
		{"boxes", "- [ ] 1. a\n  - [x] 1.1 b\n\t* [-] 2 c\n+ [ ] d", 4},
		{"no blank after the marker", "-[ ] a\n", 0},
		{"a marker and a link", "- [link](x)\n", 1}, // counted: an estimate, never below
		{"crlf", "- [ ] a\r\n- [x] b\r\n", 2},
		{"fenced boxes count too", "```\n- [ ] a\n```\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := boxLines(tt.text); got != tt.want {
				t.Errorf("boxLines = %d, want %d", got, tt.want)
			}
			if n := len(ParseTasks([]byte(tt.text)).Tasks); n > boxLines(tt.text) {
				t.Errorf("%d tasks, more than the estimate", n)
			}
		})
	}
}
