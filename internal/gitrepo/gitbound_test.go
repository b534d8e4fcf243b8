package gitrepo

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
)

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
			if !errors.Is(err, ErrNotRegular) && !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("err = %v, want %v", err, ErrNotRegular)
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
			if !errors.Is(err, ErrGitFileTooLarge) {
				t.Fatalf("err = %v, want %v", err, ErrGitFileTooLarge)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("allocated %d bytes refusing a huge %s", grew, name)
			}
		})
	}
}

// TestReadGitFile covers the reader speckit and session use.
func TestReadGitFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "HEAD")
	must(t, os.WriteFile(small, []byte("ref: refs/heads/main\n"), 0o644))
	if b, err := ReadGitFile(small, 0); err != nil || string(b) != "ref: refs/heads/main\n" {
		t.Fatalf("ReadGitFile = %q, %v", b, err)
	}
	if _, err := ReadGitFile(small, 4); !errors.Is(err, ErrGitFileTooLarge) {
		t.Errorf("over its bound: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	must(t, syscall.Mkfifo(fifo, 0o644))
	within(t, 30*time.Second, func() {
		if _, err := ReadGitFile(fifo, 0); !errors.Is(err, ErrNotRegular) {
			t.Errorf("FIFO: %v", err)
		}
	})
	if _, err := ReadGitFile("/dev/zero", 0); !errors.Is(err, ErrNotRegular) {
		t.Errorf("device: %v", err)
	}
	if _, err := ReadGitFile(dir, 0); !errors.Is(err, ErrNotRegular) {
		t.Errorf("folder: %v", err)
	}
	if _, err := ReadGitFile(filepath.Join(dir, "missing"), 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
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
			if d := time.Since(start); d > 15*time.Second { // 5 s on an idle machine, with room for a loaded one
				t.Errorf("took %s", d)
			}
		})
	}
}

// TestLooseObjectSizeCheckedFirst: a loose blob announcing 1 GiB (its file
// holds a few bytes) is refused from its header, by ReadAt's cap.
func TestLooseObjectSizeCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	gitdir := filepath.Join(dir, ".git")
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	_, _ = w.Write([]byte("blob 1073741824\x00hello"))
	_ = w.Close()
	h := plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")
	p := filepath.Join(gitdir, "objects", h.String()[:2], h.String()[2:])
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, z.Bytes(), 0o644))
	s := newObjectStore(nil, safeFS{osfs.New(gitdir)})
	_, err := s.smallObject(plumbing.BlobObject, h, MaxReadSize)
	if !errors.Is(err, ErrObjectTooLarge) {
		t.Fatalf("err = %v, want %v", err, ErrObjectTooLarge)
	}
	// a prefix is still there to read
	typ, data, whole, err := s.object(h, MaxReadSize, 5)
	if err != nil || typ != plumbing.BlobObject || string(data) != "hello" || whole {
		t.Fatalf("prefix: %v %q %v %v", typ, data, whole, err)
	}
	// a loose object that is a FIFO is refused, not waited on
	must(t, os.Remove(p))
	must(t, syscall.Mkfifo(p, 0o644))
	within(t, 30*time.Second, func() {
		if _, err := s.smallObject(plumbing.BlobObject, h, MaxReadSize); !errors.Is(err, ErrNotRegular) {
			t.Errorf("FIFO object: %v", err)
		}
	})
}

// deltaChainPack writes a pack (indexed by git index-pack) of a blob of
// baseLen bytes and a chain of n offset deltas over it, each copying all of
// its base and adding a byte, and returns the .git folder and the hashes of
// the objects, base first.
func deltaChainPack(t *testing.T, baseLen, n int) (string, []plumbing.Hash) {
	return deltaPack(t, baseLen, n, false)
}

