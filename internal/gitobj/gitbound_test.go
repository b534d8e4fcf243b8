package gitobj

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
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
	s := NewStore(nil, SafeFS{osfs.New(gitdir)})
	_, err := s.SmallObject(plumbing.BlobObject, h, 8<<20)
	if !errors.Is(err, ErrObjectTooLarge) {
		t.Fatalf("err = %v, want %v", err, ErrObjectTooLarge)
	}
	// a prefix is still there to read
	typ, data, whole, err := s.object(h, 8<<20, 5)
	if err != nil || typ != plumbing.BlobObject || string(data) != "hello" || whole {
		t.Fatalf("prefix: %v %q %v %v", typ, data, whole, err)
	}
	// a loose object that is a FIFO is refused, not waited on
	must(t, os.Remove(p))
	must(t, syscall.Mkfifo(p, 0o644))
	within(t, 30*time.Second, func() {
		if _, err := s.SmallObject(plumbing.BlobObject, h, 8<<20); !errors.Is(err, ErrNotRegular) {
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
	s := NewStore(nil, SafeFS{osfs.New(gitdir)})
	defer s.Close()
	// within the bound: the base and the first links
	for i := 0; i <= 4; i++ {
		_, data, whole, err := s.object(hashes[i], MaxPackedObject, 0)
		if err != nil || !whole || plumbing.ComputeHash(plumbing.BlobObject, data) != hashes[i] {
			t.Fatalf("link %d: %v (whole %v)", i, err, whole)
		}
	}
	s.cache = newOffsetCache(cacheBytes) // nothing rebuilt is kept
	start := time.Now()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, _, err := s.object(hashes[links], MaxPackedObject, 0)
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
	_, err = s.SmallObject(plumbing.BlobObject, hashes[links], baseLen/2)
	if !errors.Is(err, ErrObjectTooLarge) {
		t.Errorf("over the blob cap: %v", err)
	}
}

// TestDeltaPrefix: the first bytes of an object rebuilt from a delta are
// those of the whole object.
func TestDeltaPrefix(t *testing.T) {
	gitdir, hashes := deltaChainPack(t, 64<<10, 3)
	s := NewStore(nil, SafeFS{osfs.New(gitdir)})
	defer s.Close()
	_, whole, _, err := s.object(hashes[3], MaxPackedObject, 0)
	must(t, err)
	s.cache = newOffsetCache(cacheBytes)
	for _, cut := range []int{1, 100, 64 << 10, 64<<10 + 2} {
		_, part, w, err := s.object(hashes[3], MaxPackedObject, cut)
		must(t, err)
		if w || !bytes.Equal(part, whole[:cut]) {
			t.Errorf("cut %d: %d bytes, whole %v", cut, len(part), w)
		}
	}
	_, all, w, err := s.object(hashes[3], MaxPackedObject, len(whole))
	if err != nil || !w || !bytes.Equal(all, whole) {
		t.Errorf("cut at its size: whole %v, %v", w, err)
	}
}

// TestDeltaFanOverLargeBase: many small deltas over one base too large for
// the object cache inflate it once (kept as a delta base), and the store's
// work in all — deltas, bases, large objects — is bounded
// (maxStoreDeltaWork).
func TestDeltaFanOverLargeBase(t *testing.T) {
	const baseLen, deltas = maxCachedObject + 64<<10, 40
	gitdir, hashes := deltaPack(t, baseLen, deltas, true)
	s := NewStore(nil, SafeFS{osfs.New(gitdir)})
	defer s.Close()
	for i := 1; i <= deltas; i++ {
		_, data, whole, err := s.object(hashes[i], MaxPackedObject, 128)
		if err != nil || whole || len(data) != 128 {
			t.Fatalf("delta %d: %d bytes, whole %v, %v", i, len(data), whole, err)
		}
	}
	if s.total > 2*baseLen {
		t.Errorf("%d bytes of delta work for %d deltas over one %d-byte base", s.total, deltas, baseLen)
	}
	_, data, _, err := s.object(hashes[deltas], MaxPackedObject, 0)
	if err != nil || plumbing.ComputeHash(plumbing.BlobObject, data) != hashes[deltas] {
		t.Fatalf("the last delta whole: %v", err)
	}

	saved := maxStoreDeltaWork
	maxStoreDeltaWork = 16 << 20
	defer func() { maxStoreDeltaWork = saved }()
	s2 := NewStore(nil, SafeFS{osfs.New(gitdir)})
	defer s2.Close()
	for i := 1; i <= deltas; i++ {
		s2.cache = newOffsetCache(cacheBytes) // the base rebuilt each time
		_, _, _, err = s2.object(hashes[i], MaxPackedObject, 0)
		if err != nil {
			break
		}
	}
	if !errors.Is(err, ErrDeltaWork) || !strings.Contains(err.Error(), "in all") {
		t.Fatalf("store bound: %v", err)
	}

	// large objects inflated whole count too
	s3 := NewStore(nil, SafeFS{osfs.New(gitdir)})
	defer s3.Close()
	for i := 0; i < 32; i++ {
		s3.cache = newOffsetCache(cacheBytes)
		if _, _, _, err = s3.object(hashes[0], MaxPackedObject, 0); err != nil {
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
	fs := SafeFS{osfs.New(dir)}
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
