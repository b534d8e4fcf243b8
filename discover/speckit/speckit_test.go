package speckit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

const (
	tasksPartial = "# Tasks\n\n## Phase 1: Setup\n- [x] T001 Init in `src/app.py`\n\n## Phase 2: Core\n- [ ] T002 [US1] Build in src/core.py\n- [x] T003 Later\n"
	tasksDone    = "# Tasks\n\n## Phase 1: Setup\n- [x] T001 Init\n- [X] T002 Build\n"
	tasksFresh   = "# Tasks\n\n## Phase 1: Setup\n- [ ] T001 Init\n"
)

// scanFiles writes files into a fresh repository and scans it.
func scanFiles(t *testing.T, files map[string]string) ([]workflow.Candidate, []workflow.Finding, string) {
	t.Helper()
	root := t.TempDir()
	sourcetest.Write(t, root, files)
	r, _ := source.NewRepo(root, config.Default())
	cs, fs := SpecKitSource.Scan(r)
	return cs, fs, root
}

func byID(cs []workflow.Candidate, id string) *workflow.Candidate {
	for i := range cs {
		if cs[i].ID == id {
			return &cs[i]
		}
	}
	return nil
}

// TestCurrentFeature checks the current feature by each layout's rule, and
// the answers it cannot give: V0 on main, 0.10 without feature.json, a
// stale feature.json (missing folder; a finished feature).
func TestCurrentFeature(t *testing.T) {
	three := map[string]string{
		"specs/001-login/tasks.md":      tasksDone,
		"specs/001-login/plan.md":       "# Plan\n",
		"specs/002-export-csv/tasks.md": tasksPartial,
		"specs/002-export-csv/plan.md":  "# Plan\n",
		"specs/003-search/tasks.md":     tasksPartial,
		"specs/004-draft/spec.md":       "# Spec\n",
	}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range three {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	v0 := map[string]string{"memory/constitution.md": "x", "templates/spec-template.md": "x"}
	tests := []struct {
		name      string
		files     map[string]string
		framework string
		current   string // "" = no answer
		code      string // the global finding
		noteHas   string
	}{
		{"v0 feature branch", with(merge(v0, map[string]string{".git/HEAD": "ref: refs/heads/003-search\n"})), "speckit-v0", "003-search", "speckit-current-feature", "by branch 003-search"},
		{"v0 on main", with(merge(v0, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})), "speckit-v0", "", "speckit-no-current-feature", "no current feature: branch main names no feature folder"},
		{"v0 no git", with(v0), "speckit-v0", "", "speckit-no-current-feature", "no git branch"},
		{"v1 branch by prefix", with(map[string]string{".specify/memory/constitution.md": "x", ".git/HEAD": "ref: refs/heads/002-csv-export-fix\n"}), "speckit-v1", "002-export-csv", "speckit-current-feature", "by branch 002-csv-export-fix"},
		{"v1 no git: highest", with(map[string]string{".specify/memory/constitution.md": "x"}), "speckit-v1", "004-draft", "speckit-current-feature", "not the current feature"},
		{"v1 detached", with(map[string]string{".specify/memory/constitution.md": "x", ".git/HEAD": "0123456789abcdef0123456789abcdef01234567\n"}), "speckit-v1", "", "speckit-no-current-feature", "HEAD is on no branch"},
		{"v1 linked worktree", with(map[string]string{".specify/memory/constitution.md": "x", ".git": "gitdir: wt/.git/worktrees/a\n", "wt/.git/worktrees/a/HEAD": "ref: refs/heads/003-search\n"}), "speckit-v1", "003-search", "speckit-current-feature", ""},
		{"v2 feature.json with BOM and spacing", with(map[string]string{".specify/feature.json": "\xef\xbb\xbf{ \"feature_directory\" :   \"specs/002-export-csv\" }\n", ".git/HEAD": "ref: refs/heads/003-search\n"}), "speckit-v2", "002-export-csv", "speckit-current-feature", "by .specify/feature.json"},
		{"v2 feature.json missing folder falls back to branch", with(map[string]string{".specify/feature.json": `{"feature_directory":"specs/009-gone"}`, ".git/HEAD": "ref: refs/heads/003-search\n"}), "speckit-v2", "003-search", "speckit-feature-json-stale", ""},
		{"v2 feature.json names a finished feature", with(map[string]string{".specify/feature.json": `{"feature_directory":"specs/001-login"}`}), "speckit-v2", "", "speckit-feature-json-stale", "is finished"},
		{"0.10 no feature.json", with(map[string]string{".specify/init-options.json": `{"speckit_version":"0.10.2"}`, ".git/HEAD": "ref: refs/heads/003-search\n"}), "speckit-v2", "", "speckit-no-current-feature", "reads only .specify/feature.json"},
		{"0.8 no feature.json: branch", with(map[string]string{".specify/init-options.json": `{"speckit_version":"0.8.1"}`, ".git/HEAD": "ref: refs/heads/003-search\n"}), "speckit-v2", "003-search", "speckit-current-feature", ""},
		{"feature.json outside the repository", with(map[string]string{".specify/feature.json": `{"feature_directory":"../../etc"}`}), "speckit-v2", "004-draft", "speckit-feature-json-stale", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, fs, _ := scanFiles(t, tt.files)
			if len(cs) != 4 {
				t.Fatalf("%d candidates, want 4", len(cs))
			}
			if tt.code == "speckit-current-feature" {
				if len(fs) != 0 {
					t.Errorf("findings %v, want none", fs)
				}
			} else if !hasCode(fs, tt.code) {
				t.Errorf("findings %v, want %s", fs, tt.code)
			}
			cur := ""
			for _, c := range cs {
				if c.Framework != tt.framework {
					t.Errorf("%s framework %s, want %s", c.ID, c.Framework, tt.framework)
				}
				if c.Source.Priority == workflow.PriorityInProgress {
					cur = c.Key
				}
			}
			if cur != tt.current {
				t.Errorf("current = %q, want %q", cur, tt.current)
			}
			c := byID(cs, "feature:002-export-csv")
			if tt.noteHas != "" && !strings.Contains(c.Resume.Note+"|"+byID(cs, "feature:003-search").Resume.Note, tt.noteHas) {
				t.Errorf("notes %q / %q lack %q", c.Resume.Note, byID(cs, "feature:003-search").Resume.Note, tt.noteHas)
			}
		})
	}
}

