package openspec

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestParseTasksFixtures reads the fixtures shaped like real tasks.md files
// and checks every count (orchestrate's, the 1.8+ CLI's, the column-0 rule
// of older CLIs), the resume point and the holes.
func TestParseTasksFixtures(t *testing.T) {
	tests := []struct {
		file                 string
		done, total          int
		cliDone, cliTotal    int
		oldDone, oldTotal    int
		midDone, midTotal    int // 1.8 to 1.13.0; the CLI's figure when both 0
		first, group, title  string
		cliFirst             string
		holes                []string
		refs, paths          []string
		unclosedFence, fence int
	}{
		{file: "tasks_v1.md", done: 3, total: 7, cliDone: 3, cliTotal: 7, oldDone: 3, oldTotal: 7,
			first: "2.2", group: "2. Toggle", title: "Persist the choice in localStorage (`theme-mode` key)", cliFirst: "2.2",
			refs: []string{"Remember the user's theme"}, paths: []string{"src/theme/persist.ts", "src/theme/index.ts"}},
		{file: "tasks_indented.md", done: 5, total: 8, cliDone: 5, cliTotal: 8, oldDone: 3, oldTotal: 3,
			first: "1.2.2", group: "1. Overlay shell", title: "Sandbox the iframe", cliFirst: "1.2.2", holes: []string{"1.2.2"}},
		{file: "tasks_fenced.md", done: 1, total: 2, cliDone: 2, cliTotal: 5, oldDone: 2, oldTotal: 5,
			first: "1.2", group: "1. Parser", title: "Parse the body", cliFirst: "1.2", fence: 3},
		{file: "tasks_fenced_first.md", done: 1, total: 2, cliDone: 1, cliTotal: 3, oldDone: 1, oldTotal: 3,
			first: "1.2", group: "1. Work", title: "Second", cliFirst: "0.1", fence: 1},
		{file: "tasks_prose.md"},
		{file: "tasks_flat.md", done: 3, total: 7, cliDone: 3, cliTotal: 7, oldDone: 3, oldTotal: 7,
			first: "line 5", group: "实施任务", title: "**W3 持久化**：写入 `src/store/actionLog.ts`", cliFirst: "line 5",
			holes: []string{"line 5"}, paths: []string{"src/store/actionLog.ts"}},
		{file: "tasks_markers.md", done: 3, total: 6, cliDone: 3, cliTotal: 6, oldDone: 1, oldTotal: 1, midDone: 1, midTotal: 1,
			first: "1.2", group: "1. Work", title: "Not done", cliFirst: "1.2", holes: []string{"1.2", "1.4"}},
		{file: "tasks_unclosed.md", done: 1, total: 3, cliDone: 1, cliTotal: 3, oldDone: 1, oldTotal: 3,
			first: "1.2", group: "1. Setup", title: "Configure lint", cliFirst: "1.2", unclosedFence: 5},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			ts := ParseTasks(data)
			if d, n := ts.Count(); d != tt.done || n != tt.total {
				t.Errorf("count = %d/%d, want %d/%d", d, n, tt.done, tt.total)
			}
			if d, n := ts.CLICount(); d != tt.cliDone || n != tt.cliTotal {
				t.Errorf("CLI count = %d/%d, want %d/%d", d, n, tt.cliDone, tt.cliTotal)
			}
			if d, n := ts.OldCount(); d != tt.oldDone || n != tt.oldTotal {
				t.Errorf("old count = %d/%d, want %d/%d", d, n, tt.oldDone, tt.oldTotal)
			}
			if tt.midDone == 0 && tt.midTotal == 0 {
				tt.midDone, tt.midTotal = tt.cliDone, tt.cliTotal
			}
			if d, n := ts.MidCount(); d != tt.midDone || n != tt.midTotal {
				t.Errorf("1.8-1.13.0 count = %d/%d, want %d/%d", d, n, tt.midDone, tt.midTotal)
			}
			if got := ts.FencedCount(); got != tt.fence {
				t.Errorf("fenced = %d, want %d", got, tt.fence)
			}
			if ts.UnclosedFence != tt.unclosedFence {
				t.Errorf("unclosed fence at %d, want %d", ts.UnclosedFence, tt.unclosedFence)
			}
			first := ts.FirstOpen()
			switch {
			case tt.first == "" && first != nil:
				t.Errorf("first open = %+v, want none", first)
			case tt.first != "":
				if first == nil {
					t.Fatalf("no first open task, want %s", tt.first)
				}
				if first.Item != tt.first || first.Group != tt.group || first.Title != tt.title {
					t.Errorf("first open = %q %q in %q, want %q %q in %q", first.Item, first.Title, first.Group, tt.first, tt.title, tt.group)
				}
				if !reflect.DeepEqual(first.Refs, tt.refs) {
					t.Errorf("refs = %q, want %q", first.Refs, tt.refs)
				}
				if !reflect.DeepEqual(first.Paths, tt.paths) {
					t.Errorf("paths = %q, want %q", first.Paths, tt.paths)
				}
				if cli := ts.CLIFirstOpen(); cli == nil || cli.Item != tt.cliFirst {
					t.Errorf("CLI first open = %+v, want %s", cli, tt.cliFirst)
				}
			}
			if got := ts.Holes(); !reflect.DeepEqual(got, tt.holes) {
				t.Errorf("holes = %q, want %q", got, tt.holes)
			}
		})
	}
}

