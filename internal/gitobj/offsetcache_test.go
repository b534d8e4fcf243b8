package gitobj

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestOffsetCache: entries are evicted least recently used first, a get
// counts as a use, the bytes kept stay under the bound, and an object over
// maxCachedObject is kept alone, and only as a delta's base.
func TestOffsetCache(t *testing.T) {
	p := &packFile{}
	c := newOffsetCache(100)
	obj := func(n int) []byte { return make([]byte, n) }
	c.put(p, 1, plumbing.BlobObject, obj(40), false)
	c.put(p, 2, plumbing.TreeObject, obj(40), false)
	if e, ok := c.get(p, 1); !ok || e.t != plumbing.BlobObject || len(e.data) != 40 {
		t.Fatalf("get(1) = %v, %v", e, ok)
	}
	c.put(p, 3, plumbing.BlobObject, obj(40), false) // evicts 2, the least recently used
	c.put(p, 3, plumbing.BlobObject, obj(90), false) // already there: kept as it was
	for off, want := range map[int64]bool{1: true, 2: false, 3: true} {
		if _, ok := c.get(p, off); ok != want {
			t.Errorf("get(%d) found %v, want %v", off, ok, want)
		}
	}
	if c.used != 80 || len(c.items) != 2 {
		t.Errorf("used %d bytes in %d entries, want 80 in 2", c.used, len(c.items))
	}
	c.put(p, 4, plumbing.BlobObject, obj(100), false) // evicts both
	if _, ok := c.get(p, 1); ok || c.used != 100 || len(c.items) != 1 {
		t.Errorf("after a 100-byte put: used %d in %d entries", c.used, len(c.items))
	}
	c.put(p, 5, plumbing.BlobObject, obj(101), false) // over the bound: evicts itself too
	if c.used != 0 || len(c.items) != 0 || c.head.next != &c.head || c.head.prev != &c.head {
		t.Errorf("after a 101-byte put: used %d in %d entries", c.used, len(c.items))
	}
	c.put(p, 6, plumbing.BlobObject, obj(maxCachedObject+1), false)
	if _, ok := c.get(p, 6); ok {
		t.Error("a large object that is no delta's base was kept")
	}
	c.put(p, 7, plumbing.BlobObject, obj(maxCachedObject+1), true)
	c.put(p, 8, plumbing.BlobObject, obj(maxCachedObject+1), true)
	if _, ok := c.get(p, 7); ok {
		t.Error("a large base outlived the next one")
	}
	if e, ok := c.get(p, 8); !ok || len(e.data) != maxCachedObject+1 {
		t.Error("the last large base was not kept")
	}
	// many entries: the list and the map stay in step
	for i := range 1000 {
		c.put(p, int64(100+i), plumbing.BlobObject, obj(i%30), false)
		c.get(p, int64(100+i/2))
	}
	n, used := 0, 0
	for e := c.head.next; e != &c.head; e = e.next {
		if c.items[e.k] != e || e.next.prev != e {
			t.Fatalf("entry %d: list and map disagree", e.k.off)
		}
		n, used = n+1, used+len(e.data)
	}
	if n != len(c.items) || used != c.used || used > c.max {
		t.Errorf("list holds %d entries of %d bytes, map %d, used %d (max %d)", n, used, len(c.items), c.used, c.max)
	}
}

