package gitobj

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// fuzzIndexEntry is one entry of fuzzIndex.
type fuzzIndexEntry struct {
	name  string
	mode  uint32
	flags uint16
	ext   uint16 // written when flags has 0x4000
	mtime uint32
}

// fuzzIndex builds a git index of the given version with its entries, then
// a cache-tree extension whose folders are given in pre-order as
// "name entries subtrees" (entries -1: invalid, no hash).
func fuzzIndex(version uint32, entries []fuzzIndexEntry, tree []string) []byte {
	be := binary.BigEndian
	b := []byte("DIRC")
	b = be.AppendUint32(b, version)
	b = be.AppendUint32(b, uint32(len(entries)))
	for i, e := range entries {
		start := len(b)
		var fixed [62]byte
		be.PutUint32(fixed[8:], e.mtime)
		be.PutUint32(fixed[20:], uint32(i+1))
		be.PutUint32(fixed[24:], e.mode)
		be.PutUint32(fixed[36:], uint32(len(e.name)))
		for j := 40; j < 60; j++ {
			fixed[j] = byte(i + 1)
		}
		be.PutUint16(fixed[60:], e.flags|uint16(min(len(e.name), 0xfff)))
		b = append(b, fixed[:]...)
		if e.flags&0x4000 != 0 {
			b = be.AppendUint16(b, e.ext)
		}
		b = append(b, e.name...)
		size := (len(b) - start + 8) &^ 7
		b = append(b, make([]byte, size-(len(b)-start))...)
	}
	if tree != nil {
		var ext []byte
		for k, line := range tree {
			f := strings.Fields(line + " ")
			name := ""
			if len(f) == 3 {
				name, f = f[0], f[1:]
			}
			ext = append(ext, name+"\x00"+f[0]+" "+f[1]+"\n"...)
			if !strings.HasPrefix(f[0], "-") {
				ext = append(ext, bytes.Repeat([]byte{byte(0xa0 + k)}, 20)...)
			}
		}
		b = append(b, "TREE"...)
		b = be.AppendUint32(b, uint32(len(ext)))
		b = append(b, ext...)
	}
	return append(b, make([]byte, 20)...) // the checksum
}

// FuzzParseIndex: the streamed index parser (reading through a small
// buffer, so that long paths span reads) agrees with the whole-buffer
// parser it replaced, and the cache-tree after it gives the same root
// whether folders are asked for or not, folders only of those asked for.
func FuzzParseIndex(f *testing.F) {
	entries := []fuzzIndexEntry{
		{name: "README.md", mode: 0o100644},
		{name: "docs/a.md", mode: 0o100644},
		{name: "docs/stories/" + strings.Repeat("long-", 8) + ".md", mode: 0o100644},
		{name: "link", mode: 0o120000},
		{name: "staged", mode: 0o100644, flags: 0x1000},
		{name: "src/x.go", mode: 0o100755, mtime: 5},
	}
	tree := []string{" 6 2", "docs 2 1", "stories 1 0", "src -1 0"}
	v3 := append([]fuzzIndexEntry(nil), entries...)
	v3[1].flags, v3[1].ext = 0x4000, 0x2000 // intent-to-add
	v3[5].flags = 0x4000
	want := "README.md,docs/a.md,src/x.go,link,staged," + entries[2].name
	{ // the seeds are well formed
		b := fuzzIndex(2, entries, tree)
		wantSet := map[string]bool{}
		for _, p := range strings.Split(want, ",") {
			wantSet[p] = true
		}
		rd := bufio.NewReader(bytes.NewReader(b))
		got := parseIndexFrom(rd, wantSet, 10, 0)
		root, dirs := readCacheTree(rd, map[string]bool{"docs": true, "docs/stories": true, "src": true})
		if len(got) != 4 || root.IsZero() || len(dirs) != 2 {
			f.Fatalf("seed index: %d entries, root %s, folders %v", len(got), root, dirs)
		}
	}
	for _, b := range [][]byte{fuzzIndex(2, entries, tree), fuzzIndex(3, v3, tree), fuzzIndex(2, entries, nil), fuzzIndex(2, nil, []string{" -1 0"})} {
		for n := 0; n <= len(b); n += 1 + n/8 {
			f.Add(b[:n], want, "docs,docs/stories,src", uint32(10), uint32(0))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, wantPaths, wantDirs string, sec, nsec uint32) {
		if len(b) > 8192 {
			return
		}
		wantSet := map[string]bool{}
		for _, p := range strings.Split(wantPaths, ",") {
			wantSet[p] = true
		}
		got := parseIndexFrom(bufio.NewReaderSize(bytes.NewReader(b), 16), wantSet, sec, nsec)
		ref := parseIndexBuffer(b, wantSet, sec, nsec)
		if !reflect.DeepEqual(got, ref) {
			t.Fatalf("streamed parser %v, whole-buffer parser %v", got, ref)
		}
		for p, e := range got {
			if !wantSet[p] || e.Stat.MtimeSec > sec {
				t.Fatalf("entry %q (mtime %d) not wanted or racily clean", p, e.Stat.MtimeSec)
			}
		}
		dirSet := map[string]bool{}
		ws := newWantSet(wantSet) // the merge answers as the map, whatever the order asked in
		for _, d := range strings.Split(wantDirs, ",") {
			dirSet[d] = true
			if got := ws.has([]byte(d)); got != wantSet[d] {
				t.Fatalf("wanted %q: merged %v, the map %v", d, got, wantSet[d])
			}
		}
		cacheTree := func(dirs map[string]bool) (plumbing.Hash, map[string]plumbing.Hash) {
			rd := bufio.NewReader(bytes.NewReader(b))
			if parseIndexFrom(rd, nil, 0, 0) == nil {
				return plumbing.ZeroHash, nil
			}
			return readCacheTree(rd, dirs)
		}
		root, dirs := cacheTree(dirSet)
		root2, dirs2 := cacheTree(nil)
		if root != root2 || dirs2 != nil {
			t.Fatalf("cache-tree root %s with folders asked for, %s (and %v) without", root, root2, dirs2)
		}
		for d := range dirs {
			if !dirSet[d] || d == "" {
				t.Fatalf("cache-tree gives folder %q, not asked for", d)
			}
		}
	})
}

