package openspec

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

const (
	tasksPartial = "## 1. Setup\n\n- [x] 1.1 Init `src/app.ts`\n- [ ] 1.2 Wire in `src/app.ts`\n"
	tasksDone    = "## 1. Setup\n\n- [x] 1.1 Init\n- [x] 1.2 Wire\n"
	tasksFresh   = "## 1. Setup\n\n- [ ] 1.1 Init\n"
)

// scanFiles writes files into a fresh repository and scans it, with times
// answering for git when given.
func scanFiles(t *testing.T, files map[string]string, times map[string]source.Stamp) ([]workflow.Candidate, []workflow.Finding) {
	t.Helper()
	root := t.TempDir()
	sourcetest.Write(t, root, files)
	r, _ := source.NewRepo(root, config.Default())
	if times != nil {
		r.Times = func(paths []string) map[string]source.Stamp {
			out := map[string]source.Stamp{}
			for _, p := range paths {
				if st, ok := times[p]; ok {
					out[p] = st
				}
			}
			return out
		}
	}
	return OpenSpecSource.Scan(r)
}

func byID(cs []workflow.Candidate, id string) *workflow.Candidate {
	for i := range cs {
		if cs[i].ID == id {
			return &cs[i]
		}
	}
	return nil
}

func candFinding(c *workflow.Candidate, code string) *workflow.Finding {
	for i := range c.Findings {
		if c.Findings[i].Code == code {
			return &c.Findings[i]
		}
	}
	return nil
}

func finding(fs []workflow.Finding, code string) *workflow.Finding {
	for i := range fs {
		if fs[i].Code == code {
			return &fs[i]
		}
	}
	return nil
}

// TestStatuses checks the four states of an active change (Part D.3) and
// which are resumable, and the command each names.
func TestStatuses(t *testing.T) {
	cs, _ := scanFiles(t, map[string]string{
		"openspec/config.yaml":                "schema: spec-driven\n",
		"openspec/changes/partial/tasks.md":   tasksPartial,
		"openspec/changes/done/tasks.md":      tasksDone,
		"openspec/changes/fresh/tasks.md":     tasksFresh,
		"openspec/changes/draft/proposal.md":  "# Proposal\n",
		"openspec/changes/prose/tasks.md":     "# Tasks\n\nAudit the module.\n",
		"openspec/changes/IMPLEMENTATION.md":  "not a change\n",
		"openspec/changes/archive/readme.txt": "not a change\n",
		"src/app.ts":                          "x\n",
	}, nil)
	tests := []struct {
		id, status, raw string
		resumable       bool
		command         string
	}{
		{"openspec:partial", "InProgress", "in-progress", true, "/opsx:apply partial"},
		{"openspec:done", "Done", "complete", false, "/opsx:archive done (or openspec archive done)"},
		{"openspec:fresh", "Ready", "not-started", false, "/opsx:apply fresh"},
		{"openspec:draft", "Draft", "no-tasks", false, "/opsx:apply draft"},
		{"openspec:prose", "Draft", "no-tasks", false, "/opsx:apply prose"},
	}
	if len(cs) != len(tests) {
		t.Fatalf("candidates = %d, want %d", len(cs), len(tests))
	}
	for _, tt := range tests {
		c := byID(cs, tt.id)
		if c == nil {
			t.Fatalf("no %s", tt.id)
		}
		if c.Status != tt.status || c.StatusRaw != tt.raw || c.Resumable != tt.resumable || c.Type != workflow.TypeChange || c.Framework != "openspec-1.x" {
			t.Errorf("%s: %s/%s resumable %v type %s framework %s", tt.id, c.Status, c.StatusRaw, c.Resumable, c.Type, c.Framework)
		}
		if c.Resume == nil || c.Resume.FrameworkCommand != tt.command {
			t.Errorf("%s: command %+v, want %q", tt.id, c.Resume, tt.command)
		}
	}
	p := byID(cs, "openspec:partial")
	if p.Resume.Item != "1.2" || p.Resume.Section != "1. Setup" || p.Position.String() != "1/2 done, at 1.2" {
		t.Errorf("partial: %+v %s", p.Resume, p.Position.String())
	}
	if f, ok := sourcetest.File(*p, "src/app.ts"); !ok || !f.Produced {
		t.Errorf("src/app.ts (named by the ticked 1.1) not a produced file: %+v", f)
	}
	if candFinding(byID(cs, "openspec:prose"), "no-tasks") == nil {
		t.Errorf("prose tasks.md: no no-tasks finding")
	}
}

