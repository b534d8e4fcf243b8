//go:build unix

package validate

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestIntegrityFIFO: a named pipe is never opened (it would block); it is
// reported unreadable instead. This also runs as root, where permission
// bits do not stop reading.
func TestIntegrityFIFO(t *testing.T) {
	r := newRepo(t)
	st := r.story("4.2", "InProgress", "AC", "notes", time.Time{})
	if err := syscall.Mkfifo(filepath.Join(r.root, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	c := sdc("4.2", workflow.RefFile{Path: "pipe", Phase: "implement", Critical: true})
	done := make(chan Report, 1)
	go func() { done <- Validate(input(r, c, st)) }()
	select {
	case rep := <-done:
		f := find(t, rep, "unreadable")
		if f.Severity != workflow.Blocking || f.Path != "pipe" {
			t.Errorf("finding = %+v", f)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Validate hung on a FIFO")
	}
}

// canOpen (and openProbe, its fallback) answer as os.Open does, with the
// same error, following a final symlink as it does; a FIFO opens at once.
func TestCanOpenMatchesOSOpen(t *testing.T) {
	checkCanOpenMatchesOSOpen(t)
}

func checkCanOpenMatchesOSOpen(t *testing.T) {
	t.Helper()
	r := newRepo(t)
	r.write("file", "x", time.Time{})
	r.write("dir/inner", "x", time.Time{})
	r.write("locked", "x", time.Time{})
	if err := os.Chmod(filepath.Join(r.root, "locked"), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(r.root, "shut"), 0o300); err != nil { // no read: opening it is refused
		t.Fatal(err)
	}
	for link, target := range map[string]string{"to-file": "file", "to-dir": "dir", "to-locked": "locked", "dangling": "nowhere", "loop": "loop"} {
		if err := os.Symlink(target, filepath.Join(r.root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(r.root, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, name := range []string{"file", "dir", "locked", "shut", "missing", "file/below", "to-file", "to-dir", "to-locked", "dangling", "loop", "bad\x00name"} {
		full := filepath.Join(r.root, name)
		want := ""
		if fh, err := os.Open(full); err != nil {
			want = err.Error()
		} else {
			fh.Close()
		}
		for probe, f := range map[string]func(string) error{"canOpen": canOpen, "openProbe": openProbe} {
			got := ""
			if err := f(full); err != nil {
				got = err.Error()
			}
			if got != want {
				t.Errorf("%s: %s %q, os.Open %q", name, probe, got, want)
			}
		}
	}
	done := make(chan error, 1)
	go func() { done <- canOpen(filepath.Join(r.root, "pipe")) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("canOpen hung on a FIFO")
	}
}
