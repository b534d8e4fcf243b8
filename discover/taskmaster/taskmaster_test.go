package taskmaster

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// scanFiles writes files into a fresh repository and scans it.
func scanFiles(t *testing.T, files map[string]string) ([]workflow.Candidate, []workflow.Finding) {
	t.Helper()
	root := t.TempDir()
	sourcetest.Write(t, root, files)
	r, _ := source.NewRepo(root, config.Default())
	return TaskmasterSource.Scan(r)
}

func byID(cs []workflow.Candidate) map[string]workflow.Candidate {
	m := map[string]workflow.Candidate{}
	for _, c := range cs {
		m[c.ID] = c
	}
	return m
}

func paths(c workflow.Candidate) []string {
	var out []string
	for _, f := range c.Files {
		out = append(out, f.Path)
	}
	return out
}

func phases(c workflow.Candidate) string {
	var out []string
	for _, p := range c.Phases {
		out = append(out, p.ID+"="+p.Status)
	}
	return strings.Join(out, " ")
}

func TestScan(t *testing.T) {
	type want struct {
		status, raw, framework string
		rp                     workflow.ResumePoint
		files                  []string
		phases                 string
		findings               []string // codes on the candidate
	}
	tests := []struct {
		name    string
		files   map[string]string
		ids     []string
		want    map[string]want
		globals []string
	}{
		{
			name:  "0.16 untagged: the in-progress subtask, next agrees",
			files: map[string]string{LiveTasksFile: fixture(t, "untagged-016.json")},
			ids:   []string{"task:master/2"},
			want: map[string]want{"task:master/2": {
				status: "InProgress", raw: "in-progress", framework: Framework016,
				rp: workflow.ResumePoint{
					Item: "2.2", Title: "Map columns to ledger fields", Section: "Task 2: Import bank statements",
					Labels: []string{"[high]"}, Files: []string{"src/import/columns.ts"}, Done: 1, Total: 3,
					Note:             "(2025-06-13T16:40:51.002Z) Currency now read from the header row; negative amounts still wrong.",
					FrameworkCommand: "task-master next", FrameworkNext: "2.2 Map columns to ledger fields",
				},
				files:  []string{".taskmaster/tasks/tasks.json", "src/import/columns.ts", "src/import/csv.ts", "src/import/dialect.ts"},
				phases: "2.1=completed 2.2=current 2.3=pending",
			}},
		},
		{
			name: "0.17 tagged: current tag from state.json, float ids kept, subtask evidence beats a pending parent",
			files: map[string]string{
				LiveTasksFile: fixture(t, "tagged-017.json"),
				StateFile:     fixture(t, "state-017.json"),
				ConfigFile:    fixture(t, "config-016.json"),
			},
			ids: []string{"task:feature-auth/3", "task:master/2"},
			want: map[string]want{
				"task:feature-auth/3": {
					status: "Backlog", raw: "pending", framework: Framework017,
					rp: workflow.ResumePoint{
						Item: "3.2", Title: "Callback handler", Section: "Task 3: OAuth login", Labels: []string{"[high]"},
						Files: []string{"api/auth/callback.js"}, Done: 1, Total: 4,
						// "3.2" is stored as text: the CLI finds it by no id
						FrameworkCommand: "task-master show 3",
						FrameworkNext:    "3 OAuth login (task-master next takes subtasks only of in-progress tasks; task 3 is pending, so it passes over subtask 3.2)", Differs: true,
					},
					files:    []string{".taskmaster/config.json", ".taskmaster/state.json", ".taskmaster/tasks/tasks.json", "api/auth/callback.js"},
					phases:   "3.1=completed 3.2=current 3.10=pending 3.1=pending",
					findings: []string{"duplicate-id", "taskmaster-id-unresolvable"},
				},
				"task:master/2": {
					status: "InReview", raw: "review", framework: Framework017,
					rp: workflow.ResumePoint{
						Item: "2", Title: "Rate limiting", Labels: []string{"[medium]"}, Files: []string{"api/middleware/limit.js"},
						Done: 0, Total: 1, FrameworkCommand: "task-master show 2 --tag=master",
						FrameworkNext: "nothing (no task is eligible; task-master next takes only pending or in-progress items; task 2 is review)", Differs: true,
					},
					files:    []string{".taskmaster/config.json", ".taskmaster/state.json", ".taskmaster/tasks/tasks.json", "api/middleware/limit.js"},
					phases:   "2=current",
					findings: []string{"duplicate-id", "other-tag"},
				},
			},
		},
		{
			name:  "legacy tasks/tasks.json: todo is never next",
			files: map[string]string{LegacyTasksFile: fixture(t, "legacy.json"), ".taskmasterconfig": "{}"},
			ids:   []string{"task:master/2"},
			want: map[string]want{"task:master/2": {
				status: "InProgress", raw: "in-progress", framework: FrameworkLegacy,
				rp: workflow.ResumePoint{
					Item: "2", Title: "Streak counter", Labels: []string{"[medium]"}, Files: []string{"lib/streak.py"},
					Total: 1, FrameworkCommand: "task-master next", FrameworkNext: "2 Streak counter",
				},
				files:  []string{"lib/streak.py", "tasks/tasks.json"},
				phases: "2=current",
			}},
		},
		{
			name:  "evidence: in-progress subtask of a pending parent, finished parents, holes, missing status",
			files: map[string]string{LiveTasksFile: fixture(t, "evidence.json")},
			ids:   []string{"task:master/5", "task:master/7"},
			want: map[string]want{
				"task:master/5": {
					status: "Backlog", raw: "pending", framework: Framework016,
					rp: workflow.ResumePoint{
						Item: "5.2", Title: "Inverted index", Section: "Task 5: Search index", Labels: []string{"[medium]"},
						Files: []string{"search/index.go"}, Done: 1, Total: 3,
						FrameworkCommand: "task-master show 5.2", Differs: true,
						FrameworkNext: "9 Next by the framework (task-master next takes subtasks only of in-progress tasks; task 5 is pending, so it passes over subtask 5.2)",
					},
					files:  []string{".taskmaster/tasks/tasks.json", "search/index.go"},
					phases: "5.1=completed 5.2=current 5.3=pending",
				},
				"task:master/7": {
					status: "Unknown", raw: "deferred", framework: Framework016,
					rp: workflow.ResumePoint{
						Item: "7.2", Title: "Skipped for now", Section: "Task 7: Holes and a cancelled step", Labels: []string{"[low]"},
						Done: 2, Total: 4, Holes: []string{"7.3"},
						FrameworkCommand: "task-master set-status --id=7.2 --status=in-progress",
						FrameworkNext:    "9 Next by the framework (task-master next takes subtasks only of in-progress tasks; task 7 is deferred, so it passes over subtask 7.2)", Differs: true,
					},
					files:  []string{".taskmaster/tasks/tasks.json"},
					phases: "7.1=skipped 7.2=current 7.3=pending 7.4=completed",
				},
			},
		},
		{
			name: "two tasks files that differ: the first is live, the other a finding",
			files: map[string]string{
				LiveTasksFile:   fixture(t, "untagged-016.json"),
				LegacyTasksFile: fixture(t, "legacy.json"),
			},
			ids: []string{"task:master/2"},
			want: map[string]want{"task:master/2": {
				status: "InProgress", raw: "in-progress", framework: Framework016,
				rp: workflow.ResumePoint{
					Item: "2.2", Title: "Map columns to ledger fields", Section: "Task 2: Import bank statements",
					Labels: []string{"[high]"}, Files: []string{"src/import/columns.ts"}, Done: 1, Total: 3,
					Note:             "(2025-06-13T16:40:51.002Z) Currency now read from the header row; negative amounts still wrong.",
					FrameworkCommand: "task-master next", FrameworkNext: "2.2 Map columns to ledger fields",
				},
				files:    []string{".taskmaster/tasks/tasks.json", "src/import/columns.ts", "src/import/csv.ts", "src/import/dialect.ts"},
				phases:   "2.1=completed 2.2=current 2.3=pending",
				findings: []string{"stale-tasks-file"},
			}},
		},
		{
			name: "current tag from config.json when state.json is absent; a tag with no tasks is a finding",
			files: map[string]string{
				LiveTasksFile: fixture(t, "tagged-017.json"),
				ConfigFile:    fixture(t, "config-016.json"),
			},
			ids: []string{"task:feature-auth/3", "task:master/2"},
		},
		{
			name:    "no Taskmaster files: nothing",
			files:   map[string]string{"README.md": "# hi\n"},
			ids:     nil,
			globals: nil,
		},
		{
			name:    "nothing in flight: no candidate, the file's findings stay global",
			files:   map[string]string{LiveTasksFile: `{"tasks": [{"id": 1, "status": "shelved"}]}`},
			ids:     nil,
			globals: []string{"unknown-status"},
		},
		{
			name:  "not a tasks file: an unreadable candidate with a blocking finding",
			files: map[string]string{LiveTasksFile: `[1, 2]`},
			ids:   []string{"task:tasks"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, globals := scanFiles(t, tt.files)
			var ids []string
			for _, c := range cs {
				ids = append(ids, c.ID)
			}
			if !reflect.DeepEqual(ids, tt.ids) {
				t.Fatalf("ids = %q, want %q", ids, tt.ids)
			}
			var gcodes []string
			for _, f := range globals {
				gcodes = append(gcodes, f.Code)
			}
			if !reflect.DeepEqual(gcodes, tt.globals) {
				t.Errorf("global findings = %q, want %q", gcodes, tt.globals)
			}
			got := byID(cs)
			for id, w := range tt.want {
				c := got[id]
				if c.Type != workflow.TypeTask || c.Source.Kind != workflow.KindTaskmaster || !c.Resumable || c.Key != strings.TrimPrefix(id, "task:") {
					t.Errorf("%s: type %s kind %s resumable %v key %s", id, c.Type, c.Source.Kind, c.Resumable, c.Key)
				}
				if c.Status != w.status || c.StatusRaw != w.raw || c.Framework != w.framework {
					t.Errorf("%s: status %s/%q framework %s, want %s/%q %s", id, c.Status, c.StatusRaw, c.Framework, w.status, w.raw, w.framework)
				}
				if c.Resume == nil || !reflect.DeepEqual(*c.Resume, w.rp) {
					t.Errorf("%s: resume point\n got %+v\nwant %+v", id, c.Resume, w.rp)
				}
				if c.Position.Kind != workflow.PosStep || c.Position.Index != w.rp.Done || c.Position.Total != w.rp.Total {
					t.Errorf("%s: position %+v", id, c.Position)
				}
				if p := paths(c); !reflect.DeepEqual(p, w.files) {
					t.Errorf("%s: files %q, want %q", id, p, w.files)
				}
				if p := phases(c); p != w.phases {
					t.Errorf("%s: phases %q, want %q", id, p, w.phases)
				}
				if c.UpdatedFrom != "mtime" || c.UpdatedAt.IsZero() {
					t.Errorf("%s: updated %v from %q", id, c.UpdatedAt, c.UpdatedFrom)
				}
				for _, code := range w.findings {
					if !sourcetest.HasFinding(c.Findings, code, "") {
						t.Errorf("%s: no %s finding in %v", id, code, c.Findings)
					}
				}
			}
		})
	}
}

