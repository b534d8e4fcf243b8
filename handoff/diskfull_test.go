package handoff

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/atomicfile"
)

// diskFull makes the disk "fill up" at the nth occurrence of step (a
// handoff failpoint step or an atomic-write/link step) and stay full: from
// then on every write — every log append, atomic write step and hard link —
// fails with ENOSPC. It installs atomicfile.Failpoint (restored at cleanup)
// and returns the handoff failpoint and whether the disk filled up.
func diskFull(t *testing.T, step string, nth int) (func(string) error, *bool) {
	t.Helper()
	full := new(bool)
	seen := map[string]int{}
	hook := func(s string) error {
		seen[s]++
		if *full {
			switch s {
			case "logwrite", "write", "sync", "rename", "link":
				return syscall.ENOSPC
			}
			return nil
		}
		if s == step && seen[s] == nth {
			*full = true
			return syscall.ENOSPC
		}
		return nil
	}
	atomicfile.Failpoint = hook
	t.Cleanup(func() { atomicfile.Failpoint = nil })
	return hook, full
}

// The attack: the disk fills up while a resume is handed off (the dispatch
// record, the envelope or the state file cannot be written) and stays full.
// The rollback needs no space (renames of the hard-linked originals), so
// the state file and its .bak are byte-identical to before, no agent ran,
// and nothing is left behind (no envelope, no lock, no rollback handle);
// once space is back the resume hands off once.
func TestDiskFullNeverLeavesAResumedMark(t *testing.T) {
	for _, tt := range []struct {
		name   string
		step   string
		nth    int
		hasBak bool
	}{
		{"dispatch record", "logwrite", 1, true},
		{"dispatch record, no .bak before", "logwrite", 1, false},
		{"envelope write", "write", 3, true},
		{"envelope rename", "rename", 3, false},
		{"state write", "write", 2, true},
		{"state sync", "sync", 2, false},
		{"the .bak copy", "write", 1, true},
		{"the handle to the previous .bak", "link", 2, true},
		{"the first handle", "link", 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, req := fixture(t)
			state := filepath.Join(root, filepath.FromSlash(statePath))
			if !tt.hasBak {
				os.Remove(state + ".bak")
			}
			os.MkdirAll(filepath.Dir(req.LogPath), 0o755)
			os.WriteFile(req.LogPath, []byte("{\"event\":\"old\"}\n"), 0o600)
			before := snapshot(t, root)
			logBefore, _ := os.ReadFile(req.LogPath)
			req.Command = "touch ran"
			var full *bool
			req.Failpoint, full = diskFull(t, tt.step, tt.nth)

			_, err := Execute(req)
			if !*full {
				t.Fatalf("the disk never filled up at %s#%d (err %v)", tt.step, tt.nth, err)
			}
			if err == nil || !strings.Contains(err.Error(), "no space left on device") {
				t.Fatalf("err = %v, want the full disk", err)
			}
			if strings.Contains(err.Error(), "rolling the state back") {
				t.Errorf("the rollback failed: %v", err)
			}
			if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
				t.Fatal("the agent ran")
			}
			// byte-identical: the state, its .bak (or none), every other
			// file; nothing new (envelope, lock, handle, temporary file)
			sameSnapshot(t, before, snapshot(t, root))
			if log, _ := os.ReadFile(req.LogPath); !bytes.Equal(log, logBefore) {
				t.Errorf("the log changed:\n%s", log)
			}

			// space is back: handed off once
			atomicfile.Failpoint = nil
			req.Failpoint = nil
			if _, err := Execute(req); err != nil {
				t.Fatalf("after the disk has space again: %v", err)
			}
			if _, err := os.Stat(filepath.Join(root, "ran")); err != nil {
				t.Error("the agent did not run once space was back")
			}
			after, _ := os.ReadFile(state)
			if !strings.Contains(string(after), "resume_count: 1") {
				t.Errorf("state after the handoff:\n%s", after)
			}
			if bak, _ := os.ReadFile(state + ".bak"); string(bak) != stateYAML {
				t.Errorf(".bak = %q, want the state before the handoff", bak)
			}
			noHandles(t, filepath.Dir(state))
		})
	}
}

// noHandles fails when a rollback handle or temporary file is left in dir.
func noHandles(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("left behind in %s: %s", dir, e.Name())
		}
	}
}

