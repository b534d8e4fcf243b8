package kiro

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// fixture returns the files of testdata/<name> placed in spec folder dir.
func fixture(t *testing.T, name, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("testdata", name, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[dir+"/"+e.Name()] = string(data)
	}
	return out
}

func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func scanFiles(t *testing.T, files map[string]string) ([]workflow.Candidate, []workflow.Finding) {
	t.Helper()
	root := t.TempDir()
	sourcetest.Write(t, root, files)
	r, _ := source.NewRepo(root, config.Default())
	return KiroSource.Scan(r)
}

func byID(cs []workflow.Candidate, id string) *workflow.Candidate {
	for i := range cs {
		if cs[i].ID == id {
			return &cs[i]
		}
	}
	return nil
}

// TestScan checks every spec of a repository holding each producer's
// shape: ids, frameworks, status, position, the resume point with its
// group, requirements and files, the framework's own command and answer.
func TestScan(t *testing.T) {
	files := merge(
		fixture(t, "ide1x", ".kiro/specs/speech-to-text"),
		fixture(t, "early", ".kiro/specs/billing-dashboard"),
		fixture(t, "ccsdd", ".kiro/specs/syndication-service"),
		fixture(t, "bugfix", ".kiro/specs/empty-cart-crash"),
		map[string]string{
			".kiro/specs/design-only/requirements.md": "# Requirements\n",
			".kiro/specs/design-only/spec.json":       `{"phase": "design-generated"}`,
			".kiro/specs/not-started/tasks.md":        "- [ ] 1. a\n- [ ] 2. b\n",
			".kiro/specs/finished/tasks.md":           "- [ ] 1. Parent\n  - [x] 1.1 a\n  - [ ]* 1.2 optional\n",
			".kiro/specs/notes/README.txt":            "not a spec",
			".kiro/steering/product.md":               "# Product\n",
			"src/stt/client.ts":                       "export {}\n",
			"src/stt/models.ts":                       "export {}\n",
			"tests/checkout.test.ts":                  "test()\n",
		})
	cs, fs := scanFiles(t, files)
	if len(fs) != 0 {
		t.Errorf("global findings: %v", fs)
	}
	if len(cs) != 7 {
		t.Fatalf("candidates: %d", len(cs))
	}
	tests := []struct {
		id, framework string
		status        workflow.Status
		resumable     bool
		position      string
		section       string
		labels        string
		command       string
		differs       bool
		noteHas       string
	}{
		{"kiro:speech-to-text", FrameworkIDE, workflow.StatusInProgress, true, "2/6 done, at 2.3", "2. Implement core functionality",
			"[-] in progress (Requirements: 2.2, 3.1)", "Start task 2.3 in .kiro/specs/speech-to-text/tasks.md (Kiro IDE)", false, "+2 optional (0 done)"},
		{"kiro:billing-dashboard", FrameworkIDE, workflow.StatusInProgress, true, "6/9 done, at 4.1", "4. Implement billing",
			"(Requirements: 4.1)", "Start task 4.1 in .kiro/specs/billing-dashboard/tasks.md (Kiro IDE)", false, "early layout"},
		{"kiro:syndication-service", FrameworkCCSDD, workflow.StatusInProgress, true, "2/5 done, at 2.2", "2. Feed generation",
			"(P) (Requirements: 2.1, 2.2) (Depends: 1.2) (Blocked: the sitemap service returns 500 for large feeds)", "/kiro:spec-impl syndication-service 2.2", true, "cc-sdd spec (phase tasks-generated)"},
		{"kiro:empty-cart-crash", FrameworkIDE, workflow.StatusInProgress, true, "1/3 done, at 2", "Implementation Plan",
			"(Requirements: 2.1)", "Start task 2 in .kiro/specs/empty-cart-crash/tasks.md (Kiro IDE)", false, "Kiro IDE 1.x bugfix spec (requirements-first)"},
		{"kiro:design-only", FrameworkCCSDD, workflow.StatusDraft, false, "0 done", "", "", "", false, "phase design-generated"},
		{"kiro:not-started", FrameworkIDE, workflow.StatusReady, false, "0/2 done, at 1", "", "", "Start task 1 in .kiro/specs/not-started/tasks.md (Kiro IDE)", false, ""},
		{"kiro:finished", FrameworkIDE, workflow.StatusDone, false, "1/1 done", "", "", "", false, "+1 optional"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			c := byID(cs, tt.id)
			if c == nil {
				t.Fatal("missing")
			}
			if c.Type != workflow.TypeKiroSpec || c.Source.Kind != workflow.KindKiro || c.Framework != tt.framework {
				t.Errorf("type %s kind %s framework %s", c.Type, c.Source.Kind, c.Framework)
			}
			if workflow.Status(c.Status) != tt.status || c.Resumable != tt.resumable {
				t.Errorf("status %s (%s) resumable %v", c.Status, c.StatusRaw, c.Resumable)
			}
			if got := c.Position.String(); got != tt.position {
				t.Errorf("position %q, want %q", got, tt.position)
			}
			rp := c.Resume
			if rp.Section != tt.section || strings.Join(rp.Labels, " ") != tt.labels {
				t.Errorf("section %q labels %q", rp.Section, rp.Labels)
			}
			if rp.FrameworkCommand != tt.command || rp.Differs != tt.differs {
				t.Errorf("command %q differs %v (%s: %s)", rp.FrameworkCommand, rp.Differs, rp.FrameworkNext, rp.DiffersWhy)
			}
			if !strings.Contains(rp.Note, tt.noteHas) {
				t.Errorf("note %q lacks %q", rp.Note, tt.noteHas)
			}
		})
	}
	// findings: unticked parents, a hole, the meta log against the box
	if c := byID(cs, "kiro:billing-dashboard"); !sourcetest.HasFinding(c.Findings, "kiro-unticked-parents", workflow.Info) ||
		!sourcetest.HasFinding(c.Findings, "open-tasks-among-done", workflow.Info) {
		t.Errorf("billing findings: %v", c.Findings)
	}
	if c := byID(cs, "kiro:speech-to-text"); !sourcetest.HasFinding(c.Findings, "kiro-meta-disagrees", workflow.Info) {
		t.Errorf("speech findings: %v", c.Findings)
	}
	if c := byID(cs, "kiro:finished"); !sourcetest.HasFinding(c.Findings, "kiro-unticked-parents", workflow.Info) {
		t.Errorf("finished findings: %v", c.Findings)
	}
	// files a task names: existing ones referenced, with the task's group
	c := byID(cs, "kiro:speech-to-text")
	if f, ok := sourcetest.File(*c, "src/stt/client.ts"); !ok || f.Phase != "task-2" || f.Produced {
		t.Errorf("resume task's file: %+v %v", f, ok)
	}
	if f, ok := sourcetest.File(*c, "src/stt/models.ts"); !ok || !f.Produced {
		t.Errorf("closed task's file: %+v %v", f, ok)
	}
	if _, ok := sourcetest.File(*c, "src/ui/TranscriptView.tsx"); ok {
		t.Error("an open later task's file is referenced")
	}
	if f, ok := sourcetest.File(*c, ".kiro/specs/speech-to-text/tasks.md"); !ok || !f.Critical {
		t.Errorf("tasks.md: %+v", f)
	}
	if c.Resume.Files[0] != "src/stt/client.ts" {
		t.Errorf("resume files %v", c.Resume.Files)
	}
	// phases: groups of the plan
	var ph []string
	for _, p := range c.Phases {
		ph = append(ph, p.ID+"="+p.Status)
	}
	if got := strings.Join(ph, " "); got != "task-1=completed task-2=current task-3=pending task-4=pending" {
		t.Errorf("phases %s", got)
	}
}

