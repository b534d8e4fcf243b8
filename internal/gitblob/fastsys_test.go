package gitblob

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
)

// TestHashRawAndOrdinary: a file hashes as git's blob of its content
// through hashFD with the file-system calls raw and ordinary alike, an
// empty file and files over one read buffer (32 KiB) included; a FIFO is
// not on disk either way (never opened for a read that would block).
func TestHashRawAndOrdinary(t *testing.T) {
	defer fastsys.Forbid()
	root := t.TempDir()
	files := map[string][]byte{
		"empty":   {},
		"small":   []byte("hello\n"),
		"exact":   bytes.Repeat([]byte("a"), 32<<10),
		"several": bytes.Repeat([]byte("0123456789abcdef"), 9000), // 144,000 bytes
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(root, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, raw := range []bool{false, true} {
		if raw {
			fastsys.Allow()
		} else {
			fastsys.Forbid()
		}
		for name, b := range files {
			var buf []byte
			h, onDisk, err := Hash(root, name, &buf, nil, nil)
			if want := plumbing.ComputeHash(plumbing.BlobObject, b); err != nil || !onDisk || h != want {
				t.Errorf("raw %v, %s: %v %v %v, want %v", raw, name, h, onDisk, err, want)
			}
			if got, ok := hashFD(filepath.Join(root, name), make([]byte, 32<<10)); !ok || got != plumbing.ComputeHash(plumbing.BlobObject, b) {
				t.Errorf("raw %v, hashFD %s: %v %v", raw, name, got, ok)
			}
		}
		if _, onDisk, _ := Hash(root, "fifo", new([]byte), nil, nil); onDisk {
			t.Errorf("raw %v: a FIFO read as a file", raw)
		}
		if _, ok := hashFD(filepath.Join(root, "fifo"), make([]byte, 64)); ok {
			t.Errorf("raw %v: hashFD hashed a FIFO", raw)
		}
	}
}