// TestLayouts checks the layout version and the command it names:
// 0.x by project.md/AGENTS.md or /openspec:* command files, 1.x by
// config.yaml, .openspec.yaml or /opsx:* commands, 0.22–0.23 (config.yaml
// with the old commands) still 0.x.
func TestLayouts(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		version string
	}{
		{"0.1 README", map[string]string{"openspec/README.md": "# OpenSpec\n"}, "0.x"},
		{"0.x project.md AGENTS.md", map[string]string{"openspec/project.md": "# Project\n", "openspec/AGENTS.md": "# Agents\n"}, "0.x"},
		{"0.x commands", map[string]string{".claude/commands/openspec/apply.md": "apply\n"}, "0.x"},
		{"0.22 config with old commands", map[string]string{"openspec/config.yaml": "schema: spec-driven\n", ".qwen/commands/openspec-apply.toml": "x\n"}, "0.x"},
		{"1.x config", map[string]string{"openspec/config.yaml": "schema: spec-driven\n", "openspec/project.md": "# kept\n"}, "1.x"},
		{"1.x change meta", map[string]string{"openspec/changes/c/.openspec.yaml": "schema: spec-driven\n", "openspec/AGENTS.md": "# legacy\n"}, "1.x"},
		{"1.x opsx", map[string]string{".claude/commands/opsx/apply.md": "x\n", ".claude/commands/openspec/apply.md": "x\n"}, "1.x"},
		{"1.x skill", map[string]string{".claude/skills/openspec-apply-change/SKILL.md": "x\n"}, "1.x"},
		{"no marker", map[string]string{}, "1.x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"openspec/changes/c/tasks.md": tasksPartial}
			for k, v := range tt.files {
				files[k] = v
			}
			cs, _ := scanFiles(t, files, nil)
			c := byID(cs, "openspec:c")
			if c == nil {
				t.Fatal("no candidate")
			}
			if c.Framework != "openspec-"+tt.version {
				t.Errorf("framework = %s, want openspec-%s", c.Framework, tt.version)
			}
			want := "/opsx:apply c"
			if tt.version == "0.x" {
				want = "/openspec:apply c"
			}
			if c.Resume.FrameworkCommand != want {
				t.Errorf("command = %q, want %q", c.Resume.FrameworkCommand, want)
			}
		})
	}
}

// TestNestedRoots checks monorepo roots: ids prefixed by the root, the
// command's folder in the note, deep and dependency folders not searched.
func TestNestedRoots(t *testing.T) {
	cs, _ := scanFiles(t, map[string]string{
		"apps/desktop/openspec/changes/chat-page/tasks.md":           tasksPartial,
		"apps/desktop/openspec/config.yaml":                          "schema: spec-driven\n",
		"openspec/changes/chat-page/tasks.md":                        tasksPartial,
		"node_modules/@fission-ai/openspec/changes/x/tasks.md":       tasksPartial,
		".hidden/openspec/changes/y/tasks.md":                        tasksPartial,
		"a/b/c/openspec/changes/too-deep/tasks.md":                   tasksPartial,
		"archives/openspec/changes_archive_phase1/2025-01-01-z/t.md": tasksPartial,
	}, nil)
	if len(cs) != 2 {
		for _, c := range cs {
			t.Log(c.ID)
		}
		t.Fatalf("candidates = %d, want 2", len(cs))
	}
	n := byID(cs, "openspec:apps/desktop/openspec/chat-page")
	if n == nil || byID(cs, "openspec:chat-page") == nil {
		t.Fatalf("ids: %s, %s", cs[0].ID, cs[1].ID)
	}
	if !strings.Contains(n.Resume.Note, "run OpenSpec from apps/desktop") || n.Resume.FrameworkCommand != "/opsx:apply chat-page" {
		t.Errorf("nested note/command: %q %q", n.Resume.Note, n.Resume.FrameworkCommand)
	}
	if n.Source.Path != "apps/desktop/openspec/changes/chat-page/tasks.md" {
		t.Errorf("source = %s", n.Source.Path)
	}
}