// TestTaskLineGrammar checks the current CLI's line rule case by case:
// markers (`+` and ordered ones since 1.13.1), box contents (tab and
// no-break space are open boxes), what is no task.
func TestTaskLineGrammar(t *testing.T) {
	tests := []struct {
		line             string
		task             bool
		done, old, other bool
	}{
		{"- [ ] 1.1 a", true, false, true, false},
		{"* [x] 1.1 a", true, true, true, false},
		{"- [X] a", true, true, true, false},
		{"-[ ] a", true, false, false, false},
		{"   - [ ] a", true, false, false, false},
		{"- [\t] a", true, false, true, false},
		{"- [\u00a0] a", true, false, true, false},
		{"- [-] a", false, false, false, false},
		{"- [~] a", false, false, false, false},
		{"+ [ ] a", true, false, false, true},
		{"+ [x] a", true, true, false, true},
		{"  +[X] a", true, true, false, true},
		{"1. [ ] a", true, false, false, true},
		{"2) [x] a", true, true, false, true},
		{"  10. [ ] 1.2 a", true, false, false, true},
		{"1.[x] a", true, true, false, true},
		{"123456789. [ ] a", true, false, false, true},
		{"1234567890. [ ] a", false, false, false, false},
		{"1.1 [ ] a", false, false, false, false},
		{"- 1. [ ] a", false, false, false, false},
		{"1 [ ] a", false, false, false, false},
		{"1: [ ] a", false, false, false, false},
		{"1. [A](url)", false, false, false, false},
		{"١. [ ] a", false, false, false, false}, // \d is ASCII only
		{"[ ] a", false, false, false, false},
		{"- [] a", false, false, false, false},
		{"- [ ]", true, false, true, false},
	}
	for _, tt := range tests {
		ts := ParseTasks([]byte(tt.line + "\n"))
		if got := len(ts.Tasks) == 1; got != tt.task {
			t.Errorf("%q: task = %v, want %v", tt.line, got, tt.task)
			continue
		}
		if !tt.task {
			continue
		}
		x := ts.Tasks[0]
		if x.Done != tt.done || x.Column0 != tt.old || x.OtherMarker != tt.other {
			t.Errorf("%q: done %v column0 %v other %v, want %v %v %v", tt.line, x.Done, x.Column0, x.OtherMarker, tt.done, tt.old, tt.other)
		}
	}
}

// TestNotPaths checks that text that is not a path never becomes one: a
// route, a URL, a command, a version, a glob, a path leaving the
// repository.
func TestNotPaths(t *testing.T) {
	text := "- [ ] 1.1 Call GET /api/v2/users and https://example.com/a.js, run `go test ./...`, bump to v1.2.3, match `src/**/*.ts`, read ../../etc/passwd.txt and `~/x.md`\n"
	ts := ParseTasks([]byte(text))
	if len(ts.Tasks) != 1 {
		t.Fatalf("tasks = %d", len(ts.Tasks))
	}
	if p := ts.Tasks[0].Paths; len(p) != 0 {
		t.Errorf("paths = %q, want none", p)
	}
}