// Restore after an update needs no space: with every write failing, the
// state file and its .bak (or its absence) come back byte-identical, for a
// state updated afresh, one retried from its .bak and a rebuilt one.
func TestRestoreNeedsNoSpace(t *testing.T) {
	for _, hadBak := range []bool{true, false} {
		root := t.TempDir()
		p := filepath.Join(root, "s.yaml")
		os.WriteFile(p, []byte("status: paused\nx: 1\n"), 0o640)
		if hadBak {
			os.WriteFile(p+".bak", []byte("status: older\n"), 0o644)
		}
		b, err := UpdateState(root, "s.yaml", t0)
		if err != nil {
			t.Fatal(err)
		}
		if bak, _ := os.ReadFile(p + ".bak"); string(bak) != "status: paused\nx: 1\n" {
			t.Errorf(".bak = %q", bak)
		}
		if err := restoreOnFullDisk(b); err != nil {
			t.Fatalf("hadBak %v: restore on a full disk: %v", hadBak, err)
		}
		if got, _ := os.ReadFile(p); string(got) != "status: paused\nx: 1\n" {
			t.Errorf("hadBak %v: state = %q", hadBak, got)
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
			t.Errorf("hadBak %v: perm = %v", hadBak, fi.Mode().Perm())
		}
		bak, err := os.ReadFile(p + ".bak")
		switch {
		case hadBak && string(bak) != "status: older\n":
			t.Errorf(".bak = %q, %v", bak, err)
		case !hadBak && !errors.Is(err, os.ErrNotExist):
			t.Errorf("a .bak was left: %q", bak)
		}
		noHandles(t, root)
	}

	// the retry of a killed resume (state marked, .bak unmarked): the
	// rollback puts the marked state back and leaves the .bak alone
	root, p := pausedState(t, false)
	if _, err := updateState(root, "s.yaml", t0, allWrappers, true); err != nil {
		t.Fatal(err)
	}
	marked, _ := os.ReadFile(p)
	b, err := updateState(root, "s.yaml", t0.Add(1), allWrappers, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := restoreOnFullDisk(b); err != nil {
		t.Fatalf("retry: restore on a full disk: %v", err)
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, marked) {
		t.Errorf("retry: state = %q, want %q", got, marked)
	}
	if bak, _ := os.ReadFile(p + ".bak"); string(bak) != "status: paused\n" {
		t.Errorf("retry: .bak = %q", bak)
	}
}

// pausedState writes s.yaml ("status: paused") in a fresh root, with its
// .bak a hard link to it when linked (the test is skipped where there are
// no hard links), and returns the root and the file's path.
func pausedState(t *testing.T, linked bool) (root, p string) {
	t.Helper()
	root = t.TempDir()
	p = filepath.Join(root, "s.yaml")
	if err := os.WriteFile(p, []byte("status: paused\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if linked {
		if err := os.Link(p, p+".bak"); err != nil {
			t.Skip("no hard links here:", err)
		}
	}
	return root, p
}

// restoreOnFullDisk is b.Restore with every write failing for want of
// space.
func restoreOnFullDisk(b Backup) error {
	atomicfile.Failpoint = func(string) error { return syscall.ENOSPC }
	defer func() { atomicfile.Failpoint = nil }()
	return b.Restore()
}

// A successful update keeps the original as the .bak (its own file, not
// one the state shares) and Discard removes the rollback handles.
func TestUpdateStateDiscardLeavesNoHandles(t *testing.T) {
	root, p := pausedState(t, false)
	b, err := UpdateState(root, "s.yaml", t0)
	if err != nil {
		t.Fatal(err)
	}
	if b.origHandle == "" {
		t.Fatal("no rollback handle was made")
	}
	st, _ := os.Stat(p)
	bak, _ := os.Stat(p + ".bak")
	if os.SameFile(st, bak) {
		t.Error("the .bak is the state file itself")
	}
	if got, _ := os.ReadFile(p + ".bak"); string(got) != "status: paused\n" {
		t.Errorf(".bak = %q", got)
	}
	b.Discard()
	noHandles(t, root)
	if entries, _ := os.ReadDir(root); len(entries) != 2 {
		t.Errorf("files: %v", entries)
	}
}

// On a file system without hard links the update falls back to copies,
// and Restore to rewriting the saved bytes.
func TestUpdateStateWithoutHardLinks(t *testing.T) {
	root, p := pausedState(t, false)
	os.WriteFile(p+".bak", []byte("status: older\n"), 0o644)
	atomicfile.Failpoint = func(step string) error {
		if step == "link" {
			return errNoHardLinks
		}
		return nil
	}
	defer func() { atomicfile.Failpoint = nil }()
	b, err := UpdateState(root, "s.yaml", t0)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p + ".bak"); string(got) != "status: paused\n" {
		t.Errorf(".bak = %q", got)
	}
	if err := b.Restore(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "status: paused\n" {
		t.Errorf("state = %q", got)
	}
	if got, _ := os.ReadFile(p + ".bak"); string(got) != "status: older\n" {
		t.Errorf(".bak = %q", got)
	}
	noHandles(t, root)
}

// A .bak that is the state file itself (a hard link the user made) is
// replaced, and no handle is left.
func TestUpdateStateBakAlreadyLinked(t *testing.T) {
	root, p := pausedState(t, true)
	b, err := UpdateState(root, "s.yaml", t0)
	if err != nil {
		t.Fatal(err)
	}
	b.Discard()
	noHandles(t, root)
	if got, _ := os.ReadFile(p + ".bak"); string(got) != "status: paused\n" {
		t.Errorf(".bak = %q", got)
	}
}

// The same with a .bak that existed before and is the same file as the
// state: the rollback on a full disk leaves no handle either.
func TestRestoreBakAlreadyLinked(t *testing.T) {
	root, p := pausedState(t, true)
	b, err := UpdateState(root, "s.yaml", t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := restoreOnFullDisk(b); err != nil {
		t.Fatal(err)
	}
	noHandles(t, root)
	for _, f := range []string{p, p + ".bak"} {
		if got, _ := os.ReadFile(f); string(got) != "status: paused\n" {
			t.Errorf("%s = %q", f, got)
		}
	}
}