// TestArchive checks the archive rules: never in flight, a change both
// active and archived (the active counts, a warning names the other), an
// id archived twice, undated and doubly dated folders, archived changes
// with open boxes.
func TestArchive(t *testing.T) {
	cs, fs := scanFiles(t, map[string]string{
		"openspec/changes/action-log-undo/tasks.md":                                tasksPartial,
		"openspec/changes/archive/2025-12-09-action-log-undo/tasks.md":             tasksDone,
		"openspec/changes/archive/2025-11-05-overlay-loading/tasks.md":             tasksDone,
		"openspec/changes/archive/2025-11-06-overlay-loading/tasks.md":             tasksDone,
		"openspec/changes/archive/add-console-embed-page/tasks.md":                 tasksDone,
		"openspec/changes/archive/2025-11-01-2025-01-27-plugin-install/tasks.md":   tasksDone,
		"openspec/changes/archive/2025-11-03-update-layout/tasks.md":               tasksPartial,
		"openspec/changes/archive/2025-12-24-align-flutter/align-flutter/tasks.md": tasksPartial,
		"openspec/changes/archive/2025-13-45-hand-moved/tasks.md":                  tasksDone,
	}, nil)
	if len(cs) != 1 {
		t.Fatalf("candidates = %d, want 1 (archived changes are never candidates)", len(cs))
	}
	a := byID(cs, "openspec:action-log-undo")
	if f := candFinding(a, "openspec-active-and-archived"); f == nil || f.Severity != workflow.Warning || !strings.Contains(f.Message, "2025-12-09-action-log-undo") {
		t.Errorf("active and archived: %+v", f)
	}
	if !a.Resumable {
		t.Errorf("the active copy counts: not resumable")
	}
	checks := []struct {
		code, has string
	}{
		{"openspec-archived-twice", "overlay-loading is archived 2 times"},
		{"openspec-archive-undated", "add-console-embed-page"},
		{"openspec-archive-double-date", "2025-11-01-2025-01-27-plugin-install"},
		{"openspec-archived-open-tasks", "2025-11-03-update-layout (1/2)"},
		{"openspec-archive-nested-copy", "openspec/changes/archive/2025-12-24-align-flutter/align-flutter"},
		{"openspec-archive-bad-date", "2025-13-45-hand-moved"},
	}
	for _, c := range checks {
		f := finding(fs, c.code)
		if f == nil || !strings.Contains(f.Message, c.has) {
			t.Errorf("%s: %+v", c.code, f)
		}
	}
	if f := finding(fs, "openspec-archived-open-tasks"); f != nil && strings.Contains(f.Message, "align-flutter") {
		t.Errorf("a copy inside an archive folder is not a change of its own: %s", f.Message)
	}
}

// TestExternalStore checks a config-only root pointing to a store.
func TestExternalStore(t *testing.T) {
	cs, fs := scanFiles(t, map[string]string{"openspec/config.yaml": "schema: spec-driven\nstore: team-planning # shared\n"}, nil)
	if len(cs) != 0 {
		t.Fatalf("candidates = %d", len(cs))
	}
	if f := finding(fs, "openspec-external-store"); f == nil || !strings.Contains(f.Message, `"team-planning"`) {
		t.Errorf("store finding: %+v", f)
	}
}

// TestCurrentChange checks the current change: the last commit on the
// folder, the modification time for an uncommitted one, .openspec.yaml
// created on a tie; per root.
func TestCurrentChange(t *testing.T) {
	at := func(s string) time.Time { return sourcetest.MustTime(t, s) }
	files := map[string]string{
		"openspec/changes/older/tasks.md":       tasksPartial,
		"openspec/changes/newer/tasks.md":       tasksPartial,
		"openspec/changes/tie-a/tasks.md":       tasksPartial,
		"openspec/changes/tie-a/.openspec.yaml": "schema: spec-driven\ncreated: 2026-03-31\n",
		"openspec/changes/done/tasks.md":        tasksDone,
		"pkg/openspec/changes/other/tasks.md":   tasksPartial,
	}
	times := map[string]source.Stamp{
		"openspec/changes/older": {When: at("2026-11-01T10:00:00Z"), From: "git:aaaaaaa"},
		"openspec/changes/newer": {When: at("2026-11-03T10:00:00Z"), From: "git:bbbbbbb"},
		"openspec/changes/tie-a": {When: at("2026-11-01T10:00:00Z"), From: "git:ccccccc"},
	}
	cs, _ := scanFiles(t, files, times)
	cur := byID(cs, "openspec:newer")
	if cur.Source.Priority != workflow.PriorityInProgress || cur.UpdatedFrom != "git:bbbbbbb" || !strings.Contains(cur.Resume.Note, "current change") {
		t.Errorf("newer: prio %d from %s note %q", cur.Source.Priority, cur.UpdatedFrom, cur.Resume.Note)
	}
	for _, id := range []string{"openspec:older", "openspec:tie-a"} {
		if c := byID(cs, id); c.Source.Priority != workflow.PrioritySpec || strings.Contains(c.Resume.Note, "current change") {
			t.Errorf("%s marked current", id)
		}
	}
	if o := byID(cs, "openspec:pkg/openspec/other"); o == nil || o.Source.Priority != workflow.PriorityInProgress {
		t.Errorf("the nested root has its own current change: %+v", o)
	}
	// a tie on the commit time goes to the later created date
	delete(times, "openspec/changes/newer")
	times["openspec/changes/older"] = times["openspec/changes/tie-a"]
	delete(files, "openspec/changes/newer/tasks.md")
	cs, _ = scanFiles(t, files, times)
	if c := byID(cs, "openspec:tie-a"); c.Source.Priority != workflow.PriorityInProgress {
		t.Errorf("tie: tie-a (created 2026-03-31) not current")
	}
}