func TestCurrentTagFallbacks(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		tag     string
		from    string
		missing bool
	}{
		{"state.json wins", map[string]string{StateFile: fixture(t, "state-017.json"), ConfigFile: fixture(t, "config-016.json")}, "feature-auth", "state.json currentTag", false},
		{"config.json defaultTag", map[string]string{ConfigFile: fixture(t, "config-016.json")}, "release", "config.json global.defaultTag", true},
		{"default master", map[string]string{}, "master", "default", false},
		{"a bad state.json falls back", map[string]string{StateFile: `{"currentTag": "../x"}`}, "master", "default", false},
		{"an undecodable state.json is a warning", map[string]string{StateFile: `{`}, "master", "default", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{LiveTasksFile: fixture(t, "tagged-017.json")}
			for k, v := range tt.files {
				files[k] = v
			}
			root := t.TempDir()
			sourcetest.Write(t, root, files)
			r, _ := source.NewRepo(root, config.Default())
			f, _, _ := Parse(LiveTasksFile, []byte(files[LiveTasksFile]))
			p := Project{TasksPath: LiveTasksFile, File: f}
			fs := p.currentTag(r)
			if p.CurrentTag != tt.tag || p.TagFrom != tt.from {
				t.Fatalf("tag %s from %s", p.CurrentTag, p.TagFrom)
			}
			if got := sourcetest.HasFinding(fs, "missing-tag", workflow.Warning); got != tt.missing {
				t.Fatalf("missing-tag %v: %v", got, fs)
			}
		})
	}
}

