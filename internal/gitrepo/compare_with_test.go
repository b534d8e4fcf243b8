package gitrepo

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

// The streamed parser gives what the former whole-buffer one gave (kept
// here as the reference), for a real index, every truncation of it, and the
// malformed variants; a long path crosses the read buffer.
func TestParseIndexStreamMatchesBuffer(t *testing.T) {
	dir, paths := indexRepo(t, 40)
	b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	must(t, err)
	want := map[string]bool{}
	for _, p := range paths[:30] {
		want[p] = true
	}
	far := ^uint32(0)
	cases := map[string][]byte{"whole": b}
	for n := 0; n < len(b); n += 7 {
		cases[fmt.Sprintf("truncated at %d", n)] = b[:n]
	}
	long := bytes.Repeat([]byte("d/"), 3*1024) // a 6 KiB path
	cases["long path"] = oneEntryIndex(append(long, "f.txt"...))
	for name, c := range cases {
		for _, sec := range []uint32{far, 0} {
			got, ref := parseIndex(c, want, sec, 0), parseIndexBuffer(c, want, sec, 0)
			if !reflect.DeepEqual(got, ref) {
				t.Errorf("%s (sec %d): stream %d entries, buffer %d", name, sec, len(got), len(ref))
			}
		}
	}
	lw := map[string]bool{string(long) + "f.txt": true}
	if got := parseIndex(cases["long path"], lw, far, 0); len(got) != 1 {
		t.Errorf("long path: %d entries, want 1", len(got))
	}
}

// oneEntryIndex is a version 2 index of one regular file at name.
func oneEntryIndex(name []byte) []byte {
	be := binary.BigEndian
	b := []byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x01")
	e := make([]byte, 62)
	be.PutUint32(e[8:], 100) // mtime
	be.PutUint32(e[24:], 0o100644)
	e[40] = 0xab // hash
	be.PutUint16(e[60:], 0xfff)
	e = append(e, name...)
	e = append(e, make([]byte, (62+len(name)+8)&^7-62-len(name))...)
	return append(b, e...)
}

// parseIndexBuffer is the former parseIndex over a whole buffer, the
// reference the streamed one is checked against.
func parseIndexBuffer(b []byte, want map[string]bool, sec, nsec uint32) map[string]indexEntry {
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return nil
	}
	be := binary.BigEndian
	version := be.Uint32(b[4:])
	if version != 2 && version != 3 {
		return nil
	}
	n := be.Uint32(b[8:])
	out := make(map[string]indexEntry)
	off := 12
	for i := uint32(0); i < n; i++ {
		const fixed = 62 // stat data, mode, hash and flags
		if len(b)-off < fixed {
			return nil
		}
		e := b[off:]
		flags := be.Uint16(e[60:])
		head, ext := fixed, uint16(0)
		if flags&0x4000 != 0 { // extended flags follow
			if version < 3 || len(e) < fixed+2 {
				return nil
			}
			ext, head = be.Uint16(e[fixed:]), fixed+2
		}
		nul := bytes.IndexByte(e[head:], 0)
		if nul < 0 {
			return nil
		}
		name := e[head : head+nul]
		size := (head + nul + 8) &^ 7 // NUL-padded to a multiple of 8
		if size > len(e) {
			return nil
		}
		off += size
		// assume-valid or a stage; skip-worktree or intent-to-add; not a
		// regular file (a symbolic link, a submodule, a sparse folder).
		if flags&0xb000 != 0 || ext&0x6000 != 0 || be.Uint32(e[24:])&0o170000 != 0o100000 || !want[string(name)] {
			continue
		}
		st := indexStat{
			ctimeSec: be.Uint32(e[0:]), ctimeNsec: be.Uint32(e[4:]),
			mtimeSec: be.Uint32(e[8:]), mtimeNsec: be.Uint32(e[12:]),
			ino: be.Uint32(e[20:]), uid: be.Uint32(e[28:]), gid: be.Uint32(e[32:]), size: be.Uint32(e[36:]),
		}
		if st.mtimeSec > sec || (st.mtimeSec == sec && st.mtimeNsec >= nsec) {
			continue // racily clean: the file may have changed after it was staged
		}
		var h plumbing.Hash
		copy(h[:], e[40:60])
		out[string(name)] = indexEntry{stat: st, hash: h}
	}
	return out
}

