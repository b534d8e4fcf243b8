package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestOpenNonBlocking(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		flag       int
		regular    bool
		wantErr    error // nil: opens
	}{
		{"regular file", file, 0, true, nil},
		{"fifo opens at once", fifo, 0, false, nil},
		{"symlink followed", link, 0, true, nil},
		{"symlink refused with O_NOFOLLOW", link, syscall.O_NOFOLLOW, false, syscall.ELOOP},
		{"missing", filepath.Join(dir, "none"), 0, false, fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, fi, err := OpenNonBlocking(tt.path, tt.flag)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || f != nil {
					t.Fatalf("got %v, %v; want an error matching %v", f, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if fi.Mode().IsRegular() != tt.regular {
				t.Fatalf("mode %v, want regular %v", fi.Mode(), tt.regular)
			}
		})
	}
}
