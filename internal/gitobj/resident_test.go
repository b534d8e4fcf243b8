package gitobj

import (
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestMappedPacksDroppedPastTheBound: a Store drops the pages of its mapped
// packs and indexes from the process's memory (touch) once it has read
// more than maxResident bytes of them, each page counted once: mappings
// that fit the bound are never dropped, by a fork either (which drops on a
// fraction of the bound), and the same pages read again and again do not
// count again.
func TestMappedPacksDroppedPastTheBound(t *testing.T) {
	dir, g := gitDir(t)
	// random bytes do not compress: the pack is as large as its blobs, one
	// of them too large for the cache of rebuilt objects (every read of it
	// inflates it again, from the same pages)
	write := func(name string, n int) {
		b := make([]byte, n)
		_, _ = rand.Read(b)
		must(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	write("big.bin", maxCachedObject+maxCachedObject/2)
	for i := 0; i < 20; i++ {
		write(fmt.Sprintf("f%02d.bin", i), 16<<10)
	}
	g("add", "-A")
	g("commit", "-qm", "c")
	g("repack", "-adq")
	out, err := exec.Command("git", "-C", dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").Output()
	must(t, err)
	var all []plumbing.Hash
	for _, h := range strings.Fields(string(out)) {
		all = append(all, plumbing.NewHash(h))
	}
	out, err = exec.Command("git", "-C", dir, "rev-parse", "HEAD:big.bin").Output()
	must(t, err)
	big := plumbing.NewHash(strings.TrimSpace(string(out)))

	var drops int
	oldDrop, oldMax := drop, maxResident
	drop = func(b []byte) { drops++; dropPages(b) }
	t.Cleanup(func() { drop, maxResident = oldDrop, oldMax })
	read := func(s *Store, hs ...plumbing.Hash) {
		t.Helper()
		for _, h := range hs {
			if _, err := s.EncodedObject(plumbing.AnyObject, h); err != nil {
				t.Fatal(err)
			}
		}
	}
	mapped := openStore(t, dir)
	read(mapped, big)
	if mapped.mapped == 0 {
		t.Skip("the pack is not mapped here")
	}
	size := mapped.mapped

	for _, forked := range []bool{false, true} {
		open := func() *Store {
			s := openStore(t, dir)
			if forked {
				if s = s.Fork(); s == nil {
					t.Fatal("no fork: the store has no packs")
				}
			}
			return s
		}
		// the mappings fit: never dropped, though a fork's count passes its
		// fraction of the bound
		maxResident, drops = size, 0
		s := open()
		for range 3 {
			read(s, all...)
		}
		if drops > 0 {
			t.Errorf("fork %v: mappings of %d bytes, the bound %d: dropped %d times", forked, size, maxResident, drops)
		}
		if forked {
			continue
		}
		// a byte over the bound: the big blob read again and again counts
		// its pages once, under the bound; every object read passes it
		maxResident, drops = size-1, 0
		s = open()
		for range 10 {
			read(s, big)
		}
		if drops > 0 {
			t.Errorf("the same %d bytes read 10 times, the bound %d: dropped %d times", maxCachedObject*3/2, maxResident, drops)
		}
		read(s, all...)
		if drops == 0 {
			t.Errorf("every object read, the bound %d of %d bytes mapped: never dropped", maxResident, size)
		}
	}
}

// TestLookUpsCountTheIndexPagesTheyRead: a pack index larger than the
// bound does not make every look-up drop the mappings: a look-up counts the
// pages of the index entry it ended at, once until they are dropped.
func TestLookUpsCountTheIndexPagesTheyRead(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary")
	}
	dir := t.TempDir()
	runGit(t, dir, "init", "-q")
	var blobs strings.Builder
	for i := range 1500 {
		fmt.Fprintf(&blobs, "blob\ndata %d\nblob %04d\n", len(fmt.Sprintf("blob %04d", i)), i)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(blobs.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	out, err := exec.Command("git", "-C", dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").Output()
	must(t, err)
	hashes := strings.Fields(string(out))
	if len(hashes) < 1500 {
		t.Fatalf("%d objects, want 1500", len(hashes))
	}
	var drops int
	oldDrop, oldMax := drop, maxResident
	drop = func(b []byte) { drops++; dropPages(b) }
	t.Cleanup(func() { drop, maxResident = oldDrop, oldMax })
	s := openStore(t, dir)
	h := plumbing.NewHash(hashes[0])
	if _, err := s.EncodedObject(plumbing.AnyObject, h); err != nil {
		t.Fatal(err)
	}
	if len(s.packs) != 1 || s.packs[0].unmap == nil {
		t.Skip("the index is not mapped here")
	}
	if idx := len(s.packs[0].idx); idx < 8*pageSize {
		t.Fatalf("an index of %d bytes, want 8 pages or more", idx)
	}
	maxResident, drops = 4*pageSize, 0 // half the index
	for range 200 {
		if _, err := s.EncodedObject(plumbing.AnyObject, h); err != nil {
			t.Fatal(err)
		}
	}
	if drops > 2 {
		t.Errorf("one object looked up 200 times, an index of %d bytes over a bound of %d: dropped %d times", len(s.packs[0].idx), maxResident, drops)
	}
	drops = 0
	for _, x := range hashes {
		if _, err := s.EncodedObject(plumbing.AnyObject, plumbing.NewHash(x)); err != nil {
			t.Fatal(err)
		}
	}
	if drops == 0 {
		t.Errorf("every object looked up, the index twice the bound: never dropped")
	}
}