// CompareWith, given the run's lstats and an index read once for more
// paths (or for others), answers as Compare does: for unchanged, edited and removed files.
func TestCompareWithMatchesCompare(t *testing.T) {
	dir, paths := indexRepo(t, minIndexPaths+10)
	r := open(t, dir)
	head, err := r.Head()
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, paths[2]), []byte("edited\n"), 0o644))
	must(t, os.Remove(filepath.Join(dir, paths[5])))
	lstats := map[string]fs.FileInfo{}
	for _, p := range paths {
		if fi, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			lstats[p] = fi
		}
	}
	idx := r.IndexFor(paths, len(paths))
	if idx == nil {
		t.Fatal("IndexFor: nil for a small index")
	}
	if runtime.GOOS == "linux" && len(idx.entries) < len(paths)-2 {
		t.Errorf("IndexFor: %d entries for %d paths", len(idx.entries), len(paths))
	}
	if got := r.IndexFor(paths, minIndexPaths-1); got != nil {
		t.Errorf("IndexFor for %d expected paths read the index", minIndexPaths-1)
	}
	want, err := r.Compare(head, paths)
	must(t, err)
	lstat := func(p string) (fs.FileInfo, bool) { fi, ok := lstats[p]; return fi, ok }
	for _, tc := range []struct {
		name  string
		paths []string
		o     CompareOptions
	}{
		{"nothing known", paths, CompareOptions{}},
		{"lstats", paths, CompareOptions{Lstat: lstat}},
		{"index", paths, CompareOptions{Index: idx}},
		{"both, a few paths", paths[:8], CompareOptions{Lstat: lstat, Index: idx}},
		{"index for other paths", paths, CompareOptions{Index: r.IndexFor(paths[:minIndexPaths], minIndexPaths)}},
	} {
		got, err := r.CompareWith(head, tc.paths, tc.o)
		must(t, err)
		if !reflect.DeepEqual(got, want[:len(tc.paths)]) {
			t.Errorf("%s: %+v\nwant %+v", tc.name, got, want[:len(tc.paths)])
		}
	}
}

// Reading the index allocates for the wanted entries only, not for each
// entry read (an index has one per tracked file).
func TestParseIndexAllocsBounded(t *testing.T) {
	dir, paths := indexRepo(t, 200)
	b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	must(t, err)
	want := map[string]bool{paths[7]: true}
	var got map[string]indexEntry
	allocs := testing.AllocsPerRun(20, func() { got = parseIndex(b, want, ^uint32(0), 0) })
	if len(got) != 1 {
		t.Fatalf("%d entries, want 1", len(got))
	}
	if allocs > 12 {
		t.Errorf("%.0f allocations to read an index of %d entries for one path", allocs, len(paths))
	}
}

// An Index holds HEAD as it was when it was read, for every Compare of the
// command: a commit made since does not change what those Compares answer,
// while a Compare without it resolves HEAD again.
func TestIndexKeepsHead(t *testing.T) {
	dir, paths := indexRepo(t, minIndexPaths+10)
	r := open(t, dir)
	base, err := r.Head()
	must(t, err)
	idx := r.IndexFor(paths, len(paths))
	if idx == nil || idx.head.hash.String() != base.Hash {
		t.Fatalf("IndexFor: HEAD %v, want %s", idx, base.Hash)
	}
	must(t, gitfixture.WriteFile(dir, paths[0], "edited\n"))
	if _, err := gitfixture.Commit(dir, "edit", "A", "a@x", time.Now()); err != nil {
		t.Fatal(err)
	}
	edited := plumbing.ComputeHash(plumbing.BlobObject, []byte("edited\n")).String()
	for _, tc := range []struct {
		name                  string
		o                     CompareOptions
		head                  string
		committed, uncommited bool
	}{
		{"HEAD of the index", CompareOptions{Index: idx}, contentHash("content 000\n"), false, true},
		{"HEAD now", CompareOptions{}, edited, true, false},
	} {
		got, err := r.CompareWith(base, paths[:1], tc.o)
		must(t, err)
		if st := got[0]; st.HeadHash != tc.head || st.Committed != tc.committed || st.Uncommited != tc.uncommited || st.DiskHash != edited {
			t.Errorf("%s: %+v", tc.name, st)
		}
	}
}

