package logging

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

func TestReadLogTail(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, "logs"), 0o755)
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "logs", "small.jsonl"), "a\nb\n")
	write(filepath.Join(root, "logs", "exact.jsonl"), "1111\n2222\n3333\n") // 15 bytes; tail 10 starts on a line
	write(filepath.Join(root, "logs", "cut.jsonl"), "1111\n2222\n3333\n")   // tail 12 starts inside "1111"
	write(filepath.Join(outside, "abs.jsonl"), "x\n")
	os.Symlink("/dev/zero", filepath.Join(root, "logs", "zero.jsonl"))
	os.Symlink(filepath.Join(outside, "abs.jsonl"), filepath.Join(root, "logs", "link.jsonl"))
	os.Symlink(outside, filepath.Join(root, "outdir"))
	if err := syscall.Mkfifo(filepath.Join(root, "logs", "fifo.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(outside, "fifo.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		path      string
		max       int64
		want      string
		truncated bool
		wantErr   error
	}{
		{"small", "logs/small.jsonl", 100, "a\nb\n", false, nil},
		{"tail on a line boundary", "logs/exact.jsonl", 10, "2222\n3333\n", true, nil},
		{"tail cutting a line", "logs/cut.jsonl", 12, "2222\n3333\n", true, nil},
		{"tail shorter than a line", "logs/cut.jsonl", 3, "", true, nil},
		{"absolute outside the repository", filepath.Join(outside, "abs.jsonl"), 100, "x\n", false, nil},
		{"missing", "logs/none.jsonl", 100, "", false, fs.ErrNotExist},
		{"symlink to /dev/zero", "logs/zero.jsonl", 100, "", false, safefile.ErrSymlink},
		{"symlink out", "logs/link.jsonl", 100, "", false, safefile.ErrSymlink},
		{"symlinked folder", "outdir/abs.jsonl", 100, "", false, safefile.ErrSymlink},
		{"FIFO", "logs/fifo.jsonl", 100, "", false, safefile.ErrNotFile},
		{"FIFO outside", filepath.Join(outside, "fifo.jsonl"), 100, "", false, safefile.ErrNotFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.path
			if !filepath.IsAbs(p) {
				p = filepath.Join(root, filepath.FromSlash(p))
			}
			type result struct {
				data      []byte
				truncated bool
				err       error
			}
			done := make(chan result, 1)
			go func() {
				d, tr, err := ReadLogTail(root, p, tt.max)
				done <- result{d, tr, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(2 * time.Second):
				t.Fatal("hangs")
			}
			if tt.wantErr != nil {
				if !errors.Is(r.err, tt.wantErr) {
					t.Fatalf("err = %v; want %v", r.err, tt.wantErr)
				}
				return
			}
			if r.err != nil || string(r.data) != tt.want || r.truncated != tt.truncated {
				t.Fatalf("readLogTail = %q, %v, %v; want %q, %v", r.data, r.truncated, r.err, tt.want, tt.truncated)
			}
		})
	}
}
