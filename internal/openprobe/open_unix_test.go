//go:build unix

package openprobe

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// CanOpen (and openProbe, its fallback) answer as os.Open does, with the
// same error, following a final symlink as it does; a FIFO opens at once.
func TestCanOpenMatchesOSOpen(t *testing.T) {
	checkCanOpenMatchesOSOpen(t)
}

func checkCanOpenMatchesOSOpen(t *testing.T) {
	t.Helper()
	root := t.TempDir()
	for _, f := range []string{"file", "dir/inner", "locked"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(root, "locked"), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "shut"), 0o300); err != nil { // no read: opening it is refused
		t.Fatal(err)
	}
	for link, target := range map[string]string{"to-file": "file", "to-dir": "dir", "to-locked": "locked", "dangling": "nowhere", "loop": "loop"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, name := range []string{"file", "dir", "locked", "shut", "missing", "file/below", "to-file", "to-dir", "to-locked", "dangling", "loop", "bad\x00name"} {
		full := filepath.Join(root, name)
		want := ""
		if fh, err := os.Open(full); err != nil {
			want = err.Error()
		} else {
			fh.Close()
		}
		for probe, f := range map[string]func(string) error{"CanOpen": CanOpen, "openProbe": openProbe} {
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
	go func() { done <- CanOpen(filepath.Join(root, "pipe")) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("CanOpen hung on a FIFO")
	}
}