// fuzzGraph builds a version 1 commit-graph of the given hashes (sorted)
// whose commit i has the first parent parents[i] (graphNoParent: none).
func fuzzGraph(hashes []plumbing.Hash, parents []uint32) []byte {
	be := binary.BigEndian
	n := len(hashes)
	b := []byte{'C', 'G', 'P', 'H', 1, 1, 3, 0}
	start := uint64(graphHeaderLen + 4*graphChunkLen)
	sizes := []uint64{256 * 4, uint64(n) * 20, uint64(n) * graphDataLen}
	off := start
	for i, id := range []string{"OIDF", "OIDL", "CDAT"} {
		b = append(b, id...)
		b = be.AppendUint64(b, off)
		off += sizes[i]
	}
	b = append(b, 0, 0, 0, 0)
	b = be.AppendUint64(b, off)
	for k := 0; k < 256; k++ {
		c := 0
		for _, h := range hashes {
			if int(h[0]) <= k {
				c++
			}
		}
		b = be.AppendUint32(b, uint32(c))
	}
	for _, h := range hashes {
		b = append(b, h[:]...)
	}
	for i := range hashes {
		b = append(b, bytes.Repeat([]byte{byte(0xc0 + i)}, 20)...)
		b = be.AppendUint32(b, parents[i])
		b = be.AppendUint32(b, graphNoParent)
		b = be.AppendUint64(b, uint64(i+1)<<2)
	}
	return append(b, make([]byte, 20)...)
}

// FuzzCommitGraph: a parsed commit-graph never gives a parent outside its
// hashes, answers the same for a hash asked twice, only for hashes it
// holds, and — when its hashes are sorted as the format requires — finds
// every one of them.
func FuzzCommitGraph(f *testing.F) {
	var hashes []plumbing.Hash
	for _, s := range []string{"00", "1f", "1f01", "80", "ff"} {
		hashes = append(hashes, plumbing.NewHash(s+strings.Repeat("0", 40-len(s))))
	}
	if g := parseCommitGraph(fuzzGraph(hashes, []uint32{graphNoParent, 0, 1, 2, 3})); g == nil || g.n != len(hashes) {
		f.Fatal("seed commit-graph not read")
	} else if _, parent, ok := g.Links(hashes[2]); !ok || parent != hashes[1] {
		f.Fatalf("seed commit-graph: parent %v %v", parent, ok)
	}
	for _, b := range [][]byte{
		fuzzGraph(hashes, []uint32{graphNoParent, 0, 1, 2, 3}),
		fuzzGraph(hashes, []uint32{4, 9, graphNoParent, 0x7fffffff, 0}),
		fuzzGraph(nil, nil),
	} {
		for n := 0; n <= len(b); n += 1 + n/6 {
			f.Add(b[:n], hashes[2][:])
		}
	}
	f.Fuzz(func(t *testing.T, b, probe []byte) {
		if len(b) > 1<<14 {
			return
		}
		g := parseCommitGraph(b)
		if g == nil {
			return
		}
		held := map[plumbing.Hash]bool{}
		sorted := true
		for i := 0; i < g.n; i++ {
			var h plumbing.Hash
			copy(h[:], g.oids[i*20:])
			held[h] = true
			if i > 0 && bytes.Compare(g.oids[(i-1)*20:i*20], h[:]) >= 0 {
				sorted = false
			}
		}
		fanoutOK := true
		for k := 0; k < 256 && sorted; k++ {
			c := 0
			for h := range held {
				if int(h[0]) <= k {
					c++
				}
			}
			fanoutOK = fanoutOK && binary.BigEndian.Uint32(g.fanout[4*k:]) == uint32(c)
		}
		var extra plumbing.Hash
		copy(extra[:], probe)
		asks := []plumbing.Hash{extra}
		for h := range held {
			asks = append(asks, h)
		}
		for _, h := range asks {
			tr, pa, ok := g.Links(h)
			tr2, pa2, ok2 := g.Links(h)
			if tr != tr2 || pa != pa2 || ok != ok2 {
				t.Fatalf("links(%s) = %v %v %v, then %v %v %v", h, tr, pa, ok, tr2, pa2, ok2)
			}
			if !ok {
				if sorted && fanoutOK && held[h] {
					if i, found := g.find(h); !found {
						t.Fatalf("a sorted graph does not find %s (find %d)", h, i)
					}
				}
				continue
			}
			if !held[h] {
				t.Fatalf("links(%s) = %v %v for a hash the graph does not hold", h, tr, pa)
			}
			if !pa.IsZero() && !held[pa] {
				t.Fatalf("links(%s) gives a parent %s outside the graph", h, pa)
			}
			if i, found := g.find(h); !found || !bytes.Equal(g.oids[i*20:i*20+20], h[:]) {
				t.Fatalf("find(%s) = %d %v", h, i, found)
			}
		}
	})
}
