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

// canOpen answers as os.Open does (same error), in two system calls; a FIFO
// opens at once.
func TestCanOpenMatchesOSOpen(t *testing.T) {
	r := newRepo(t)
	r.write("file", "x", time.Time{})
	r.write("dir/inner", "x", time.Time{})
	r.write("locked", "x", time.Time{})
	if err := os.Chmod(filepath.Join(r.root, "locked"), 0); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(r.root, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, name := range []string{"file", "dir", "locked", "missing", "file/below"} {
		full := filepath.Join(r.root, name)
		want := ""
		if fh, err := os.Open(full); err != nil {
			want = err.Error()
		} else {
			fh.Close()
		}
		got := ""
		if err := canOpen(full); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("%s: canOpen %q, os.Open %q", name, got, want)
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
