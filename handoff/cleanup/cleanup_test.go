package cleanup

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

var t0 = time.Date(2025, 6, 3, 8, 15, 30, 0, time.UTC)

// me is this host's lock owner with process id pid.
func me(pid int) handoff.LockInfo {
	return handoff.LockInfo{PID: pid, Host: "host-a", User: "ana", StartedAt: t0, Command: "orchestrate resume sdc:4.2"}
}

// writeLock writes the lock of workflow id as owner info holds it, with
// permissions perm, and returns its path.
func writeLock(t *testing.T, root, id string, info handoff.LockInfo, perm os.FileMode) string {
	t.Helper()
	p := handoff.LockPath(root, id)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeTree writes files (slash path → content) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		if err := gitfixture.WriteFile(root, p, body); err != nil {
			t.Fatal(err)
		}
	}
}

// cleanupRepo writes an epic state, its .bak twin and two stories (one in
// progress) under a fresh root, and returns the root, the plan and the
// files' original contents.
func cleanupRepo(t *testing.T) (string, CleanupPlan, map[string]string) {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		".aiox/epic-3-state.yaml":     "epic_state:\n  epic_id: \"3\"\n  status: active\n",
		".aiox/epic-3-state.yaml.bak": "epic_state:\n  epic_id: \"3\"\n",
		"docs/stories/3.1.a.md":       "# Story 3.1: A\n\n## Status\nIn Progress - half way\n",
		"docs/stories/3.2.b.md":       "# Story 3.2: B\n**Status:** InReview\n",
	}
	writeTree(t, root, files)
	c := workflow.Candidate{
		ID: "epic:3", Type: workflow.TypeEpic, Key: "3", Stories: []string{"3.1", "3.2"},
		Source:     workflow.SourceRef{Kind: workflow.KindEpicState, Path: ".aiox/epic-3-state.yaml"},
		BackupPath: ".aiox/epic-3-state.yaml.bak",
	}
	stories := map[string]*workflow.Story{
		"3.1": {ID: "3.1", Path: "docs/stories/3.1.a.md", Status: workflow.StatusInProgress, StatusRaw: "In Progress", StatusLine: 4},
		"3.2": {ID: "3.2", Path: "docs/stories/3.2.b.md", Status: workflow.StatusInReview, StatusRaw: "InReview", StatusLine: 2},
	}
	return root, PlanCleanup(c, stories, t0), files
}

// assertUntouched checks every file has its original bytes, nothing was
// archived and no lock is left.
func assertUntouched(t *testing.T, root string, p CleanupPlan, files map[string]string) {
	t.Helper()
	for rel, want := range files {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want it untouched: %q", rel, got, err, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, ".orchestrate", "archive", filepath.Base(p.ArchiveDir))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("archive folder %s left behind (%v)", p.ArchiveDir, err)
	}
}

func TestPlanCleanup(t *testing.T) {
	_, p, _ := cleanupRepo(t)
	if want := ".orchestrate/archive/20250603T081530Z-epic_3"; p.ArchiveDir != want {
		t.Errorf("ArchiveDir = %q, want %q", p.ArchiveDir, want)
	}
	if len(p.Archive) != 2 || len(p.Resets) != 2 || p.Empty() {
		t.Fatalf("plan = %+v, want 2 files to archive and 2 stories to reset", p)
	}
	story := PlanCleanup(workflow.Candidate{ID: "story:1.1", Source: workflow.SourceRef{Kind: workflow.KindStory, Path: "s.md"}}, nil, t0)
	if !story.Empty() {
		t.Errorf("a story-implied workflow with no transitional story: plan %+v, want empty", story)
	}
}