// TestCurrent checks which in-flight spec is the likely current one: the
// newest folder time, then the newest meta run, then a [-] leaf.
func TestCurrent(t *testing.T) {
	a := &spec{ID: "kiro:a", TasksPath: "x", Counts: Counts{Done: 1, Total: 2}}
	b := &spec{ID: "kiro:b", TasksPath: "x", Counts: Counts{Done: 1, Total: 2}}
	if current([]*spec{a, b}) != a {
		t.Error("ties go to the first id")
	}
	b.setTasks(ParseTasks([]byte("- [x] 1. a\n- [-] 2. b\n")))
	if current([]*spec{a, b}) != b {
		t.Error("a [-] leaf breaks the tie")
	}
	a.Meta.LastAt = a.Meta.LastAt.Add(1)
	if current([]*spec{a, b}) != a {
		t.Error("a meta run beats a marker")
	}
	b.ModTime = b.ModTime.Add(1)
	if current([]*spec{a, b}) != b {
		t.Error("the folder time comes first")
	}
}

// TestCustomKiroDir checks cc-sdd's --kiro-dir: specs under docs/specs
// when docs/settings/templates/specs exists, a name in both folders, and
// the skill spelling of the command.
func TestCustomKiroDir(t *testing.T) {
	files := merge(
		fixture(t, "ccsdd", "docs/specs/syndication-service"),
		fixture(t, "early", ".kiro/specs/syndication-service"),
		map[string]string{
			"docs/settings/templates/specs/tasks.md": "# template\n- [ ] {{MAJOR}}. x\n",
			".claude/skills/kiro-impl/SKILL.md":      "---\nname: kiro-impl\n---\n",
			"specs/001-x/tasks.md":                   "- [ ] T001 spec-kit, not Kiro\n",
		})
	cs, fs := scanFiles(t, files)
	if len(cs) != 2 || !sourcetest.HasFinding(fs, "kiro-duplicate-spec", workflow.Warning) {
		t.Fatalf("candidates %d findings %v", len(cs), fs)
	}
	c := byID(cs, "kiro:docs-syndication-service")
	if c == nil || c.Framework != FrameworkCCSDD || c.Resume.FrameworkCommand != "/kiro-impl syndication-service 2.2" {
		t.Fatalf("custom dir candidate: %+v", c)
	}
	if !strings.Contains(c.Resume.Note, "cc-sdd spec in docs/") {
		t.Errorf("note %q", c.Resume.Note)
	}
}

