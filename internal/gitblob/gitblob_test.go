package gitblob

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// TestHash: a file hashes as git's blob of its content, a symbolic link as
// its target, a regular file whose stat matches its index entry as the
// entry, anything else (absent, a folder, a FIFO, a path under a file) is
// not on disk, and a file larger than any object read is TooLarge unread.
func TestHash(t *testing.T) {
	root := t.TempDir()
	write := func(rel, s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, rel), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "hello\n")
	write("b.txt", "other\n")
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(root, "big")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, gitobj.MaxPackedObject+1); err != nil { // sparse: nothing written
		t.Fatal(err)
	}
	fifo := runtime.GOOS != "windows" && syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644) == nil
	blob := func(s string) plumbing.Hash { return plumbing.ComputeHash(plumbing.BlobObject, []byte(s)) }
	fi, err := os.Lstat(filepath.Join(root, "b.txt"))
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]gitobj.IndexEntry{}
	if st, ok := gitobj.StatOf(fi); ok {
		known["b.txt"] = gitobj.IndexEntry{Stat: st, Hash: blob("as indexed")}
	}
	cases := []struct {
		p      string
		want   plumbing.Hash
		onDisk bool
	}{
		{"a.txt", blob("hello\n"), true},
		{"link", blob("a.txt"), true},
		{"dir", plumbing.ZeroHash, false},
		{"nope", plumbing.ZeroHash, false},
		{"a.txt/under", plumbing.ZeroHash, false},
		{"big", TooLarge, true},
	}
	if _, ok := known["b.txt"]; ok {
		cases = append(cases, struct {
			p      string
			want   plumbing.Hash
			onDisk bool
		}{"b.txt", blob("as indexed"), true})
	}
	if fifo {
		cases = append(cases, struct {
			p      string
			want   plumbing.Hash
			onDisk bool
		}{"fifo", plumbing.ZeroHash, false})
	}
	for _, tc := range cases {
		var buf []byte
		h, onDisk, err := Hash(root, tc.p, &buf, known, nil)
		if err != nil || h != tc.want || onDisk != tc.onDisk {
			t.Errorf("Hash(%s) = %v %v %v, want %v %v", tc.p, h, onDisk, err, tc.want, tc.onDisk)
		}
		if tc.p == "big" && buf != nil {
			t.Error("the large file was read")
		}
	}
	// the caller's lstat stands for the file's own: it tells the kind, the
	// content is read by the path
	var buf []byte
	if h, _, err := Hash(root, "a.txt", &buf, nil, fi); err != nil || h != blob("hello\n") {
		t.Errorf("with b.txt's lstat for a.txt: %v %v", h, err)
	}
	if h, onDisk, err := Hash(root, "nope", &buf, nil, fi); err == nil || onDisk {
		t.Errorf("a regular file's lstat for a missing path: %v %v %v, want an error", h, onDisk, err)
	}
}