// TestCountsBeside checks the figures shown beside orchestrate's count: the
// column-0 rule of CLIs up to 1.7 and the CLI's fenced boxes; a fenced open
// box first makes the framework's next differ.
func TestCountsBeside(t *testing.T) {
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	cs, _ := scanFiles(t, map[string]string{
		"openspec/project.md":                  "# Project\n",
		"openspec/changes/indented/tasks.md":   read("tasks_indented.md"),
		"openspec/changes/fenced/tasks.md":     read("tasks_fenced_first.md"),
		"openspec/changes/fresh/tasks.md":      tasksFresh,
		"openspec/changes/task-md/task.md":     tasksPartial,
		"openspec/changes/task-md/proposal.md": "# P\n",
	}, nil)
	in := byID(cs, "openspec:indented")
	if in.Position.String() != "5/8 done, at 1.2.2" || !strings.Contains(in.Resume.Note, "3/3 by the 0.x rule") {
		t.Errorf("indented: %s note %q", in.Position.String(), in.Resume.Note)
	}
	if candFinding(in, "open-tasks-among-done") == nil {
		t.Errorf("indented: no holes finding")
	}
	// 0.x: the agent reads tasks.md itself, no CLI list in between
	fe := byID(cs, "openspec:fenced")
	if fe.Resume.Differs || !strings.HasPrefix(fe.Resume.FrameworkNext, "1.2 ") {
		t.Errorf("fenced 0.x: next %q differs %v", fe.Resume.FrameworkNext, fe.Resume.Differs)
	}
	// 1.x: instructions apply lists the fenced box first
	cs1, _ := scanFiles(t, map[string]string{"openspec/config.yaml": "schema: spec-driven\n", "openspec/changes/fenced/tasks.md": read("tasks_fenced_first.md")}, nil)
	fe1 := byID(cs1, "openspec:fenced")
	if !fe1.Resume.Differs || !strings.HasPrefix(fe1.Resume.FrameworkNext, "0.1 ") || fe1.Resume.Item != "1.2" || fe1.Resume.DiffersWhy == "" {
		t.Errorf("fenced 1.x: next %q differs %v item %s", fe1.Resume.FrameworkNext, fe1.Resume.Differs, fe1.Resume.Item)
	}
	if !strings.Contains(fe.Resume.Note, "1/3 by the openspec CLI") {
		t.Errorf("fenced note: %q", fe.Resume.Note)
	}
	if fr := byID(cs, "openspec:fresh"); !strings.Contains(fr.Resume.Note, "0.x apply ticked the boxes only at the end") {
		t.Errorf("0.x 0/N note: %q", fr.Resume.Note)
	}
	// OpenSpec #1861: numbered and + boxes count (1.13.1+); 1.8 to 1.13.0
	// read this file as 1/1, complete
	cs2, _ := scanFiles(t, map[string]string{"openspec/config.yaml": "schema: spec-driven\n",
		"openspec/changes/numbered/tasks.md": "## 1. Work\n- [x] 1.1 Done\n1. [ ] 1.2 Not done\n+ [ ] 1.3 Not done\n"}, nil)
	nu := byID(cs2, "openspec:numbered")
	if nu == nil || !nu.Resumable || nu.Position.String() != "1/3 done, at 1.2" || !strings.Contains(nu.Resume.Note, "1/1 by OpenSpec 1.8 to 1.13.0") {
		t.Errorf("numbered: %+v", nu)
	}
	if in := byID(cs, "openspec:indented"); strings.Contains(in.Resume.Note, "1.13.0") {
		t.Errorf("indented: 1.8 figure shown though equal: %q", in.Resume.Note)
	}
	if tm := byID(cs, "openspec:task-md"); candFinding(tm, "openspec-task-md") == nil || tm.Status != "Draft" {
		t.Errorf("task.md: %+v", tm.Findings)
	}
}