// deltaPack is deltaChainPack; with fan, every delta is over the first
// blob instead of the one before it.
func deltaPack(t *testing.T, baseLen, n int, fan bool) (string, []plumbing.Hash) {
	t.Helper()
	gitdir := filepath.Join(t.TempDir(), ".git")
	packDir := filepath.Join(gitdir, "objects", "pack")
	must(t, os.MkdirAll(packDir, 0o755))
	base := bytes.Repeat([]byte("0123456789abcdef"), baseLen/16)
	pack := []byte("PACK\x00\x00\x00\x02")
	pack = binary.BigEndian.AppendUint32(pack, uint32(n+1))
	offs := []int{len(pack)}
	pack = append(pack, packObject(plumbing.BlobObject, 0, base)...)
	hashes := []plumbing.Hash{plumbing.ComputeHash(plumbing.BlobObject, base)}
	content := base
	for i := 0; i < n; i++ {
		// copy len(content) bytes from 0 in 64 KiB pieces, then insert one byte
		var ops []byte
		for at := 0; at < len(content); at += 0x10000 {
			size := min(0x10000, len(content)-at)
			op := byte(0x80)
			var args []byte
			for b := 0; b < 4; b++ {
				if v := byte(at >> (8 * b)); v != 0 {
					op |= 1 << b
					args = append(args, v)
				}
			}
			if size != 0x10000 {
				for b := 0; b < 3; b++ {
					if v := byte(size >> (8 * b)); v != 0 {
						op |= 1 << (4 + b)
						args = append(args, v)
					}
				}
			}
			ops = append(append(ops, op), args...)
		}
		ops = append(ops, 1, byte('a'+i%26))
		delta := deltaOf(len(content), len(content)+1, ops...)
		next := append(bytes.Clone(content), byte('a'+i%26))
		off := len(pack)
		baseOff := offs[len(offs)-1]
		if fan {
			baseOff = offs[0]
		} else {
			content = next
		}
		pack = append(pack, packObject(plumbing.OFSDeltaObject, int64(off-baseOff), delta)...)
		offs = append(offs, off)
		hashes = append(hashes, plumbing.ComputeHash(plumbing.BlobObject, next))
	}
	sum := sha1.Sum(pack)
	pack = append(pack, sum[:]...)
	name := filepath.Join(packDir, fmt.Sprintf("pack-%x.pack", sum))
	must(t, os.WriteFile(name, pack, 0o644))
	runGit(t, packDir, "index-pack", filepath.Base(name))
	return gitdir, hashes
}

// TestDeltaChainWorkBounded: a small pack of deltas over a large base (each
// link rebuilds the whole base) stops at maxDeltaWork with ErrDeltaWork,
// however long the chain; links within the bound read as they should.
func TestDeltaChainWorkBounded(t *testing.T) {
	const baseLen, links = 256 << 10, 64
	gitdir, hashes := deltaChainPack(t, baseLen, links)
	saved := maxDeltaWork
	maxDeltaWork = 4 << 20
	defer func() { maxDeltaWork = saved }()
	s := newObjectStore(nil, safeFS{osfs.New(gitdir)})
	defer s.Close()
	// within the bound: the base and the first links
	for i := 0; i <= 4; i++ {
		_, data, whole, err := s.object(hashes[i], maxPackedObject, 0)
		if err != nil || !whole || plumbing.ComputeHash(plumbing.BlobObject, data) != hashes[i] {
			t.Fatalf("link %d: %v (whole %v)", i, err, whole)
		}
	}
	s.cache = newOffsetCache(cacheBytes) // nothing rebuilt is kept
	start := time.Now()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, _, err := s.object(hashes[links], maxPackedObject, 0)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrDeltaWork) {
		t.Fatalf("the chain's tip: err = %v, want %v", err, ErrDeltaWork)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4*uint64(maxDeltaWork) {
		t.Errorf("allocated %d bytes, over 4x the %d-byte bound", grew, maxDeltaWork)
	}
	if d := time.Since(start); d > 15*time.Second { // well under 1 s on an idle machine
		t.Errorf("took %s", d)
	}
	// the blob cap is checked from the delta's header, before its base
	_, err = s.smallObject(plumbing.BlobObject, hashes[links], baseLen/2)
	if !errors.Is(err, ErrObjectTooLarge) {
		t.Errorf("over the blob cap: %v", err)
	}
}

