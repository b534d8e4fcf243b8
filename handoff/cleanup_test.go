package handoff

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

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
	for p, body := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
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
				withAlive(t, 4242)
				writeLock(t, root, "epic:3", me(4242), 0o600)
			},
			wantErr: func(err error) bool {
				var le *LockedError
				return errors.As(err, &le) && le.Reason == ""
			},
		},
		{
			name:  "an untrusted lock: refused, nothing moved",
			setup: func(t *testing.T, root string, p CleanupPlan) { writeLock(t, root, "epic:3", me(4242), 0o644) },
			wantErr: func(err error) bool {
				var le *LockedError
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
			lockBefore, _ := os.ReadFile(LockPath(root, "epic:3"))
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
				if _, err := os.Stat(LockPath(root, "epic:3")); !errors.Is(err, os.ErrNotExist) {
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
			lockAfter, _ := os.ReadFile(LockPath(root, "epic:3"))
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