// TestHostileRepo checks that an unreadable, binary or huge tasks.md and
// odd folder names give findings, never a panic.
func TestHostileRepo(t *testing.T) {
	cs, _ := scanFiles(t, map[string]string{
		"openspec/changes/bin/tasks.md":                "- [x] 1.1 a\x00\x01\x02",
		"openspec/changes/TERMSTATEV1-IMPL-1/tasks.md": tasksPartial,
		"openspec/changes/weird name!/tasks.md":        tasksPartial,
	}, nil)
	if c := byID(cs, "openspec:TERMSTATEV1-IMPL-1"); c == nil || !c.Resumable {
		t.Errorf("hand-made id not accepted as-is")
	}
	if c := byID(cs, "openspec:weird-name"); c == nil {
		for _, c := range cs {
			t.Log(c.ID)
		}
		t.Errorf("odd folder name not sanitised")
	}
	if c := byID(cs, "openspec:bin"); c == nil || candFinding(c, "binary") == nil || candFinding(c, "no-tasks") != nil {
		t.Errorf("binary tasks.md: %+v", c)
	}
}

// TestTasksNotAFile checks that a tasks.md that is no regular file (a
// FIFO, a folder) or cannot be read gives the read finding every format
// gives (source.ReadFinding), at once, never a silent "No tasks".
func TestTasksNotAFile(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, p string)
		code string
	}{
		{"fifo", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
		}, "not-a-file"},
		{"folder", func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "not-a-file"},
		{"unreadable", func(t *testing.T, p string) {
			if os.Geteuid() == 0 {
				t.Skip("root reads every file")
			}
			if err := os.WriteFile(p, []byte(tasksPartial), 0o000); err != nil {
				t.Fatal(err)
			}
		}, "permission"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			sourcetest.Write(t, root, map[string]string{"openspec/changes/odd/proposal.md": "# P\n"})
			tt.make(t, filepath.Join(root, "openspec", "changes", "odd", "tasks.md"))
			r, _ := source.NewRepo(root, config.Default())
			cs, _ := OpenSpecSource.Scan(r)
			c := byID(cs, "openspec:odd")
			if c == nil {
				t.Fatal("no candidate")
			}
			f := candFinding(c, tt.code)
			if f == nil || f.Path != "openspec/changes/odd/tasks.md" || !strings.Contains(f.Message, "cannot read openspec/changes/odd/tasks.md") {
				t.Errorf("no %s finding: %+v", tt.code, c.Findings)
			}
			if candFinding(c, "no-tasks") != nil || c.Resumable {
				t.Errorf("read as a change with no tasks: %+v", c)
			}
		})
	}
}

// TestSymlinks checks that a change folder, a tasks.md or an openspec/
// root that is a symlink leading out of the repository is never read
// through.
func TestSymlinks(t *testing.T) {
	outside := t.TempDir()
	sourcetest.Write(t, outside, map[string]string{
		"changes/stolen/tasks.md": tasksPartial,
		"secret.md":               tasksPartial,
	})
	root := t.TempDir()
	sourcetest.Write(t, root, map[string]string{
		"openspec/changes/real/proposal.md": "# P\n",
		"openspec/config.yaml":              "schema: spec-driven\n",
	})
	links := map[string]string{
		"openspec/changes/linked":        filepath.Join(outside, "changes/stolen"),
		"openspec/changes/real/tasks.md": filepath.Join(outside, "secret.md"),
		"pkg/openspec":                   outside,
	}
	for from, to := range links {
		full := filepath.Join(root, filepath.FromSlash(from))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(to, full); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
	}
	r, _ := source.NewRepo(root, config.Default())
	cs, _ := OpenSpecSource.Scan(r)
	if c := byID(cs, "openspec:real"); c == nil || candFinding(c, "unsafe-path") == nil {
		t.Errorf("a tasks.md leading out of the repository gives no finding: %+v", c)
	}
	for _, c := range cs {
		if c.Resumable || (c.Resume != nil && c.Resume.Total > 0) {
			t.Errorf("%s: read through a symlink: %+v", c.ID, c.Resume)
		}
		if strings.HasPrefix(c.ID, "openspec:pkg/") {
			t.Errorf("a symlinked openspec/ root was searched: %s", c.ID)
		}
	}
}