// TestParseBounds checks the parser's bounds on hostile input: many task
// lines, a huge line, a huge title.
func TestParseBounds(t *testing.T) {
	big := strings.Repeat("- [x] 1.1 t\n", maxTasks+10)
	ts := ParseTasks([]byte(big))
	if len(ts.Tasks) != maxTasks || !ts.Truncated {
		t.Errorf("tasks = %d truncated %v", len(ts.Tasks), ts.Truncated)
	}
	long := "- [ ] 1.1 " + strings.Repeat("é", 10000) + "\n"
	ts = ParseTasks([]byte(long))
	if len(ts.Tasks) != 1 || len(ts.Tasks[0].Title) > maxTitleLen+len("…") {
		t.Errorf("title bound broken: %d", len(ts.Tasks[0].Title))
	}
	var b strings.Builder
	b.WriteString("- [ ] 1.1 t\n")
	for i := 0; i < 100; i++ {
		b.WriteString("  - Files: `a/b" + strings.Repeat("x", i) + ".go`\n  - Requirements: r" + strings.Repeat("y", i) + "\n")
	}
	ts = ParseTasks([]byte(b.String()))
	if x := ts.Tasks[0]; len(x.Paths) > maxTaskPaths || len(x.Refs) > maxTaskRefs {
		t.Errorf("bounds: %d paths, %d refs", len(x.Paths), len(x.Refs))
	}
}

// TestLeadingNumber checks the task numbers read off a task's text.
func TestLeadingNumber(t *testing.T) {
	tests := []struct{ in, num, rest string }{
		{"1.1 Do it", "1.1", " Do it"},
		{"**2.3** Bold", "2.3", " Bold"},
		{"2.3. Dotted", "2.3", " Dotted"},
		{"6.1.1 Three levels", "6.1.1", " Three levels"},
		{"7", "7", ""},
		{"**W1 Label**", "", ""},
		{"12345 too long", "", ""},
		{"1.x not a number", "", ""},
		{"1.2.3.4.5.6 too deep", "", ""},
		{"2026-01-01 a date", "", ""},
	}
	for _, tt := range tests {
		num, rest, ok := leadingNumber(tt.in)
		if ok != (tt.num != "") || num != tt.num || (ok && rest != tt.rest) {
			t.Errorf("leadingNumber(%q) = %q %q %v, want %q %q", tt.in, num, rest, ok, tt.num, tt.rest)
		}
	}
}

// TestHandWrittenIDs: a task with no leading number but a hand-written id
// ("T-3", "**FB-1**:") is named by it, not by its line; a bold label without
// a hyphenated number is not an id.
func TestHandWrittenIDs(t *testing.T) {
	tests := []struct{ line, item, title string }{
		{"- [ ] T-3 Add the enrolment form", "T-3", "Add the enrolment form"},
		{"- [x] **FB-1**: Record the feedback", "FB-1", "Record the feedback"},
		{"- [ ] UI-2.1 Wire the dialog", "UI-2.1", "Wire the dialog"},
		{"- [ ] **W1 Wave one**", "line 1", ""},
		{"- [ ] 2.3 Numbered first", "2.3", ""},
		{"- [ ] see T-3 later", "line 1", ""},
	}
	for _, tt := range tests {
		ts := ParseTasks([]byte(tt.line + "\n"))
		if len(ts.Tasks) != 1 {
			t.Fatalf("%q: %d tasks", tt.line, len(ts.Tasks))
		}
		x := ts.Tasks[0]
		if x.Item != tt.item || (tt.title != "" && x.Title != tt.title) {
			t.Errorf("%q: item %q title %q, want %q %q", tt.line, x.Item, x.Title, tt.item, tt.title)
		}
	}
}

// TestGroupID: a heading opened by a number or a short numbered label names
// its group by it; any other heading is its slug.
func TestGroupID(t *testing.T) {
	for heading, want := range map[string]string{
		"1. Setup":         "group-1",
		"M4. SVPWM模块":      "group-m4",
		"P2: API":          "group-p2",
		"Backend work":     "backend-work",
		"M. Not a label":   "m.-not-a-label",
		"Milestone4. Long": "milestone4.-long",
	} {
		if got := groupID(heading); got != want {
			t.Errorf("groupID(%q) = %q, want %q", heading, got, want)
		}
	}
}

// TestBoxLines checks the estimate parseTasks sizes its tasks with: every
// line taskMatch may accept counts (ordered markers, no blank after the
// marker, a no-break space), prose does not, and it is never below the
// tasks parsed.
func TestBoxLines(t *testing.T) {
	tests := []struct {
		name string
		text string
		want int
	}{
		{"empty", "", 0},
		{"prose", "# Tasks\nsome text [x]\n10 [x]\n", 0},
		{"markers", "- [ ] a\n* [x] b\n+ [ ] c\n1. [ ] d\n2) [x] e\n-[ ] f", 6},
		{"no-break space", "\u00a0- [x] a\n", 1},
		{"ten digits", "1234567890. [ ] a\n", 0},
		{"crlf", "- [ ] a\r\n- [x] b\r\n", 2},
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