func TestCleanup(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(t *testing.T, root string, p CleanupPlan)
		failpoint func(step string) error
		wantErr   func(error) bool
	}{
		{name: "ok"},
		{
			name: "a live lock is held: refused, nothing moved",
			setup: func(t *testing.T, root string, p CleanupPlan) {
				// this test's own process: a live owner on this host
				writeLock(t, root, "epic:3", me(os.Getpid()), 0o600)
			},
			wantErr: func(err error) bool {
				var le *handoff.LockedError
				return errors.As(err, &le) && le.Reason == ""
			},
		},
		{
			name:  "an untrusted lock: refused, nothing moved",
			setup: func(t *testing.T, root string, p CleanupPlan) { writeLock(t, root, "epic:3", me(4242), 0o644) },
			wantErr: func(err error) bool {
				var le *handoff.LockedError
				return errors.As(err, &le) && le.Reason != ""
			},
		},
		{
			name:      "failure after the first story: restored",
			failpoint: failAt("cleanup-reset", 1),
			wantErr:   func(err error) bool { return err != nil },
		},
		{
			name:      "failure after the first file archived: everything restored",
			failpoint: failAt("cleanup-archive", 1),
			wantErr:   func(err error) bool { return err != nil },
		},
		{
			name:      "failure after the last file archived: everything restored",
			failpoint: failAt("cleanup-archive", 2),
			wantErr:   func(err error) bool { return err != nil },
		},
		{
			name: "a real failure midway (a file where the archive folder goes): everything restored",
			setup: func(t *testing.T, root string, p CleanupPlan) {
				dir := filepath.Join(root, filepath.FromSlash(p.ArchiveDir))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, ".aiox"), []byte("in the way"), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					if _, err := os.Stat(filepath.Join(dir, ".aiox")); err != nil {
						t.Errorf("the file in the way was touched: %v", err)
					}
				})
			},
			wantErr: func(err error) bool { return err != nil },
		},
		{
			name: "a story whose status moved: refused before any change",
			setup: func(t *testing.T, root string, p CleanupPlan) {
				if err := os.WriteFile(filepath.Join(root, "docs/stories/3.2.b.md"), []byte("# Story 3.2: B\n**Status:** Done\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: func(err error) bool {
				var re *CleanupRefusedError
				return errors.As(err, &re)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, p, files := cleanupRepo(t)
			if tc.setup != nil {
				tc.setup(t, root, p)
			}
			if tc.name == "a story whose status moved: refused before any change" {
				files["docs/stories/3.2.b.md"] = "# Story 3.2: B\n**Status:** Done\n"
			}
			lockBefore, _ := os.ReadFile(handoff.LockPath(root, "epic:3"))
			err := Cleanup(CleanupRequest{Root: root, Plan: p, Lock: me(os.Getpid()), Failpoint: tc.failpoint})
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("Cleanup: %v", err)
				}
				for _, rel := range p.Archive {
					if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p.ArchiveDir+"/"+rel))); err != nil {
						t.Errorf("%s not archived: %v", rel, err)
					}
					if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("%s still in place", rel)
					}
				}
				for rel, want := range map[string]string{
					"docs/stories/3.1.a.md": "# Story 3.1: A\n\n## Status\nReady - half way\n",
					"docs/stories/3.2.b.md": "# Story 3.2: B\n**Status:** Ready\n",
				} {
					if got, _ := os.ReadFile(filepath.Join(root, rel)); string(got) != want {
						t.Errorf("%s = %q, want %q", rel, got, want)
					}
				}
				if _, err := os.Stat(handoff.LockPath(root, "epic:3")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("lock left behind: %v", err)
				}
				return
			}
			if !tc.wantErr(err) {
				t.Fatalf("Cleanup error = %v (%T)", err, err)
			}
			if tc.setup == nil || tc.failpoint != nil {
				assertUntouched(t, root, p, files)
			} else {
				for rel, want := range files {
					if got, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel))); string(got) != want {
						t.Errorf("%s = %q, want it untouched", rel, got)
					}
				}
			}
			// the lock is as it was: someone else's is kept, ours released
			lockAfter, _ := os.ReadFile(handoff.LockPath(root, "epic:3"))
			if string(lockAfter) != string(lockBefore) {
				t.Errorf("lock after = %q, want %q", lockAfter, lockBefore)
			}
		})
	}
}

// failAt fails step at its n-th occurrence.
func failAt(step string, n int) func(string) error {
	seen := 0
	return func(s string) error {
		if s != step {
			return nil
		}
		seen++
		if seen == n {
			return errors.New("injected failure at " + step)
		}
		return nil
	}
}

// sharedFiles writes a file for each framework's shared source under a
// fresh root and returns the root and the files' contents.
func sharedFiles(t *testing.T) (string, map[string]string) {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		".taskmaster/tasks/tasks.json":                             `{"master":{"tasks":[{"id":2,"status":"in-progress"}]}}` + "\n",
		"_bmad-output/implementation-artifacts/sprint-status.yaml": "development_status:\n  1-2-login: in-progress\n",
		"_bmad-output/implementation-artifacts/1-2-login.md":       "# Story 1.2: Login\n\nStatus: in-progress\n",
		"specs/003-search/tasks.md":                                "- [x] T001 done\n- [ ] T002 open\n",
		".planning/phases/02-x/02-01-SUMMARY.md":                   "# Phase 02 Plan 01\n",
		"qa/index.json":                                            "{}\n",
		"weird/state.bin":                                          "state\n",
	}
	writeTree(t, root, files)
	return root, files
}