func TestIDs(t *testing.T) {
	tests := []struct {
		parent, lit, full, local string
	}{
		{"3", "1", "3.1", "1"},
		{"3", "3.1", "3.1", "1"},
		{"3", "3.10", "3.10", "10"},
		{"3", "2.1", "3.2.1", "2.1"},
		{"12", "1", "12.1", "1"},
	}
	for _, tt := range tests {
		full, local := SubtaskID(tt.parent, tt.lit)
		if full != tt.full || local != tt.local {
			t.Errorf("SubtaskID(%s, %s) = %s, %s", tt.parent, tt.lit, full, local)
		}
	}
	deps := []struct{ parent, lit, want string }{
		{"", "5", "5"}, {"", "3.2", "3.2"}, {"3", "1", "3.1"}, {"3", "4.2", "4.2"},
	}
	for _, d := range deps {
		if got := DependencyID(d.parent, d.lit); got != d.want {
			t.Errorf("DependencyID(%s, %s) = %s", d.parent, d.lit, got)
		}
	}
	// the literal is kept: 3.10 and 3.1 are two subtasks; 1 and 3.1 collide
	f, fs, ok := Parse("t.json", []byte(fixture(t, "tagged-017.json")))
	if !ok {
		t.Fatal(fs)
	}
	var got []string
	for _, s := range f.Tasks["feature-auth"][0].Subtasks {
		got = append(got, s.ID+":"+strings.Join(s.Deps, ","))
	}
	if want := []string{"3.1:", "3.2:3.1", "3.10:3.2", "3.1:"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("subtasks %q, want %q", got, want)
	}
	if !sourcetest.HasFinding(fs, "duplicate-id", workflow.Warning) {
		t.Fatalf("no collision warning: %v", fs)
	}
}

