package gitrepo

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// gitRepoOneCommit makes a repository with one commit on main, its refs
// loose.
func gitRepoOneCommit(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644))
	runGit(t, dir, "add", "a.txt")
	runGit(t, dir, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "one")
	return dir
}

// TestOpenRefusesFIFOs puts a FIFO where git keeps a file: Open (or the
// first read of HEAD) answers at once with ErrNotRegular, never hangs.
func TestOpenRefusesFIFOs(t *testing.T) {
	tests := []struct {
		name  string
		fifo  string // relative to the work tree
		setup func(t *testing.T, dir string)
	}{
		{name: "HEAD", fifo: ".git/HEAD"},
		{name: "config", fifo: ".git/config"},
		{name: "shallow", fifo: ".git/shallow"},
		{name: "loose ref", fifo: ".git/refs/heads/main"},
		{name: "packed-refs", fifo: ".git/packed-refs", setup: func(t *testing.T, dir string) {
			must(t, os.Remove(filepath.Join(dir, ".git/refs/heads/main")))
		}},
		{name: "commondir", fifo: ".git/commondir"},
		{name: ".git file", fifo: ".git", setup: func(t *testing.T, dir string) {
			must(t, os.RemoveAll(filepath.Join(dir, ".git")))
		}},
		{name: "alternates", fifo: ".git/objects/info/alternates", setup: func(t *testing.T, dir string) {
			// the commit is then found nowhere but through the alternates
			runGit(t, dir, "repack", "-adq")
			must(t, os.RemoveAll(filepath.Join(dir, ".git/objects/pack")))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := gitRepoOneCommit(t)
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			p := filepath.Join(dir, tt.fifo)
			_ = os.Remove(p)
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			must(t, syscall.Mkfifo(p, 0o644))
			var err error
			within(t, 30*time.Second, func() {
				var r *Repo
				if r, err = Open(dir); err == nil {
					defer r.Close()
					_, err = r.Head()
				}
			})
			if err == nil {
				t.Fatal("a FIFO in .git was read")
			}
			if !errors.Is(err, gitobj.ErrNotRegular) && !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("err = %v, want %v", err, gitobj.ErrNotRegular)
			}
		})
	}
}

// TestOpenRefusesHugeGitFiles makes HEAD, config and a .git file sparse
// files of gigabytes: refused from their size, at once.
func TestOpenRefusesHugeGitFiles(t *testing.T) {
	for _, name := range []string{".git/HEAD", ".git/config", ".git/refs/heads/main", ".git"} {
		t.Run(name, func(t *testing.T) {
			dir := gitRepoOneCommit(t)
			p := filepath.Join(dir, name)
			if name == ".git" {
				must(t, os.RemoveAll(p))
			}
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o644)
			must(t, err)
			if name == ".git" {
				_, err = f.WriteString("gitdir: elsewhere\n")
				must(t, err)
			}
			must(t, f.Truncate(3<<30)) // sparse: nothing written
			must(t, f.Close())
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			within(t, 30*time.Second, func() {
				var r *Repo
				if r, err = Open(dir); err == nil {
					defer r.Close()
					_, err = r.Head()
				}
			})
			runtime.ReadMemStats(&after)
			if !errors.Is(err, gitobj.ErrGitFileTooLarge) {
				t.Fatalf("err = %v, want %v", err, gitobj.ErrGitFileTooLarge)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("allocated %d bytes refusing a huge %s", grew, name)
			}
		})
	}
}