// A cleanup of a workflow whose source is a framework's shared file (or a
// kind not known to own its file) is refused as a whole: nothing to archive
// or reset, the refusal names the file and says what to do instead in the
// framework's terms; Cleanup refuses it before taking the lock, and every
// file stays byte-identical.
func TestCleanupRefusesSharedFiles(t *testing.T) {
	ledger := "_bmad-output/implementation-artifacts/sprint-status.yaml"
	story := "_bmad-output/implementation-artifacts/1-2-login.md"
	tests := []struct {
		name    string
		c       workflow.Candidate
		want    []string // in the refusal (reason; instead)
		notWant []string
	}{
		{"taskmaster", workflow.Candidate{ID: "task:master/2", Key: "master/2", Type: workflow.TypeTask, Framework: "taskmaster-0.17+",
			Source:  workflow.SourceRef{Kind: workflow.KindTaskmaster, Path: ".taskmaster/tasks/tasks.json"},
			Context: map[string]any{"taskmaster_tag": "master", "taskmaster_task": "2"}},
			[]string{"does not archive .taskmaster/tasks/tasks.json", "every task of every tag", "task-master set-status --id=2 --status=cancelled --tag=master"}, nil},
		{"taskmaster 0.16 (no tags)", workflow.Candidate{ID: "task:master/2", Key: "master/2", Type: workflow.TypeTask, Framework: "taskmaster-0.16",
			Source: workflow.SourceRef{Kind: workflow.KindTaskmaster, Path: ".taskmaster/tasks/tasks.json"}},
			[]string{"task-master set-status --id=2 --status=cancelled`"}, []string{"--tag"}},
		{"bmad v6 story", workflow.Candidate{ID: "sdc:1.2", Key: "1.2", Type: workflow.TypeSDC, Framework: "bmad-v6", StatusRaw: "in-progress", Stories: []string{"1.2"},
			Source:  workflow.SourceRef{Kind: workflow.KindBMADLedger, Path: ledger},
			Context: map[string]any{"bmad_story_key": "1-2-login", "story_file": story}},
			[]string{"does not archive " + ledger + " or reset the story", "backlog, ready-for-dev, in-progress, review, done", "`1-2-login: in-progress`", story}, []string{"Ready"}},
		{"bmad v6 quick spec", workflow.Candidate{ID: "quick-spec:x", Framework: "bmad-v6",
			Source: workflow.SourceRef{Kind: workflow.KindBMADLedger, Path: ledger}},
			[]string{"BMAD's own work in progress"}, nil},
		{"spec-kit", workflow.Candidate{ID: "feature:003-search", Type: workflow.TypeFeature, Resumable: true,
			Source: workflow.SourceRef{Kind: workflow.KindSpecKit, Path: "specs/003-search/tasks.md"},
			Resume: &workflow.ResumePoint{FrameworkCommand: "/speckit.implement"}},
			[]string{"does not move specs/003-search/tasks.md", "ticked tasks are finished work", "/speckit.implement"}, nil},
		{"spec-kit, finished: no command to continue", workflow.Candidate{ID: "feature:003-search", Type: workflow.TypeFeature,
			Source: workflow.SourceRef{Kind: workflow.KindSpecKit, Path: "specs/003-search/tasks.md"},
			Resume: &workflow.ResumePoint{FrameworkCommand: "/speckit.implement"}},
			[]string{"orchestrate never changes spec-kit's files"}, []string{"/speckit.implement"}},
		{"gsd", workflow.Candidate{ID: "phase:02", Type: workflow.TypePhase, Resumable: true,
			Source: workflow.SourceRef{Kind: workflow.KindGSD, Path: ".planning/phases/02-x/02-01-SUMMARY.md"},
			Resume: &workflow.ResumePoint{FrameworkCommand: "/gsd:execute-phase 2"}},
			[]string{"a SUMMARY records finished work", "/gsd:execute-phase 2", "/gsd:progress"}, nil},
		{"qa loops index", workflow.Candidate{ID: "qa-loop:5.1",
			Source: workflow.SourceRef{Kind: workflow.KindQALoopIndex, Path: "qa/index.json"}},
			[]string{"lists every loop"}, nil},
		{"a kind not known to own its file", workflow.Candidate{ID: "x:1",
			Source: workflow.SourceRef{Kind: "future-framework", Path: "weird/state.bin"}},
			[]string{`kind "future-framework" are not known to belong to one workflow alone`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, files := sharedFiles(t)
			stories := map[string]*workflow.Story{
				"1.2": {ID: "1.2", Path: story, Status: workflow.StatusInProgress, StatusRaw: "in-progress", StatusLine: 3},
			}
			tt.c.BackupPath = ""
			p := PlanCleanupAmong(tt.c, nil, stories, t0)
			if p.Refusal == nil {
				t.Fatalf("plan %+v: want a refusal", p)
			}
			if !p.Empty() || len(p.Skipped) > 0 {
				t.Errorf("a refused plan plans changes: %+v", p)
			}
			msg := p.Refusal.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("refusal %q lacks %q", msg, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(msg, w) {
					t.Errorf("refusal %q has %q", msg, w)
				}
			}
			if len(p.Refusal.Files) == 0 || p.Refusal.Files[0] != tt.c.Source.Path {
				t.Errorf("refusal files = %v, want %s first", p.Refusal.Files, tt.c.Source.Path)
			}
			if CleanupOffered(tt.c) {
				t.Error("CleanupOffered = true for a refused kind")
			}
			err := Cleanup(CleanupRequest{Root: root, Plan: p, Lock: me(os.Getpid())})
			var re *CleanupRefusedError
			if !errors.As(err, &re) {
				t.Fatalf("Cleanup = %v, want *CleanupRefusedError", err)
			}
			// a plan forged without its refusal is refused all the same
			forged := p
			forged.Refusal, forged.Archive = nil, []string{tt.c.Source.Path}
			if err := Cleanup(CleanupRequest{Root: root, Plan: forged, Lock: me(os.Getpid())}); !errors.As(err, &re) {
				t.Fatalf("forged plan: Cleanup = %v, want *CleanupRefusedError", err)
			}
			for rel, want := range files {
				if got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel))); err != nil || string(got) != want {
					t.Errorf("%s = %q, %v; want it byte-identical", rel, got, err)
				}
			}
			if _, err := os.Lstat(filepath.Join(root, ".orchestrate")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused cleanup wrote .orchestrate (lock or archive): %v", err)
			}
		})
	}
}