// TestCCSDDNext checks cc-sdd's own pick against orchestrate's: optional
// tasks come first for it, a blocked task is skipped, unapproved tasks
// are a warning.
func TestCCSDDNext(t *testing.T) {
	tasks := "- [x] 1. a\n- [ ]* 2. optional first\n- [ ] 3. required\n"
	cs, _ := scanFiles(t, map[string]string{
		".kiro/specs/f/tasks.md":  tasks,
		".kiro/specs/f/spec.json": `{"phase":"tasks-generated","approvals":{"tasks":{"generated":true,"approved":false}}}`,
	})
	rp := cs[0].Resume
	if rp.Item != "3" || !rp.Differs || !strings.HasPrefix(rp.FrameworkNext, "2 optional first") || !strings.Contains(rp.DiffersWhy, "optional ones included") {
		t.Errorf("resume %+v", rp)
	}
	if !sourcetest.HasFinding(cs[0].Findings, "cc-sdd-tasks-not-approved", workflow.Warning) {
		t.Errorf("findings %v", cs[0].Findings)
	}
}

// TestGraphWaves checks the IDE's dependency waves: a first open task
// outside the first pending wave differs from Kiro's own run.
func TestGraphWaves(t *testing.T) {
	tasks := "- [x] 1. a\n- [ ] 2. b\n- [ ] 3. c\n\n## Task Dependency Graph\n\n```json\n{\"waves\":[{\"id\":0,\"tasks\":[\"1\",\"3\"]},{\"id\":1,\"tasks\":[\"2\"]}]}\n```\n"
	cs, _ := scanFiles(t, map[string]string{".kiro/specs/g/tasks.md": tasks, ".kiro/specs/g/.config.kiro": `{"generationMode":"requirements-first"}`})
	rp := cs[0].Resume
	if rp.Item != "2" || !rp.Differs || rp.FrameworkNext != "wave 0 of the Task Dependency Graph: 3" {
		t.Errorf("resume %+v", rp)
	}
	if !strings.Contains(rp.Note, "Kiro IDE 0.9 spec") {
		t.Errorf("note %q", rp.Note)
	}
}