// TestDeltaPrefix: the first bytes of an object rebuilt from a delta are
// those of the whole object.
func TestDeltaPrefix(t *testing.T) {
	gitdir, hashes := deltaChainPack(t, 64<<10, 3)
	s := newObjectStore(nil, safeFS{osfs.New(gitdir)})
	defer s.Close()
	_, whole, _, err := s.object(hashes[3], maxPackedObject, 0)
	must(t, err)
	s.cache = newOffsetCache(cacheBytes)
	for _, cut := range []int{1, 100, 64 << 10, 64<<10 + 2} {
		_, part, w, err := s.object(hashes[3], maxPackedObject, cut)
		must(t, err)
		if w || !bytes.Equal(part, whole[:cut]) {
			t.Errorf("cut %d: %d bytes, whole %v", cut, len(part), w)
		}
	}
	_, all, w, err := s.object(hashes[3], maxPackedObject, len(whole))
	if err != nil || !w || !bytes.Equal(all, whole) {
		t.Errorf("cut at its size: whole %v, %v", w, err)
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
	if _, err := r.packs.smallObject(plumbing.BlobObject, h, MaxReadSize); !errors.Is(err, ErrObjectTooLarge) {
		t.Errorf("huge loose object in the alternates: %v", err)
	}
}

// TestDeltaFanOverLargeBase: many small deltas over one base too large for
// the object cache inflate it once (kept as a delta base), and the store's
// work in all — deltas, bases, large objects — is bounded
// (maxStoreDeltaWork).
func TestDeltaFanOverLargeBase(t *testing.T) {
	const baseLen, deltas = maxCachedObject + 64<<10, 40
	gitdir, hashes := deltaPack(t, baseLen, deltas, true)
	s := newObjectStore(nil, safeFS{osfs.New(gitdir)})
	defer s.Close()
	for i := 1; i <= deltas; i++ {
		_, data, whole, err := s.object(hashes[i], maxPackedObject, 128)
		if err != nil || whole || len(data) != 128 {
			t.Fatalf("delta %d: %d bytes, whole %v, %v", i, len(data), whole, err)
		}
	}
	if s.total > 2*baseLen {
		t.Errorf("%d bytes of delta work for %d deltas over one %d-byte base", s.total, deltas, baseLen)
	}
	_, data, _, err := s.object(hashes[deltas], maxPackedObject, 0)
	if err != nil || plumbing.ComputeHash(plumbing.BlobObject, data) != hashes[deltas] {
		t.Fatalf("the last delta whole: %v", err)
	}

	saved := maxStoreDeltaWork
	maxStoreDeltaWork = 16 << 20
	defer func() { maxStoreDeltaWork = saved }()
	s2 := newObjectStore(nil, safeFS{osfs.New(gitdir)})
	defer s2.Close()
	for i := 1; i <= deltas; i++ {
		s2.cache = newOffsetCache(cacheBytes) // the base rebuilt each time
		_, _, _, err = s2.object(hashes[i], maxPackedObject, 0)
		if err != nil {
			break
		}
	}
	if !errors.Is(err, ErrDeltaWork) || !strings.Contains(err.Error(), "in all") {
		t.Fatalf("store bound: %v", err)
	}

	// large objects inflated whole count too
	s3 := newObjectStore(nil, safeFS{osfs.New(gitdir)})
	defer s3.Close()
	for i := 0; i < 32; i++ {
		s3.cache = newOffsetCache(cacheBytes)
		if _, _, _, err = s3.object(hashes[0], maxPackedObject, 0); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrDeltaWork) {
		t.Fatalf("store bound, whole objects: %v", err)
	}
}

// TestSafeFSGrowing: a file go-git reads whole that grows past its bound
// after it was opened is cut off with ErrGitFileTooLarge; a FIFO is refused
// at open; files not read whole pass with no bound.
func TestSafeFSGrowing(t *testing.T) {
	dir := t.TempDir()
	fs := safeFS{osfs.New(dir)}
	must(t, os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	f, err := fs.Open("HEAD")
	must(t, err)
	defer f.Close()
	big := bytes.Repeat([]byte("x"), maxRefFile+10)
	must(t, os.WriteFile(filepath.Join(dir, "HEAD"), big, 0o644))
	if _, err := io.ReadAll(f); !errors.Is(err, ErrGitFileTooLarge) {
		t.Errorf("grown HEAD: %v", err)
	}
	must(t, syscall.Mkfifo(filepath.Join(dir, "config"), 0o644))
	within(t, 30*time.Second, func() {
		if _, err := fs.Open("config"); !errors.Is(err, ErrNotRegular) {
			t.Errorf("FIFO config: %v", err)
		}
	})
	must(t, os.WriteFile(filepath.Join(dir, "index"), big, 0o644))
	g, err := fs.Open("index")
	must(t, err)
	defer g.Close()
	if b, err := io.ReadAll(g); err != nil || len(b) != len(big) {
		t.Errorf("index: %d bytes, %v", len(b), err)
	}
}