// A state file of a kind that owns its file, but that another workflow
// reads too (its source, .bak, evidence or a referenced file), is refused;
// one read by no other workflow is archived.
func TestPlanCleanupSharedStateFile(t *testing.T) {
	c := workflow.Candidate{ID: "workflow:sdc-1", Source: workflow.SourceRef{Kind: workflow.KindWorkflowState, Path: ".orchestrate/workflows/sdc-1.yaml"},
		BackupPath: ".orchestrate/workflows/sdc-1.yaml.bak"}
	for _, tt := range []struct {
		name    string
		other   workflow.Candidate
		refused bool
	}{
		{"evidence", workflow.Candidate{ID: "epic:3", Evidence: []workflow.SourceRef{{Path: c.Source.Path}}}, true},
		{"a referenced file", workflow.Candidate{ID: "epic:3", Files: []workflow.RefFile{{Path: c.BackupPath}}}, true},
		{"the same source", workflow.Candidate{ID: "workflow:sdc-1b", Source: c.Source}, true},
		{"itself", c, false},
		{"another file", workflow.Candidate{ID: "epic:3", Source: workflow.SourceRef{Kind: workflow.KindEpicState, Path: ".aiox/epic-3-state.yaml"}}, false},
	} {
		p := PlanCleanupAmong(c, []workflow.Candidate{tt.other}, nil, t0)
		if got := p.Refusal != nil; got != tt.refused {
			t.Errorf("%s: refused = %v (%v), want %v", tt.name, got, p.Refusal, tt.refused)
		}
		if tt.refused && (len(p.Archive) > 0 || !strings.Contains(p.Refusal.Reason, "holds more than one workflow ("+tt.other.ID)) {
			t.Errorf("%s: plan %+v", tt.name, p)
		}
		if !tt.refused && len(p.Archive) != 2 {
			t.Errorf("%s: archive = %v, want the state and its .bak", tt.name, p.Archive)
		}
	}
}