// TestHostileCountsFast checks the bounds on hostile input: a tasks.md of
// the size cap full of task lines, one of headings, one long line; each
// read fast with its bound, never a panic.
func TestHostileCountsFast(t *testing.T) {
	big := strings.Repeat("- [x] 1.1 t `a/b.go`\n  - Requirements: r\n", 7<<20/44)
	heads := strings.Repeat("## 1. g\n- [ ] 1.1 t\n", 7<<20/22)
	long := "- [ ] 1.1 " + strings.Repeat("`a/b.go` ", 7<<20/10) + "\n"
	start := time.Now()
	cs, _ := scanFiles(t, map[string]string{
		"openspec/changes/big/tasks.md":   big,
		"openspec/changes/heads/tasks.md": heads,
		"openspec/changes/long/tasks.md":  long,
	}, nil)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("scan took %v", d)
	}
	b := byID(cs, "openspec:big")
	if b == nil || candFinding(b, "too-many-tasks") == nil || b.Resume.Total != maxTasks {
		t.Errorf("big: %+v", b)
	}
	if h := byID(cs, "openspec:heads"); h == nil || len(h.Phases) > maxGroups+1 {
		t.Errorf("heads: %d phases", len(h.Phases))
	}
	if l := byID(cs, "openspec:long"); l == nil || len(l.Resume.Files) > maxTaskPaths {
		t.Errorf("long: %+v", l)
	}
}

// TestKeyCollision checks that change folders whose names make the same
// key (add-auth, add!auth, "add auth" committed later, and -rf beside rf) are all
// candidates with distinct ids, the exactly named one keeping the key
// whatever the commit order, and that a warning names the collision.
func TestKeyCollision(t *testing.T) {
	newest := map[string]source.Stamp{
		"openspec/changes/add!auth":  {When: time.Date(2026, 11, 20, 11, 0, 0, 0, time.UTC), From: "git:bbb"},
		"openspec/changes/add auth":  {When: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), From: "git:ccc"},
		"openspec/changes/add-auth":  {When: time.Date(2026, 11, 19, 10, 0, 0, 0, time.UTC), From: "git:aaa"},
		"openspec/changes/-rf":       {When: time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC), From: "git:ddd"},
		"openspec/changes/rf":        {When: time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC), From: "git:eee"},
		"openspec/changes/weird!one": {When: time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC), From: "git:fff"},
		"openspec/changes/weird?one": {When: time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC), From: "git:fff"},
	}
	files := map[string]string{}
	for dir := range newest {
		files[dir+"/tasks.md"] = tasksPartial
	}
	cs, fs := scanFiles(t, files, newest)
	if len(cs) != len(newest) {
		t.Fatalf("%d candidates for %d changes", len(cs), len(newest))
	}
	ids := map[string]string{}
	for _, c := range cs {
		if prev, ok := ids[c.ID]; ok {
			t.Errorf("%s and %s share the id %s", prev, c.Source.Path, c.ID)
		}
		ids[c.ID] = c.Source.Path
		if c.Key != strings.TrimPrefix(c.ID, "openspec:") {
			t.Errorf("%s: key %q", c.ID, c.Key)
		}
	}
	for id, src := range map[string]string{"openspec:add-auth": "openspec/changes/add-auth/tasks.md", "openspec:rf": "openspec/changes/rf/tasks.md"} {
		if ids[id] != src {
			t.Errorf("%s is %q, want %s (the folder named exactly)", id, ids[id], src)
		}
	}
	if _, ok := ids["openspec:weird-one"]; ok {
		t.Errorf("a key no folder names exactly was kept bare: %v", ids)
	}
	n := 0
	for _, f := range fs {
		if f.Code == "openspec-key-collision" {
			n++
			if f.Severity != workflow.Warning || !strings.Contains(f.Message, "openspec/changes/") {
				t.Errorf("collision finding: %+v", f)
			}
		}
	}
	if n != 3 {
		t.Errorf("%d collision findings, want 3: %v", n, fs)
	}
	// a change alone keeps its key
	cs, fs = scanFiles(t, map[string]string{"openspec/changes/add auth/tasks.md": tasksPartial}, nil)
	if len(cs) != 1 || cs[0].ID != "openspec:add-auth" || finding(fs, "openspec-key-collision") != nil {
		t.Errorf("a lone change: %v %v", cs, fs)
	}
}