func merge(a, b map[string]string) map[string]string {
	m := map[string]string{}
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}

func hasCode(fs []workflow.Finding, code string) bool {
	for _, f := range fs {
		if f.Code == code {
			return true
		}
	}
	return false
}

// TestFeatureStatus checks the derived statuses and which features are
// resumable: partial ones always, the current one when it is Ready.
func TestFeatureStatus(t *testing.T) {
	cs, _, _ := scanFiles(t, map[string]string{
		".specify/feature.json":          `{"feature_directory":"specs/003-fresh"}`,
		"specs/001-done/tasks.md":        tasksDone,
		"specs/002-partial/tasks.md":     tasksPartial,
		"specs/003-fresh/tasks.md":       tasksFresh,
		"specs/004-fresh-other/tasks.md": tasksFresh,
		"specs/005-draft/spec.md":        "# Spec\n",
		"specs/notafeature/tasks.md":     tasksPartial,
		"specs/006-empty/tasks.md":       "# Tasks\n",
	})
	want := map[string]struct {
		status    workflow.Status
		resumable bool
	}{
		"feature:001-done":        {workflow.StatusDone, false},
		"feature:002-partial":     {workflow.StatusInProgress, true},
		"feature:003-fresh":       {workflow.StatusReady, true},
		"feature:004-fresh-other": {workflow.StatusReady, false},
		"feature:005-draft":       {workflow.StatusDraft, false},
		"feature:006-empty":       {workflow.StatusReady, false},
	}
	if len(cs) != len(want) {
		t.Fatalf("%d candidates, want %d", len(cs), len(want))
	}
	for id, w := range want {
		c := byID(cs, id)
		if c == nil {
			t.Fatalf("no %s", id)
		}
		if c.Status != string(w.status) || c.Resumable != w.resumable || c.Type != workflow.TypeFeature || c.Source.Kind != workflow.KindSpecKit {
			t.Errorf("%s: %s resumable=%v, want %s %v", id, c.Status, c.Resumable, w.status, w.resumable)
		}
	}
}

// TestResumePoint checks the resume point, position, phases, files and
// the checklist note of a partial feature.
func TestResumePoint(t *testing.T) {
	cs, _, _ := scanFiles(t, map[string]string{
		".specify/memory/constitution.md":        "x",
		"specs/002-export-csv/tasks.md":          string(readTestdata(t, "tasks_new.md")),
		"specs/002-export-csv/plan.md":           "# Plan\n",
		"specs/002-export-csv/spec.md":           "# Spec\n",
		"specs/002-export-csv/contracts/api.yml": "openapi: 3.0.0\n",
		"specs/002-export-csv/checklists/ux.md":  "# UX\n- [x] CHK001 ok\n- [ ] CHK002 Are empty states specified?\n",
		"src/export/csv_writer.py":               "x",
		"tests/integration/test_export.py":       "x",
	})
	c := byID(cs, "feature:002-export-csv")
	rp := c.Resume
	if rp.Item != "T006" || rp.Done != 6 || rp.Total != 10 || rp.FrameworkCommand != "/speckit.implement" {
		t.Fatalf("resume = %+v", rp)
	}
	if c.Position != (workflow.Position{Kind: workflow.PosStep, Index: 6, Done: 6, Total: 10, At: rp.Item, Name: rp.Section}) || c.Position.String() != "6/10 done, at T006" {
		t.Errorf("position = %+v", c.Position)
	}
	if !strings.Contains(rp.Note, "1 open checklist item(s) in ux.md: /speckit.implement asks before it starts") {
		t.Errorf("note = %q", rp.Note)
	}
	if got := sourcetest.PhasesWith(*c, workflow.PhaseCurrent); len(got) != 1 || got[0] != "phase-3" {
		t.Errorf("current phase %v", got)
	}
	if got := sourcetest.PhasesWith(*c, workflow.PhaseCompleted); len(got) != 2 {
		t.Errorf("completed phases %v", got)
	}
	var paths []string
	for _, f := range c.Files {
		paths = append(paths, f.Path)
	}
	wantPaths := "specs/002-export-csv/checklists/ux.md specs/002-export-csv/contracts/api.yml specs/002-export-csv/plan.md specs/002-export-csv/spec.md specs/002-export-csv/tasks.md src/export/csv_writer.py tests/integration/test_export.py"
	if strings.Join(paths, " ") != wantPaths {
		t.Errorf("files = %v", paths)
	}
	if f, _ := sourcetest.File(*c, "src/export/csv_writer.py"); !f.Produced {
		t.Errorf("a closed task's path is produced: %+v", f)
	}
	if f, _ := sourcetest.File(*c, "specs/002-export-csv/tasks.md"); !f.Critical {
		t.Errorf("tasks.md is critical: %+v", f)
	}
	if !hasCode(c.Findings, "dropped-tasks") || !hasCode(c.Findings, "open-tasks-among-done") {
		t.Errorf("findings %v", c.Findings)
	}
	if c.Source.Path != "specs/002-export-csv/tasks.md" || c.UpdatedFrom != "mtime" {
		t.Errorf("source %+v from %s", c.Source, c.UpdatedFrom)
	}
}

