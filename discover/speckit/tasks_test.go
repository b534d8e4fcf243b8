package speckit

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestParseTasksFiles checks the grammar on real-shaped tasks.md files: the
// current template (phases with ### subsections, checkpoints, fenced and
// commented examples, a validation checklist), the old numbering, a
// localised file, and one with checkboxes but no task ids.
func TestParseTasksFiles(t *testing.T) {
	tests := []struct {
		file       string
		ids        []string
		done       int
		first      string
		section    string
		labels     []string
		paths      []string
		holes      []string
		dropped    []string
		phases     int
		firstPhase string
	}{
		{
			file: "tasks_new.md", ids: []string{"T001", "T002", "T003", "T004", "T005", "T006", "T007", "T008", "T009", "T010"},
			done: 6, first: "T006", section: "Phase 3: User Story 1 - Export all orders (Priority: P1) 🎯 MVP",
			labels: []string{"[P]", "[US1]"}, paths: []string{"tests/contract/test_orders_csv.py"},
			holes: []string{"T006"}, dropped: []string{"T005"}, phases: 4,
			firstPhase: "Phase 1: Setup (Shared Infrastructure)",
		},
		{
			file: "tasks_old.md", ids: []string{"T001", "T002", "T003", "T004", "T005", "T006"},
			done: 3, first: "T004", section: "Phase 3.2: Tests First (TDD) ⚠️ MUST COMPLETE BEFORE 3.3",
			labels: []string{"[P]"}, paths: []string{"tests/integration/test_lockout.py"}, phases: 3,
			firstPhase: "Phase 3.1: Setup",
		},
		{
			file: "tasks_localized.md", ids: []string{"T001", "T002", "T003", "T004"},
			done: 2, first: "T003", section: "フェーズ 2：ユーザーストーリー 1",
			labels: []string{"[US1]"}, paths: []string{"src/search/api.ts"}, phases: 2,
			firstPhase: "フェーズ 1：セットアップ",
		},
		{file: "tasks_none.md"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			ts := ParseTasks(readTestdata(t, tt.file))
			var ids []string
			for _, x := range ts.Tasks {
				ids = append(ids, x.ID)
			}
			if !reflect.DeepEqual(ids, tt.ids) {
				t.Fatalf("ids = %v, want %v", ids, tt.ids)
			}
			if ts.Done() != tt.done {
				t.Errorf("done = %d, want %d", ts.Done(), tt.done)
			}
			if !reflect.DeepEqual(ts.Holes(), tt.holes) {
				t.Errorf("holes = %v, want %v", ts.Holes(), tt.holes)
			}
			if !reflect.DeepEqual(ts.Dropped(), tt.dropped) {
				t.Errorf("dropped = %v, want %v", ts.Dropped(), tt.dropped)
			}
			if len(ts.Phases) != tt.phases {
				t.Errorf("phases = %q, want %d", ts.Phases, tt.phases)
			}
			if tt.phases > 0 && ts.Phases[0] != tt.firstPhase {
				t.Errorf("first phase = %q, want %q", ts.Phases[0], tt.firstPhase)
			}
			f := ts.FirstOpen()
			if tt.first == "" {
				if f != nil {
					t.Fatalf("first open = %v, want none", f)
				}
				return
			}
			if f == nil || f.ID != tt.first || f.Section != tt.section {
				t.Fatalf("first open = %+v, want %s under %q", f, tt.first, tt.section)
			}
			if !reflect.DeepEqual(f.Labels, tt.labels) || !reflect.DeepEqual(f.Paths, tt.paths) {
				t.Errorf("labels %v paths %v, want %v %v", f.Labels, f.Paths, tt.labels, tt.paths)
			}
		})
	}
}