// bigMessageRepo makes a repository whose HEAD commit has a message of n
// bytes (compressing to almost nothing), stored loose or packed.
func bigMessageRepo(t *testing.T, n int, packed bool) string {
	t.Helper()
	dir := gitRepoOneCommit(t)
	msg := filepath.Join(t.TempDir(), "msg")
	f, err := os.Create(msg)
	must(t, err)
	line := bytes.Repeat([]byte("the same line again and again\n"), 1<<10)
	_, err = f.WriteString("big subject\n\n")
	must(t, err)
	for written := 0; written < n; written += len(line) {
		_, err = f.Write(line)
		must(t, err)
	}
	must(t, f.Close())
	cmd := exec.Command("git", "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-F", msg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	if packed {
		runGit(t, dir, "repack", "-adq")
	}
	return dir
}

// TestHugeCommitMessageReadBounded: a HEAD commit with a message of 16 MiB
// (600 MB in the attack; it compresses to kilobytes) is read no further than
// its first maxCommitHeader bytes, packed or loose: HEAD, dating and the
// interruption commit answer, allocating a small fraction of the message.
func TestHugeCommitMessageReadBounded(t *testing.T) {
	const size = 16 << 20
	for _, packed := range []bool{false, true} {
		t.Run(fmt.Sprintf("packed=%v", packed), func(t *testing.T) {
			dir := bigMessageRepo(t, size, packed)
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			r := open(t, dir)
			head, err := r.Head()
			must(t, err)
			if head.Subject != "big subject" {
				t.Errorf("subject %q", head.Subject)
			}
			if _, err := r.InterruptionCommit(head.Hash, time.Time{}); err != nil {
				t.Fatal(err)
			}
			if got := r.LastCommitted([]string{"a.txt"}, 100); got["a.txt"].Subject != "one" {
				t.Errorf("LastCommitted = %+v", got)
			}
			runtime.ReadMemStats(&after)
			t.Logf("allocated %d bytes", after.TotalAlloc-before.TotalAlloc)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > size/8 {
				t.Errorf("allocated %d bytes for a commit of %d", grew, size)
			}
			// 5 s on an idle machine, with room for a loaded one; under the
			// race detector it took 11 s on a loaded 2-core machine
			bound := 15 * time.Second
			if raceEnabled {
				bound = 45 * time.Second
			}
			if d := time.Since(start); d > bound {
				t.Errorf("took %s, over %s", d, bound)
			}
		})
	}
}

// TestAlternatesReadHere: a clone sharing its objects with another
// repository (git clone --shared: objects/info/alternates, relative here)
// is read through the pack reader, bounds included — never handed to go-git.
func TestAlternatesReadHere(t *testing.T) {
	src := gitRepoOneCommit(t)
	runGit(t, src, "repack", "-adq")
	base := t.TempDir()
	runGit(t, base, "clone", "-q", "--shared", src, "dst")
	dst := filepath.Join(base, "dst")
	// a relative path, as git allows
	rel, err := filepath.Rel(filepath.Join(dst, ".git", "objects"), filepath.Join(src, ".git", "objects"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dst, ".git/objects/info/alternates"), []byte("# shared\n"+rel+"\n"), 0o644))
	r := open(t, dst)
	r.packs.EncodedObjectStorer = failingStorer{}
	head, err := r.Head()
	must(t, err)
	if got := r.LastCommitted([]string{"a.txt"}, 10); got["a.txt"].Hash != head.Hash {
		t.Fatalf("LastCommitted = %+v, want %s", got, head.Hash)
	}
	if data, err := r.ReadAt(head, "a.txt"); err != nil || string(data) != "a\n" {
		t.Fatalf("ReadAt = %q, %v", data, err)
	}
	// a loose object there announcing a huge size: refused from its header
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	_, _ = w.Write([]byte("blob 1073741824\x00x"))
	_ = w.Close()
	h := plumbing.NewHash("fedcba9876543210fedcba9876543210fedcba98")
	p := filepath.Join(src, ".git", "objects", h.String()[:2], h.String()[2:])
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, z.Bytes(), 0o644))
	if _, err := r.packs.SmallObject(plumbing.BlobObject, h, MaxReadSize); !errors.Is(err, gitobj.ErrObjectTooLarge) {
		t.Errorf("huge loose object in the alternates: %v", err)
	}
}

// within runs f and fails the test when it takes longer than d (a FIFO
// opened for reading would block forever).
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %s", d)
	}
}