// TestHostile checks bad input: a binary tasks.md, a broken meta file,
// a huge one, a symlink out of the repository; findings, never a panic.
func TestHostile(t *testing.T) {
	root := t.TempDir()
	sourcetest.Write(t, root, map[string]string{
		".kiro/specs/bin/tasks.md":         "- [ ] 1. a\x00\x01\x02",
		".kiro/specs/meta/tasks.md":        "- [x] 1. a\n- [ ] 2. b\n",
		".kiro/specs/meta/tasks.meta.json": `{"executionHistory": [1, 2]`,
		".kiro/specs/big/tasks.md":         strings.Repeat("- [x] 1. a\n", 10) + strings.Repeat("x", 3<<20),
	})
	outside := filepath.Join(t.TempDir(), "tasks.md")
	if err := os.WriteFile(outside, []byte("- [x] 1. a\n- [ ] 2. b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".kiro/specs/link"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".kiro/specs/link/tasks.md")); err != nil {
		t.Fatal(err)
	}
	r, _ := source.NewRepo(root, config.Default())
	cs, _ := KiroSource.Scan(r)
	for _, c := range cs {
		if c.Resumable && c.ID != "kiro:meta" {
			t.Errorf("%s resumable from a file that cannot be read: %+v", c.ID, c.Findings)
		}
	}
	if c := byID(cs, "kiro:meta"); c == nil || !sourcetest.HasFinding(c.Findings, "kiro-meta-unreadable", workflow.Info) {
		t.Errorf("meta: %+v", c)
	}
}

// TestTasksNotAFile checks that a tasks.md the folder listing leaves out
// (a FIFO, a folder) gives the read finding every format gives, at once,
// and no "holds no task line" beside it; a spec whose only tasks.md is a
// FIFO is still a spec.
func TestTasksNotAFile(t *testing.T) {
	tests := []struct {
		name  string
		other bool // the folder holds requirements.md too
		make  func(t *testing.T, p string)
	}{
		{"fifo", true, func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
		}},
		{"fifo-only", false, func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
		}},
		{"folder", true, func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{".kiro/steering/product.md": "# P\n"}
			if tt.other {
				files[".kiro/specs/feat/requirements.md"] = "# R\n"
			}
			sourcetest.Write(t, root, files)
			dir := filepath.Join(root, ".kiro", "specs", "feat")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.make(t, filepath.Join(dir, "tasks.md"))
			r, _ := source.NewRepo(root, config.Default())
			cs, _ := KiroSource.Scan(r)
			c := byID(cs, "kiro:feat")
			if c == nil {
				t.Fatal("no candidate")
			}
			if !sourcetest.HasFinding(c.Findings, "not-a-file", workflow.Blocking) {
				t.Errorf("no not-a-file finding: %+v", c.Findings)
			}
			if sourcetest.HasFinding(c.Findings, "no-tasks", workflow.Info) || c.Resumable {
				t.Errorf("read as a spec with no tasks: %+v", c)
			}
		})
	}
}

// TestIDCollision checks that spec folders whose names make the same id
// ("my spec", "my!spec" and my-spec, and kiro-my-spec whose id the
// folder-qualified id of a duplicate would take) are all candidates with
// ids of their own, the folder named exactly keeping kiro:my-spec, each
// other one named by a warning.
func TestIDCollision(t *testing.T) {
	tasks := "- [x] 1. a\n- [ ] 2. b\n"
	cs, fs := scanFiles(t, map[string]string{
		".kiro/specs/my spec/tasks.md":      tasks,
		".kiro/specs/my!spec/tasks.md":      tasks,
		".kiro/specs/my-spec/tasks.md":      tasks,
		".kiro/specs/kiro-my-spec/tasks.md": tasks,
		".kiro/specs/a b/tasks.md":          tasks,
		".kiro/specs/a?b/tasks.md":          tasks,
	})
	if len(cs) != 6 {
		t.Fatalf("%d candidates, want 6", len(cs))
	}
	ids := map[string]string{}
	for _, c := range cs {
		if prev, ok := ids[c.ID]; ok {
			t.Errorf("%s and %s share the id %s", prev, c.Source.Path, c.ID)
		}
		ids[c.ID] = c.Source.Path
	}
	for id, src := range map[string]string{"kiro:my-spec": ".kiro/specs/my-spec/tasks.md", "kiro:kiro-my-spec": ".kiro/specs/kiro-my-spec/tasks.md"} {
		if ids[id] != src {
			t.Errorf("%s is %q, want %s", id, ids[id], src)
		}
	}
	n := 0
	for _, f := range fs {
		if f.Code == "kiro-duplicate-spec" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d kiro-duplicate-spec findings, want 3: %v", n, fs)
	}
}
