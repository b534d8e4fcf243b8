//go:build unix

package validate

import (
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