// TestHostileInput checks that bad files give findings, not panics: an
// unreadable tasks.md, binary bytes, a huge .git file.
func TestHostileInput(t *testing.T) {
	cs, _, root := scanFiles(t, map[string]string{
		".specify/feature.json":    "{not json",
		"specs/001-bin/tasks.md":   "\x00\x01\x02",
		"specs/002-ok/tasks.md":    tasksPartial,
		"specs/003-dupes/tasks.md": "- [ ] T001 a\n- [x] T001 b\n",
	})
	if err := os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: /dev/zero"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := byID(cs, "feature:001-bin"); c == nil || !hasCode(c.Findings, "binary") {
		t.Errorf("binary tasks.md: %+v", c)
	}
	if c := byID(cs, "feature:003-dupes"); c == nil || !hasCode(c.Findings, "duplicate-task-id") {
		t.Errorf("duplicates: %+v", c)
	}
	r, _ := source.NewRepo(root, config.Default())
	if b, has := ReadBranch(r); b != "" || !has {
		t.Errorf("branch %q %v", b, has)
	}
}

// TestFrameworkNext pins what spec-kit's own tools say, on a repository
// shaped like a real one: check-prerequisites.sh resolves the feature by
// the layout's rule (here .specify/feature.json, V2), and
// /speckit.implement starts at that feature's first unchecked task; a
// partly done feature the framework does not resolve differs.
func TestFrameworkNext(t *testing.T) {
	files := map[string]string{
		".specify/feature.json":                    `{"feature_directory": "specs/017-contacts-sync"}`,
		".specify/init-options.json":               `{"ai": "claude", "script": "sh", "speckit_version": "0.8.2"}`,
		".specify/memory/constitution.md":          "# Constitution\n",
		"specs/016-auth/tasks.md":                  tasksPartial,
		"specs/016-auth/plan.md":                   "# Plan\n",
		"specs/017-contacts-sync/plan.md":          "# Plan\n",
		"specs/017-contacts-sync/tasks.md":         "# Tasks\n\n## Phase 6: Hardening\n\n- [x] T021-A [P] Rate limit list\n- [x] T021-B [P] Rate limit sync\n\n## Phase 7: Polish & Cross-Cutting Concerns\n\n- [ ] T025 [P] Document `/api/v2/integrations/contacts` in docs/api.md\n",
		"specs/017-contacts-sync/checklists/ux.md": "- [x] CHK001 ok\n",
	}
	cs, _, _ := scanFiles(t, files)
	tests := []struct {
		id, item, next, cmd string
		differs             bool
	}{
		{"feature:017-contacts-sync", "T025", "T025 of 017-contacts-sync (.specify/feature.json)", "/speckit.implement", false},
		{"feature:016-auth", "T002", "feature 017-contacts-sync (.specify/feature.json), not this one", "/speckit.implement", true},
	}
	for _, tt := range tests {
		c := byID(cs, tt.id)
		if c == nil || c.Resume == nil {
			t.Fatalf("no %s", tt.id)
		}
		rp := c.Resume
		if rp.Item != tt.item || rp.FrameworkNext != tt.next || rp.FrameworkCommand != tt.cmd || rp.Differs != tt.differs {
			t.Errorf("%s: item %q next %q cmd %q differs %v; want %q %q %q %v", tt.id, rp.Item, rp.FrameworkNext, rp.FrameworkCommand, rp.Differs, tt.item, tt.next, tt.cmd, tt.differs)
		}
	}
}