// When the index's cache-tree is HEAD's tree, Compare takes HEAD's blobs
// from the index (no HEAD tree read) and answers as it does from the trees:
// committed, edited, removed, added, symbolic link, absent and folder
// paths. A staged change (the cache-tree then no longer HEAD's) turns it off.
func TestIndexHeadsMatchTrees(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	g := func(args ...string) {
		runGit(t, dir, append([]string{"-c", "user.name=A", "-c", "user.email=a@x"}, args...)...)
	}
	g("init", "-q")
	var paths []string
	for i := 0; i < minIndexPaths+6; i++ {
		p := fmt.Sprintf("d%d/f%02d.txt", i%4, i)
		must(t, gitfixture.WriteFile(dir, p, fmt.Sprint("v1 ", i)))
		paths = append(paths, p)
	}
	must(t, os.Symlink("f00.txt", filepath.Join(dir, "d0", "link")))
	g("add", "-A")
	g("commit", "-qm", "one")
	r := open(t, dir)
	base, err := r.Head()
	must(t, err)
	must(t, gitfixture.WriteFile(dir, paths[1], "v2"))    // committed
	must(t, os.Remove(filepath.Join(dir, paths[2])))      // removal committed
	must(t, gitfixture.WriteFile(dir, "d9/new.txt", "n")) // added
	must(t, os.Remove(filepath.Join(dir, "d0", "link")))
	must(t, os.Symlink("f04.txt", filepath.Join(dir, "d0", "link"))) // retargeted
	g("add", "-A")
	g("commit", "-qm", "two")
	must(t, gitfixture.WriteFile(dir, paths[3], "edited")) // not committed
	asked := append([]string{"d9/new.txt", "d0/link", "d0", "nowhere.txt"}, paths...)
	want, err := r.CompareWith(base, asked, CompareOptions{})
	must(t, err)
	idx := r.IndexFor(asked, len(asked))
	if idx == nil || idx.heads == nil {
		t.Fatalf("IndexFor after a commit: index read %v, HEAD's blobs none", idx != nil)
	}
	got, err := r.CompareWith(base, asked, CompareOptions{Index: idx})
	must(t, err)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("with the index's HEAD:\n%+v\nwant\n%+v", got, want)
	}
	g("add", paths[3])
	if idx := r.IndexFor(asked, len(asked)); idx == nil || idx.heads != nil {
		t.Errorf("IndexFor with a staged change: index read %v, HEAD's blobs taken from it %v", idx != nil, idx != nil && idx.heads != nil)
	}
}

// The cache-tree is read from any truncation of a real index, and from
// random bytes after its entries, without a panic; only the whole index
// gives HEAD's tree.
func TestRootCacheTreeHostile(t *testing.T) {
	dir, paths := indexRepo(t, 70)
	b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	must(t, err)
	r := open(t, dir)
	head, err := r.headLinks()
	must(t, err)
	want := map[string]bool{paths[0]: true}
	read := func(c []byte) plumbing.Hash {
		rd := bufio.NewReader(bytes.NewReader(c))
		sc := indexScratch{heads: map[string]plumbing.Hash{}}
		if parseIndexWith(rd, want, ^uint32(0), 0, &sc) == nil || sc.noTree {
			return plumbing.ZeroHash
		}
		return rootCacheTree(rd)
	}
	if got := read(b); got != head.tree {
		t.Skipf("this git wrote no cache-tree (%s, HEAD's tree %s)", got, head.tree)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for n := 0; n < len(b); n++ {
		if got := read(b[:n]); !got.IsZero() && got != head.tree {
			t.Fatalf("truncated at %d: tree %s", n, got)
		}
		c := append([]byte(nil), b...)
		for k := 0; k < 4; k++ {
			c[n+rng.IntN(len(c)-n)] = byte(rng.IntN(256))
		}
		read(c)
	}
}

// The cache-tree's folders are named by their full path (pre-order, with
// invalid folders, which have no tree, in between), only the wanted ones
// kept; a malformed extension gives what came before it.
func TestParseCacheTree(t *testing.T) {
	h := func(b byte) []byte { return bytes.Repeat([]byte{b}, 20) }
	var ext []byte
	add := func(name, counts string, tree []byte) {
		ext = append(append(append(append(ext, name...), 0), counts...), '\n')
		ext = append(ext, tree...)
	}
	add("", "9 2", h(1))
	add("a", "-1 1", nil)
	add("b", "3 0", h(2))
	add("c", "4 1", h(3))
	add("d", "4 0", h(4))
	all := map[string]bool{"a": true, "a/b": true, "c": true, "c/d": true}
	for _, tc := range []struct {
		name string
		ext  []byte
		want map[string]bool
		root bool
		dirs map[string]byte
	}{
		{"whole", ext, all, true, map[string]byte{"a/b": 2, "c": 3, "c/d": 4}},
		{"some", ext, map[string]bool{"c/d": true}, true, map[string]byte{"c/d": 4}},
		{"cut", ext[:len(ext)-10], all, true, map[string]byte{"a/b": 2, "c": 3}},
		{"root only", ext[:25], all, true, nil},
		{"bad count", bytes.Replace(ext, []byte("3 0"), []byte("3 x"), 1), all, true, nil},
	} {
		root, dirs := parseCacheTree(bufio.NewReader(bytes.NewReader(tc.ext)), len(tc.ext), tc.want)
		if (root == plumbing.Hash(h(1))) != tc.root {
			t.Errorf("%s: root %s", tc.name, root)
		}
		want := map[string]plumbing.Hash{}
		for d, b := range tc.dirs {
			want[d] = plumbing.Hash(h(b))
		}
		if len(dirs) != len(want) || (len(want) > 0 && !reflect.DeepEqual(dirs, want)) {
			t.Errorf("%s: dirs %v, want %v", tc.name, dirs, want)
		}
	}
}
