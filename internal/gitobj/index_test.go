package gitobj

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// A malformed index never panics: every truncation of a real one, a wrong
// signature or an unsupported version gives no entries or only whole ones.
func TestParseIndexMalformed(t *testing.T) {
	dir, paths := indexRepo(t, 3)
	b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	must(t, err)
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	far := ^uint32(0)
	if got := parseIndex(b, want, far, 0); len(got) != len(paths) {
		t.Fatalf("whole index: %d entries, want %d", len(got), len(paths))
	}
	if got := parseIndex(b, want, 0, 0); len(got) != 0 {
		t.Errorf("every entry racily clean, yet %d entries", len(got))
	}
	for n := 0; n < len(b); n++ {
		for _, e := range parseIndex(b[:n], want, far, 0) {
			if e.Hash.IsZero() {
				t.Errorf("truncated at %d: a zero hash", n)
			}
		}
	}
	for _, tc := range []struct {
		name string
		edit func([]byte)
	}{
		{"signature", func(c []byte) { c[0] = 'X' }},
		{"version 4", func(c []byte) { c[7] = 4 }},
		{"huge count", func(c []byte) { c[8], c[9] = 0x7f, 0xff }},
		{"no NUL after the name", func(c []byte) {
			for i := 12; i < len(c); i++ {
				c[i] = 'a'
			}
		}},
	} {
		c := append([]byte(nil), b...)
		tc.edit(c)
		if got := parseIndex(c, want, far, 0); got != nil {
			t.Errorf("%s: %d entries, want none", tc.name, len(got))
		}
	}
}

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
func parseIndexBuffer(b []byte, want map[string]bool, sec, nsec uint32) map[string]IndexEntry {
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return nil
	}
	be := binary.BigEndian
	version := be.Uint32(b[4:])
	if version != 2 && version != 3 {
		return nil
	}
	n := be.Uint32(b[8:])
	out := make(map[string]IndexEntry)
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
		st := IndexStat{
			CtimeSec: be.Uint32(e[0:]), CtimeNsec: be.Uint32(e[4:]),
			MtimeSec: be.Uint32(e[8:]), MtimeNsec: be.Uint32(e[12:]),
			Ino: be.Uint32(e[20:]), UID: be.Uint32(e[28:]), GID: be.Uint32(e[32:]), Size: be.Uint32(e[36:]),
		}
		if st.MtimeSec > sec || (st.MtimeSec == sec && st.MtimeNsec >= nsec) {
			continue // racily clean: the file may have changed after it was staged
		}
		var h plumbing.Hash
		copy(h[:], e[40:60])
		out[string(name)] = IndexEntry{Stat: st, Hash: h}
	}
	return out
}

// Reading the index allocates for the wanted entries only, not for each
// entry read (an index has one per tracked file).
func TestParseIndexAllocsBounded(t *testing.T) {
	dir, paths := indexRepo(t, 200)
	b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	must(t, err)
	want := map[string]bool{paths[7]: true}
	var got map[string]IndexEntry
	allocs := testing.AllocsPerRun(20, func() { got = parseIndex(b, want, ^uint32(0), 0) })
	if len(got) != 1 {
		t.Fatalf("%d entries, want 1", len(got))
	}
	if allocs > 12 {
		t.Errorf("%.0f allocations to read an index of %d entries for one path", allocs, len(paths))
	}
}

// The cache-tree is read from any truncation of a real index, and from
// random bytes after its entries, without a panic; only the whole index
// gives HEAD's tree.
func TestRootCacheTreeHostile(t *testing.T) {
	dir, paths := indexRepo(t, 70)
	b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	must(t, err)
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD^{tree}").Output()
	if err != nil {
		t.Skip("no git binary to name HEAD's tree")
	}
	headTree := plumbing.NewHash(strings.TrimSpace(string(out)))
	want := map[string]bool{paths[0]: true}
	read := func(c []byte) plumbing.Hash {
		rd := bufio.NewReader(bytes.NewReader(c))
		sc := indexScratch{heads: map[string]plumbing.Hash{}}
		if parseIndexWith(rd, want, ^uint32(0), 0, &sc) == nil || sc.noTree {
			return plumbing.ZeroHash
		}
		return rootCacheTree(rd)
	}
	if got := read(b); got != headTree {
		t.Skipf("this git wrote no cache-tree (%s, HEAD's tree %s)", got, headTree)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for n := 0; n < len(b); n++ {
		if got := read(b[:n]); !got.IsZero() && got != headTree {
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

// A mapped index has the pages it parsed dropped as it goes (a 100,000-file
// index is 12 MiB of the process's memory otherwise): what it reads is the
// same as from the bytes read, entries and the extensions after them.
func TestParseMappedIndexDropsBehind(t *testing.T) {
	be := binary.BigEndian
	const n = 40000 // ~3.5 MiB: several drops
	b := []byte("DIRC\x00\x00\x00\x02")
	b = be.AppendUint32(b, n)
	want := map[string]bool{}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("src/pkg%03d/file%05d.go", i/100, i)
		if i%997 == 0 {
			want[name] = true
		}
		e := make([]byte, 62)
		be.PutUint32(e[8:], 100) // mtime
		be.PutUint32(e[24:], 0o100644)
		e[40] = byte(i)
		be.PutUint16(e[60:], uint16(len(name)))
		e = append(e, name...)
		b = append(b, append(e, make([]byte, (62+len(name)+8)&^7-62-len(name))...)...)
	}
	b = append(b, "TREE\x00\x00\x00\x00checksum-checksum-12"...)
	p := filepath.Join(t.TempDir(), "index")
	must(t, os.WriteFile(p, b, 0o600))
	f, err := os.Open(p)
	must(t, err)
	defer f.Close()
	m, unmap, err := mmapFile(f, int64(len(b)))
	if err != nil {
		t.Skipf("no mapping here: %v", err)
	}
	defer unmap()
	sc := indexScratch{mapped: true}
	got, rest := parseIndexBytes(m, want, ^uint32(0), 0, &sc)
	if ref := parseIndexBuffer(b, want, ^uint32(0), 0); len(got) != len(want) || !reflect.DeepEqual(got, ref) {
		t.Errorf("mapped: %d entries, read: %d, want %d", len(got), len(ref), len(want))
	}
	if string(rest) != "TREE\x00\x00\x00\x00checksum-checksum-12" {
		t.Errorf("after the entries: %q", rest)
	}
	// read again after the drops: the same bytes, from the page cache
	if again, _ := parseIndexBytes(m, want, ^uint32(0), 0, &indexScratch{}); !reflect.DeepEqual(again, got) {
		t.Error("the mapping reads differently after its pages were dropped")
	}
}