// TestTaskLines checks single task lines: id spellings, labels in any
// order and a trailing [P], the path forms, and lines that are no tasks.
func TestTaskLines(t *testing.T) {
	tests := []struct {
		name   string
		line   string
		id     string // "" = no task
		done   bool
		labels []string
		paths  []string
		title  string
	}{
		{"plain", "- [ ] T014 Create the model", "T014", false, nil, nil, "Create the model"},
		{"bold id", "- [x] **T014** [P] Add `src/a.py`", "T014", true, []string{"[P]"}, []string{"src/a.py"}, "Add `src/a.py`"},
		{"dashed id", "- [X] T-014 Add it", "T014", true, nil, nil, "Add it"},
		{"star bullet", "* [ ] T014 Add it", "T014", false, nil, nil, "Add it"},
		{"indented", "    - [ ] T14 Add it", "T14", false, nil, nil, "Add it"},
		{"labels any order", "- [ ] T020 [US2] [P] [Backend] Do it", "T020", false, []string{"[US2]", "[P]", "[Backend]"}, nil, "Do it"},
		{"trailing P", "- [ ] T021 [US1] Do it [P]", "T021", false, []string{"[US1]", "[P]"}, nil, "Do it"},
		{"bare after in", "- [ ] T022 Add login in src/auth/login.go", "T022", false, nil, []string{"src/auth/login.go"}, ""},
		{"relative to previous", "- [ ] T023 Models in src/models/user.py, order.py", "T023", false, nil, []string{"src/models/user.py", "src/models/order.py"}, ""},
		{"bare with folder", "- [ ] T024 Create src/main.rs with the CLI", "T024", false, nil, []string{"src/main.rs"}, ""},
		{"no paths from words", "- [ ] T025 Bump to v2.0 and run npm test", "T025", false, nil, nil, ""},
		{"unsafe path dropped", "- [ ] T026 Edit `../../etc/passwd` and `/abs/x.go`", "T026", false, nil, nil, ""},
		{"url not a path", "- [ ] T027 Read https://example.com/a.md", "T027", false, nil, nil, ""},
		{"no id", "- [ ] Write tests", "", false, nil, nil, ""},
		{"id glued", "- [ ] T014a Add it", "", false, nil, nil, ""},
		// suffixed ids: parts of one task are distinct tasks
		{"letter suffix", "- [ ] T071-A [P] Split the importer", "T071-A", false, []string{"[P]"}, nil, "Split the importer"},
		{"bold letter suffix", "- [x] **T071-B** Wire it", "T071-B", true, nil, nil, "Wire it"},
		{"lower-case suffix", "- [ ] T071-c Wire it", "T071-C", false, nil, nil, "Wire it"},
		{"dotted part", "- [ ] T014.1 Follow-up", "T014.1", false, nil, nil, "Follow-up"},
		{"dashed id with suffix", "- [ ] T-071-A Wire it", "T071-A", false, nil, nil, "Wire it"},
		{"a word is no suffix", "- [ ] T014-setup the db", "T014", false, nil, nil, "-setup the db"},
		{"a version is no suffix", "- [ ] T014 v1.2", "T014", false, nil, nil, "v1.2"},
		// task text names routes, not paths
		{"routes are not paths", "- [ ] T030 [US2] Add GET /api/v2/integrations/contacts in src/api/contacts.ts and `/api/v2/integrations/contacts/sync`", "T030", false, []string{"[US2]"}, []string{"src/api/contacts.ts"}, ""},
		{"a route after in", "- [ ] T031 Register the handler in /api/v2/contacts", "T031", false, nil, nil, ""},
		{"five digits", "- [ ] T12345 Add it", "", false, nil, nil, ""},
		{"one digit", "- [ ] T1 Add it", "", false, nil, nil, ""},
		{"no box", "- T014 Add it", "", false, nil, nil, ""},
		{"numbered list", "1. [ ] T014 Add it", "", false, nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := ParseTasks([]byte(tt.line + "\n"))
			if tt.id == "" {
				if len(ts.Tasks) != 0 {
					t.Fatalf("task %+v, want none", ts.Tasks[0])
				}
				return
			}
			if len(ts.Tasks) != 1 {
				t.Fatalf("%d tasks, want 1", len(ts.Tasks))
			}
			x := ts.Tasks[0]
			if x.ID != tt.id || x.Done != tt.done || !reflect.DeepEqual(x.Labels, tt.labels) || !reflect.DeepEqual(x.Paths, tt.paths) {
				t.Errorf("got %s done=%v labels=%v paths=%v; want %s %v %v %v", x.ID, x.Done, x.Labels, x.Paths, tt.id, tt.done, tt.labels, tt.paths)
			}
			if tt.title != "" && x.Title != tt.title {
				t.Errorf("title = %q, want %q", x.Title, tt.title)
			}
		})
	}
}

// TestSubBullets checks the `- **Files**:` and `**AC**:` sub-bullets of
// the resume task.
func TestSubBullets(t *testing.T) {
	ts := ParseTasks(readTestdata(t, "tasks_new.md"))
	var t8 *Task
	for i := range ts.Tasks {
		if ts.Tasks[i].ID == "T008" {
			t8 = &ts.Tasks[i]
		}
	}
	// "text/csv" in the AC line is a MIME type, not a path
	want := []string{"src/api/orders.py", "src/api/routes.py", "docs/csv-format.md"}
	if t8 == nil || !reflect.DeepEqual(t8.Paths, want) {
		t.Fatalf("T008 paths = %v, want %v", t8, want)
	}
}

// TestDuplicatesAndBounds checks duplicate ids and the task bound.
func TestDuplicatesAndBounds(t *testing.T) {
	ts := ParseTasks([]byte("- [ ] T001 a\n- [x] T001 b\n- [ ] T-001 c\n"))
	if !reflect.DeepEqual(ts.Duplicates, []string{"T001"}) {
		t.Errorf("duplicates = %v", ts.Duplicates)
	}
	// the shape of a real tasks.md: one task split in lettered parts
	ts = ParseTasks([]byte("## Phase 9: Polish\n\n- [x] T071-A [P] Part one\n- [ ] T071-B [P] Part two\n- [ ] T071-C Part three\n- [ ] T072 Next\n"))
	if len(ts.Duplicates) != 0 || len(ts.Tasks) != 4 || ts.FirstOpen().ID != "T071-B" {
		t.Errorf("suffixed ids: duplicates %v, %d tasks, first open %v", ts.Duplicates, len(ts.Tasks), ts.FirstOpen())
	}
	big := strings.Repeat("- [ ] T001 x\n", maxTasks+10)
	ts = ParseTasks([]byte(big))
	if len(ts.Tasks) != maxTasks || !ts.Truncated {
		t.Errorf("tasks %d truncated %v", len(ts.Tasks), ts.Truncated)
	}
}