func TestMapStatus(t *testing.T) {
	tests := []struct {
		raw   string
		want  workflow.Status
		known bool
	}{
		{"", workflow.StatusBacklog, true},
		{"pending", workflow.StatusBacklog, true},
		{"todo", workflow.StatusBacklog, true},
		{"in-progress", workflow.StatusInProgress, true},
		{" In-Progress ", workflow.StatusInProgress, true},
		{"review", workflow.StatusInReview, true},
		{"done", workflow.StatusDone, true},
		{"completed", workflow.StatusDone, true},
		{"blocked", workflow.StatusBlocked, true},
		{"deferred", workflow.StatusUnknown, true},
		{"cancelled", workflow.StatusUnknown, true},
		{"shelved", workflow.StatusUnknown, false},
	}
	for _, tt := range tests {
		got, known := MapStatus(tt.raw)
		if got != tt.want || known != tt.known {
			t.Errorf("MapStatus(%q) = %s, %v", tt.raw, got, known)
		}
	}
}

func TestNext(t *testing.T) {
	sub := func(parent, id, status, prio string, deps ...string) Task {
		return Task{ID: parent + "." + id, Local: id, Parent: parent, StatusRaw: status, Priority: prio, Deps: deps}
	}
	tests := []struct {
		name  string
		tasks []Task
		want  string
	}{
		{"subtasks of an in-progress parent first, by priority", []Task{
			{ID: "1", StatusRaw: "pending", Priority: "high"},
			{ID: "2", StatusRaw: "in-progress", Priority: "low", Subtasks: []Task{sub("2", "1", "pending", ""), sub("2", "2", "pending", "high")}},
		}, "2.2"},
		{"fewer dependencies, then parent and sub id numerically", []Task{
			{ID: "10", StatusRaw: "in-progress", Subtasks: []Task{sub("10", "1", "pending", "")}},
			{ID: "9", StatusRaw: "in-progress", Subtasks: []Task{sub("9", "10", "pending", ""), sub("9", "2", "pending", ""), sub("9", "1", "done", "")}},
		}, "9.2"},
		{"subtasks with open deps are passed over: back to top-level tasks", []Task{
			{ID: "1", StatusRaw: "in-progress", Deps: []string{"2"}, Subtasks: []Task{sub("1", "1", "pending", "", "1.2"), sub("1", "2", "pending", "", "1.1")}},
			{ID: "2", StatusRaw: "pending"},
		}, "2"},
		{"in-progress subtask of a pending parent and todo are skipped; no status never next", []Task{
			{ID: "1", StatusRaw: "pending", Deps: []string{"3"}, Subtasks: []Task{sub("1", "1", "in-progress", "")}},
			{ID: "2", StatusRaw: "in-progress", Subtasks: []Task{sub("2", "1", "todo", ""), sub("2", "2", "", "")}},
			{ID: "3", StatusRaw: ""},
			{ID: "4", StatusRaw: "pending", Priority: "low"},
		}, "2"},
		{"critical ranks above high", []Task{
			{ID: "1", StatusRaw: "pending", Priority: "high"},
			{ID: "2", StatusRaw: "pending", Priority: "critical"},
		}, "2"},
		{"nothing eligible", []Task{{ID: "1", StatusRaw: "done"}, {ID: "2", StatusRaw: "blocked"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Next(tt.tasks)
			if got.ID != tt.want || ok != (tt.want != "") {
				t.Fatalf("Next = %q %v, want %q", got.ID, ok, tt.want)
			}
		})
	}
}

func TestInFlight(t *testing.T) {
	s := func(st string) Task { return Task{StatusRaw: st} }
	tests := []struct {
		name string
		t    Task
		want bool
	}{
		{"in-progress", Task{StatusRaw: "in-progress"}, true},
		{"review", Task{StatusRaw: "review"}, true},
		{"blocked", Task{StatusRaw: "blocked"}, true},
		{"pending alone", Task{StatusRaw: "pending"}, false},
		{"pending, one subtask done of two", Task{StatusRaw: "pending", Subtasks: []Task{s("done"), s("pending")}}, true},
		{"pending, every subtask done", Task{StatusRaw: "pending", Subtasks: []Task{s("done"), s("done")}}, false},
		{"pending, a subtask in progress", Task{StatusRaw: "pending", Subtasks: []Task{s("in-progress")}}, true},
		{"done parent, open subtasks", Task{StatusRaw: "done", Subtasks: []Task{s("in-progress")}}, false},
		{"cancelled parent", Task{StatusRaw: "cancelled", Subtasks: []Task{s("done"), s("pending")}}, false},
		{"missing status, a subtask done", Task{Subtasks: []Task{s("done"), s("")}}, true},
	}
	for _, tt := range tests {
		if got := InFlight(tt.t); got != tt.want {
			t.Errorf("%s: InFlight = %v", tt.name, got)
		}
	}
}

func TestLastNote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain details", ""},
		{"a\n<info added on 2025-01-01T00:00:00Z>\nfirst\n</info added on 2025-01-01T00:00:00Z>\n<info added on 2025-01-02T00:00:00Z>\nsecond\nline\n</info added on 2025-01-02T00:00:00Z>", "(2025-01-02T00:00:00Z) second line"},
		{"<info added on 2025-01-02>unterminated note", "(2025-01-02) unterminated note"},
		{"<info added on never closed", ""},
	}
	for _, tt := range tests {
		if got := LastNote(tt.in); got != tt.want {
			t.Errorf("LastNote(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseBadInput(t *testing.T) {
	tests := []struct {
		name, data string
		ok         bool
		codes      []string
	}{
		{"empty", "", false, []string{"syntax"}},
		{"array", "[]", false, []string{"not-an-object"}},
		{"no tasks anywhere", `{"meta": {}}`, false, []string{"not-taskmaster"}},
		{"tasks not a list", `{"tasks": {"1": {}}}`, true, []string{"wrong-type"}},
		{"task not an object", `{"tasks": [1, "x"]}`, true, []string{"wrong-type", "wrong-type"}},
		{"ids unusable", `{"tasks": [{"id": {"a": 1}}, {"id": "a b"}, {"title": "no id"}]}`, true, []string{"bad-id", "bad-id", "bad-id"}},
		{"duplicate task id", `{"tasks": [{"id": 1}, {"id": "1"}]}`, true, []string{"duplicate-id"}},
		{"hostile tag", `{"../../etc": {"tasks": []}, "ok": {"tasks": []}}`, true, []string{"bad-tag"}},
		{"status not text", `{"tasks": [{"id": 1, "status": ["done"]}]}`, true, []string{"wrong-type"}},
		{"deep", strings.Repeat("[", 5000), false, []string{"too-deep"}},
		{"not utf-8", "{\"tasks\": [{\"id\": 1, \"title\": \"\xff\"}]}", false, []string{"invalid-utf8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, fs, ok := Parse("t.json", []byte(tt.data))
			var codes []string
			for _, f := range fs {
				codes = append(codes, f.Code)
			}
			if ok != tt.ok || !reflect.DeepEqual(codes, tt.codes) {
				t.Fatalf("ok %v codes %q, want %v %q", ok, codes, tt.ok, tt.codes)
			}
		})
	}
}

func TestPathsFromText(t *testing.T) {
	repo := map[string]bool{"src": true, "src/api": true, "src/api/contacts.ts": true}
	exists := func(p string) bool { return repo[p] }
	files := map[string]any{"files": []any{"./b/c.go", map[string]any{"path": "d/e.md"}, 7}}
	tests := []struct {
		name   string
		m      map[string]any
		texts  []string
		exists func(string) bool
		want   []string
	}{
		{"files array and backticked files", files,
			[]string{"Use `a/b.ts` and run `npm test`, see `https://x.io/a.js` or `../up.go`", "`README.md` twice `README.md`"},
			exists, []string{"README.md", "a/b.ts", "b/c.go", "d/e.md"}},
		// the shape of a real task: routes the task implements, backticked
		// in its details, with the handler file beside them
		{"URL routes are not paths", nil,
			[]string{"Expose `GET /api/v2/integrations/contacts` and `/api/v2/integrations/contacts`",
				"Routes: `/api/v2/integrations/contacts/sync`, `/api/v2/integrations/contacts/:id`, `/api/v2/integrations/{provider}/contacts`; handler in `src/api/contacts.ts`"},
			exists, []string{"src/api/contacts.ts"}},
		{"a root-relative path that exists is the repository's", nil,
			[]string{"see `/src/api/contacts.ts`"}, exists, []string{"src/api/contacts.ts"}},
		{"globs, commands and folders without a repository", nil,
			[]string{"`src/**/*.ts`, `pnpm run lint`, `src/api`"}, nil, nil},
		{"a folder under an existing folder", nil,
			[]string{"`src/api`"}, exists, []string{"src/api"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task := Task{Files: itemPaths(tt.m), Mentions: mentions(tt.texts...)}
			got := task.Paths(tt.exists)
			if !reflect.DeepEqual(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Fatalf("paths %q, want %q", got, tt.want)
			}
		})
	}
}

func FuzzParseTaskmaster(f *testing.F) {
	for _, name := range []string{"untagged-016.json", "tagged-017.json", "legacy.json", "evidence.json"} {
		f.Add([]byte(fixture(f, name)))
	}
	f.Add([]byte(`{"tasks": [{"id": 1, "status": "in-progress", "subtasks": [{"id": 1.10}, {"id": "1.1"}]}]}`))
	f.Add([]byte(`{"t": {"tasks": [{"id": 2, "subtasks": [{"id": 1, "status": "done"}, {"id": 2}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, fs, ok := Parse("tasks.json", data)
		if !ok && (len(fs) != 1 || fs[0].Severity != workflow.Blocking) {
			t.Fatalf("undecodable file without one blocking finding: %v", fs)
		}
		again, fs2, _ := Parse("tasks.json", data)
		if !reflect.DeepEqual(file, again) || !reflect.DeepEqual(fs, fs2) {
			t.Fatal("not deterministic")
		}
		cs := Candidates(Project{TasksPath: "tasks.json", File: file, CurrentTag: DefaultTag})
		for _, c := range cs {
			if !strings.HasPrefix(c.ID, IDPrefix) || c.Resume == nil || c.Resume.Item == "" {
				t.Fatalf("candidate %+v", c)
			}
			if c.Resume.Done < 0 || c.Resume.Done > c.Resume.Total || c.Resume.Total < 1 {
				t.Fatalf("position %d/%d", c.Resume.Done, c.Resume.Total)
			}
			if len(c.Files) > len(data)+1 {
				t.Fatalf("%d files from %d bytes", len(c.Files), len(data))
			}
		}
	})
}

func TestListWarningMessages(t *testing.T) {
	tests := []struct {
		name, data string
		want       []string
	}{
		{"tasks not a list", `{"tasks": {"1": {}}}`, []string{`tag master: "tasks" is an object, want a list`}},
		{"mixed tasks", `{"tasks": [1, {"title": "x"}, "y"]}`, []string{
			"tag master: task #1 is a number, want an object",
			"tag master: task #2 has no usable id",
			"tag master: task #3 is a string, want an object",
		}},
		{"subtasks not a list", `{"tasks": [{"id": 3, "subtasks": 7}]}`, []string{`tag master: task 3: "subtasks" is a number, want a list`}},
		{"mixed subtasks", `{"tasks": [{"id": 3, "subtasks": [true, {"id": "a b"}, [], {"id": 1}]}]}`, []string{
			"tag master: task 3: subtask #1 is a boolean, want an object",
			"tag master: task 3: subtask #2 has no usable id",
			"tag master: task 3: subtask #3 is an array, want an object",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, fs, _ := Parse("t.json", []byte(tt.data))
			var got []string
			for _, f := range fs {
				got = append(got, f.Message)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("messages %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRealShape pins, on a tasks file shaped like a Taskmaster 0.43 one
// (tagged, numeric ids, routes in the task text), what the framework's own
// `task-master next` and CLI say, and that routes are never paths.
func TestRealShape(t *testing.T) {
	files := map[string]string{
		LiveTasksFile:                   fixture(t, "routes-043.json"),
		StateFile:                       `{"currentTag": "master", "lastSwitched": "2026-02-20T09:00:00.000Z", "branchTagMapping": {}, "migrationNoticeShown": true}`,
		"src/server/routes/contacts.ts": "export {}\n",
		"src/server/jobs/.keep":         "",
	}
	cs, _ := scanFiles(t, files)
	got := byID(cs)
	tests := []struct {
		id                 string
		item, next, cmd    string
		differs            bool
		files, resumeFiles []string
	}{
		{
			// next agrees: an in-progress subtask of an in-progress task
			id: "task:master/12", item: "12.2", next: "12.2 Sync endpoint", cmd: "task-master next",
			files:       []string{".taskmaster/state.json", ".taskmaster/tasks/tasks.json", "src/server/jobs/sync-contacts.ts", "src/server/routes/contacts.ts", "src/server/schema/contact.ts"},
			resumeFiles: []string{"src/server/jobs/sync-contacts.ts"},
		},
		{
			// next passes over an in-progress subtask of a pending task:
			// orchestrate keeps it, and says why the framework differs
			id: "task:master/14", item: "14.1", differs: true, cmd: "task-master show 14.1",
			next:        "12.2 Sync endpoint (task-master next takes subtasks only of in-progress tasks; task 14 is pending, so it passes over subtask 14.1)",
			files:       []string{".taskmaster/state.json", ".taskmaster/tasks/tasks.json", "src/server/dedupe/score.ts"},
			resumeFiles: []string{"src/server/dedupe/score.ts"},
		},
	}
	if len(cs) != len(tests) {
		t.Fatalf("%d candidates, want %d: %v", len(cs), len(tests), byID(cs))
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			c, ok := got[tt.id]
			if !ok {
				t.Fatalf("no candidate %s", tt.id)
			}
			rp := c.Resume
			if rp.Item != tt.item || rp.FrameworkNext != tt.next || rp.FrameworkCommand != tt.cmd || rp.Differs != tt.differs {
				t.Errorf("item %q next %q cmd %q differs %v\nwant %q %q %q %v", rp.Item, rp.FrameworkNext, rp.FrameworkCommand, rp.Differs, tt.item, tt.next, tt.cmd, tt.differs)
			}
			if !reflect.DeepEqual(paths(c), tt.files) {
				t.Errorf("files %q, want %q", paths(c), tt.files)
			}
			if !reflect.DeepEqual(rp.Files, tt.resumeFiles) {
				t.Errorf("resume files %q, want %q", rp.Files, tt.resumeFiles)
			}
			for _, f := range c.Files {
				if strings.Contains(f.Path, "api/") || strings.HasPrefix(f.Path, "/") {
					t.Errorf("a route became a referenced path: %q", f.Path)
				}
			}
		})
	}
}

func TestCLIID(t *testing.T) {
	tests := []struct {
		data string
		want []string // CLI id of each task, then of each of its subtasks
	}{
		{`{"tasks": [{"id": 3, "subtasks": [{"id": 1}, {"id": 2}]}]}`, []string{"3", "3.1", "3.2"}},
		{`{"tasks": [{"id": 3, "subtasks": [{"id": "2"}, {"id": "3.3"}, {"id": 3.4}]}]}`, []string{"3", "", "", ""}},
		{`{"tasks": [{"id": "task-3", "subtasks": [{"id": 1}]}]}`, []string{"", ""}},
		{`{"tasks": [{"id": 03, "subtasks": [{"id": 1}]}]}`, nil}, // not JSON
		{`{"tasks": [{"id": 7, "subtasks": [{"id": 10}]}]}`, []string{"7", "7.10"}},
	}
	for _, tt := range tests {
		f, _, ok := Parse("t.json", []byte(tt.data))
		var got []string
		if ok {
			for _, x := range f.Tasks[DefaultTag] {
				got = append(got, x.CLI)
				for _, s := range x.Subtasks {
					got = append(got, s.CLI)
				}
			}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: CLI ids %q, want %q", tt.data, got, tt.want)
		}
	}
}