// TestOffsetCacheReusesOnlyUnlentBuffers: an evicted entry's buffer is
// given out again only when no reader was given it (a delta base only, never
// read at depth 0), and never the buffer of the entry a put just made (its
// caller's base, or its reader's).
func TestOffsetCacheReusesOnlyUnlentBuffers(t *testing.T) {
	p := &packFile{}
	const n = 2 * minFreeBuffer
	tests := []struct {
		name  string
		base  bool // put as a delta's base
		lend  bool // then read by a reader (depth 0)
		self  bool // the put evicts its own entry
		want  bool // the buffer comes back from buffer
		small bool // under minFreeBuffer
	}{
		{name: "base", base: true, want: true},
		{name: "read at depth 0", base: false},
		{name: "base, then read", base: true, lend: true},
		{name: "base evicting itself", base: true, self: true},
		{name: "small base", base: true, small: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			size := n
			if tt.small {
				size = minFreeBuffer / 2
			}
			c := newOffsetCache(size)
			if tt.self {
				c.max = size - 1
			}
			b := make([]byte, size)
			c.put(p, 1, plumbing.TreeObject, b, tt.base)
			if tt.lend {
				e, ok := c.get(p, 1)
				if !ok {
					t.Fatal("entry not kept")
				}
				e.lent = true // as read does at depth 0
			}
			if !tt.self {
				c.put(p, 2, plumbing.TreeObject, make([]byte, size), true) // evicts 1
			}
			if _, ok := c.get(p, 1); ok {
				t.Fatal("entry 1 not evicted")
			}
			got := c.buffer(size)
			if (got != nil) != tt.want {
				t.Fatalf("buffer(%d) = %d bytes, want reuse %v", size, cap(got), tt.want)
			}
			if tt.want && (&got[:1][0] != &b[0] || len(got) != 0) {
				t.Error("not the evicted buffer, emptied")
			}
			if c.buffer(size) != nil {
				t.Error("a buffer given out twice")
			}
		})
	}
	// sizes: a buffer fits from n to n+n/8 bytes, the free bytes are bounded
	c := newOffsetCache(0)
	c.release(make([]byte, 1000, 9*minFreeBuffer))
	for _, tt := range []struct{ n, want int }{{9*minFreeBuffer + 1, 0}, {7 * minFreeBuffer, 0}, {8 * minFreeBuffer, 9 * minFreeBuffer}} {
		if got := c.buffer(tt.n); cap(got) != tt.want {
			t.Errorf("buffer(%d) = %d bytes of capacity, want %d", tt.n, cap(got), tt.want)
		}
	}
	for range 2 * maxFreeBuffers {
		c.release(make([]byte, minFreeBuffer))
	}
	if len(c.free) != maxFreeBuffers {
		t.Errorf("%d free buffers kept, bound %d", len(c.free), maxFreeBuffers)
	}
	c = newOffsetCache(0)
	for range 2 * maxFreeBuffers {
		c.release(make([]byte, 2*maxFreeBytes/maxFreeBuffers))
	}
	if c.freeBytes > maxFreeBytes || c.freeBytes < maxFreeBytes-2*maxFreeBytes/maxFreeBuffers {
		t.Errorf("%d free bytes kept, bound %d", c.freeBytes, maxFreeBytes)
	}
}

// TestPackReaderReusedBuffers reads every object of a pack of delta chains
// (files and trees of a few KiB, 50 deep) through a cache that holds few of
// them, in shuffled orders, keeping every object read: each stays byte for
// byte go-git's to the end, while evicted bases' buffers were built in
// again and deltas inflated in the buffers of the ones before — a buffer
// given to a reader and reused, or a delta's buffer reused while it is
// held, would show here.
func TestPackReaderReusedBuffers(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary")
	}
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	var in strings.Builder
	for i := range 40 {
		fmt.Fprintf(&in, "commit refs/heads/main\ncommitter A <a@x> %d +0000\ndata 2\nc\n", 1700000000+i*60)
		file := func(p, data string) { fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", p, len(data), data) }
		for f := range 3 {
			var b strings.Builder
			for l := range 120 {
				fmt.Fprintf(&b, "line %d of file %d, edited at commit %d\n", l, f, i-(l+f)%(i+1))
			}
			file(fmt.Sprintf("src/f%d.txt", f), b.String())
		}
		for f := range 60 { // a tree of a few KiB
			file(fmt.Sprintf("src/small%02d-with-a-long-name.txt", f), fmt.Sprint(f, i%(f+1)))
		}
	}
	gitStdin(t, dir, in.String(), "fast-import", "--quiet")
	runGit(t, dir, "repack", "-adqf", "--depth=50", "--window=250")
	s := openStore(t, dir)
	out, err := exec.Command("git", "-C", dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").Output()
	must(t, err)
	hashes := strings.Fields(string(out))
	want := map[string][]byte{}
	for _, h := range hashes {
		o, err := s.EncodedObjectStorer.EncodedObject(plumbing.AnyObject, plumbing.NewHash(h))
		must(t, err)
		rd, err := o.Reader()
		must(t, err)
		data, err := io.ReadAll(rd)
		must(t, err)
		want[h] = data
	}
	type kept struct {
		h    string
		data []byte
	}
	var all []kept
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 4 {
		s.mu.Lock()
		s.cache = newOffsetCache(12 << 10)
		s.mu.Unlock()
		rng.Shuffle(len(hashes), func(i, j int) { hashes[i], hashes[j] = hashes[j], hashes[i] })
		for _, h := range hashes {
			o, err := s.EncodedObject(plumbing.AnyObject, plumbing.NewHash(h))
			must(t, err)
			all = append(all, kept{h, o.(*packedObject).data})
		}
		if s.cache.reused == 0 || len(s.scratch) < 2 {
			t.Fatalf("round %d: no buffer reused (%d bases, %d depths of deltas)", round, s.cache.reused, len(s.scratch))
		}
	}
	for _, k := range all {
		if !bytes.Equal(k.data, want[k.h]) {
			t.Fatalf("%s changed after it was read: %q, want %q", k.h, k.data, want[k.h])
		}
	}
}
