package handoff

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/logging"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

func TestOpenForRead(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "log.jsonl"), []byte("{}\n"), 0o600)
	os.Symlink("/dev/zero", filepath.Join(dir, "zero.jsonl"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		wantErr error
	}{
		{"log.jsonl", nil},
		{"zero.jsonl", safefile.ErrSymlink},
		{"fifo.jsonl", safefile.ErrNotFile},
		{"missing.jsonl", os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				f, err := logging.OpenLogForRead(dir, filepath.Join(dir, tt.name))
				if f != nil {
					f.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if (tt.wantErr == nil) != (err == nil) || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
					t.Fatalf("OpenLogForRead = %v; want %v", err, tt.wantErr)
				}
			case <-time.After(2 * time.Second):
				t.Fatal("hangs")
			}
		})
	}
	// loggedHandedOff on a FIFO log answers at once
	start := time.Now()
	if loggedHandedOff(dir, filepath.Join(dir, "fifo.jsonl"), "k") || time.Since(start) > time.Second {
		t.Error("loggedHandedOff on a FIFO")
	}
}

func TestWriteEnvelopeFileConfined(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, ".orchestrate"), 0o755)
	os.Symlink(outside, filepath.Join(root, ".orchestrate", "handoffs"))
	err := writeEnvelopeFile(filepath.Join(HandoffsDir(root), "x-1.json"), []byte("{}"))
	if !errors.Is(err, safefile.ErrSymlink) {
		t.Fatalf("err = %v; want a symlink refusal", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("written outside: %v", entries)
	}
	if err := writeEnvelopeFile(filepath.Join(root, "elsewhere", "x.json"), []byte("{}")); err == nil {
		t.Fatal("an envelope outside .orchestrate/handoffs: want an error")
	}
	root2 := t.TempDir()
	if err := writeEnvelopeFile(filepath.Join(HandoffsDir(root2), "x-1.json"), []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(HandoffsDir(root2)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("handoffs folder: %v, %v", fi, err)
	}
}