// A story in a transitional status is reset only when no other workflow
// reads it; one another workflow lists or reads, or one a BMAD v6 workflow
// tracks, is left as it is (never given orchestrate's Ready). A candidate
// implied by the story file alone is the story itself, not another reader.
func TestPlanCleanupSkipsSharedStories(t *testing.T) {
	c := workflow.Candidate{ID: "epic:3", Stories: []string{"3.1", "3.2"},
		Source: workflow.SourceRef{Kind: workflow.KindEpicState, Path: ".aiox/epic-3-state.yaml"}}
	stories := map[string]*workflow.Story{
		"3.1": {ID: "3.1", Path: "docs/stories/3.1.md", Status: workflow.StatusInProgress, StatusRaw: "InProgress", StatusLine: 2},
		"3.2": {ID: "3.2", Path: "docs/stories/3.2.md", Status: workflow.StatusInReview, StatusRaw: "InReview", StatusLine: 2},
	}
	for _, tt := range []struct {
		name    string
		other   workflow.Candidate
		skipped string // the story left alone ("" none)
		why     string
	}{
		{"none", workflow.Candidate{ID: "epic:4", Stories: []string{"4.1"}}, "", ""},
		{"listed by another workflow", workflow.Candidate{ID: "workflow:sdc-9", Stories: []string{"3.2"},
			Source: workflow.SourceRef{Kind: workflow.KindWorkflowState, Path: "w.yaml"}}, "3.2", "workflow:sdc-9 reads it too"},
		{"read by another workflow", workflow.Candidate{ID: "qa-loop:3.1", Files: []workflow.RefFile{{Path: "docs/stories/3.1.md"}}}, "3.1", "qa-loop:3.1 reads it too"},
		{"tracked by BMAD v6", workflow.Candidate{ID: "sdc:3.2", Framework: "bmad-v6", Stories: []string{"3.2"},
			Source: workflow.SourceRef{Kind: workflow.KindBMADLedger, Path: "sprint-status.yaml"}}, "3.2", "BMAD v6"},
		{"the story's own candidate", workflow.Candidate{ID: "sdc:3.2", Stories: []string{"3.2"},
			Source: workflow.SourceRef{Kind: workflow.KindStory, Path: "docs/stories/3.2.md"}}, "", ""},
	} {
		p := PlanCleanupAmong(c, []workflow.Candidate{c, tt.other}, stories, t0)
		if p.Refusal != nil {
			t.Fatalf("%s: refused: %v", tt.name, p.Refusal)
		}
		var reset []string
		for _, r := range p.Resets {
			reset = append(reset, r.ID)
			if r.ID == tt.skipped {
				t.Errorf("%s: story %s reset", tt.name, r.ID)
			}
		}
		switch {
		case tt.skipped == "" && (len(p.Skipped) > 0 || len(reset) != 2):
			t.Errorf("%s: resets %v, skipped %+v; want both reset", tt.name, reset, p.Skipped)
		case tt.skipped != "" && (len(p.Skipped) != 1 || p.Skipped[0].ID != tt.skipped || !strings.Contains(p.Skipped[0].Why, tt.why) || len(reset) != 1):
			t.Errorf("%s: resets %v, skipped %+v; want %s left alone (%s)", tt.name, reset, p.Skipped, tt.skipped, tt.why)
		}
	}
}

// The kinds that own their state file are offered cleanup by the hints;
// the frameworks' shared files never are.
func TestCleanupOffered(t *testing.T) {
	for kind, want := range map[string]bool{
		workflow.KindEpicState: true, workflow.KindQALoop: true, workflow.KindWorkflowState: true, workflow.KindProgress: true,
		workflow.KindWorkSession: true, workflow.KindStory: true, workflow.KindSpec: true,
		workflow.KindQALoopIndex: false, workflow.KindBMADLedger: false, workflow.KindSpecKit: false, workflow.KindTaskmaster: false,
		workflow.KindGSD: false, workflow.KindKiro: false, "": false, "openspec": false,
	} {
		if got := CleanupOffered(workflow.Candidate{Source: workflow.SourceRef{Kind: kind}}); got != want {
			t.Errorf("CleanupOffered(%q) = %v, want %v", kind, got, want)
		}
	}
}
