package gitobj

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestPackReaderMatchesGoGit repacks a history with the git binary (deltas
// included) and checks that every object the pack reader returns is byte
// for byte go-git's, mapped and read with pread.
func TestPackReaderMatchesGoGit(t *testing.T) {
	dir, g := gitDir(t)
	text := ""
	for i := 0; i < 12; i++ {
		text += fmt.Sprintf("line %d of a file that grows a little with each commit\n", i)
		must(t, os.MkdirAll(filepath.Join(dir, "src", "app"), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "src", "app", "main.go"), []byte(text), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("notes%d.txt", i%3)), []byte(text+"notes\n"), 0o644))
		g("add", "-A")
		g("commit", "-qm", fmt.Sprint("commit ", i))
	}
	g("repack", "-adqf", "--depth=50", "--window=250")
	s := openStore(t, dir)
	out, err := exec.Command("git", "-C", dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").Output()
	must(t, err)
	hashes := strings.Fields(string(out))
	if len(hashes) == 0 {
		t.Fatal("no objects")
	}
	checkAll := func(mode string) {
		for _, h := range hashes {
			oh := plumbing.NewHash(h)
			got, err := s.EncodedObject(plumbing.AnyObject, oh)
			must(t, err)
			if _, ok := got.(*packedObject); !ok {
				t.Fatalf("%s: %s not read from the pack", mode, h)
			}
			want, err := s.EncodedObjectStorer.EncodedObject(plumbing.AnyObject, oh)
			must(t, err)
			rd, err := want.Reader()
			must(t, err)
			wantData, err := io.ReadAll(rd)
			must(t, err)
			if got.Type() != want.Type() || !bytes.Equal(got.(*packedObject).data, wantData) || got.Hash() != oh {
				t.Fatalf("%s: %s: pack reader gives %s %q, go-git %s %q", mode, h, got.Type(), got.(*packedObject).data, want.Type(), wantData)
			}
			if got.Type() != plumbing.CommitObject {
				if _, err := s.EncodedObject(plumbing.CommitObject, oh); !errors.Is(err, plumbing.ErrObjectNotFound) {
					t.Fatalf("%s: %s as a commit: %v, want ErrObjectNotFound", mode, h, err)
				}
			}
		}
	}
	checkAll("mapped")
	for _, p := range s.packs {
		if p.data == nil {
			t.Errorf("pack %s not mapped", p.name)
		}
	}
	// The same through pread, as when a pack cannot be mapped.
	s.mu.Lock()
	for _, p := range s.packs {
		if p.unmapP != nil {
			must(t, p.unmapP())
			p.unmapP, p.data = nil, nil
		}
		p.pack, err = s.FS.Open(p.name)
		must(t, err)
	}
	s.cache = newOffsetCache(cacheBytes)
	s.mu.Unlock()
	checkAll("pread")
}

// TestApplyDelta feeds well-formed and hostile deltas: never a panic, and an
// over-size target is ErrObjectTooLarge, found before anything is built.
func TestApplyDelta(t *testing.T) {
	src := []byte("hello, world")
	tests := []struct {
		name    string
		delta   []byte
		want    string
		wantErr bool
		notHere bool
	}{
		{name: "copy and insert", delta: []byte{12, 8, 0x90, 5, 3, '!', '!', '!'}, want: "hello!!!"},
		{name: "copy with offset", delta: []byte{12, 5, 0x91, 7, 5}, want: "world"},
		{name: "wrong base size", delta: []byte{11, 5, 0x91, 7, 5}, wantErr: true},
		{name: "copy past base", delta: []byte{12, 5, 0x91, 10, 5}, wantErr: true},
		{name: "copy past target", delta: []byte{12, 2, 0x90, 5}, wantErr: true},
		{name: "insert past delta", delta: []byte{12, 5, 9, 'a'}, wantErr: true},
		{name: "opcode zero", delta: []byte{12, 1, 0}, wantErr: true},
		{name: "short result", delta: []byte{12, 9, 0x90, 5}, wantErr: true},
		{name: "truncated copy", delta: []byte{12, 5, 0x91}, wantErr: true},
		{name: "empty", delta: nil, wantErr: true},
		{name: "huge target", delta: []byte{12, 0xff, 0xff, 0xff, 0xff, 0x7f}, wantErr: true, notHere: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyDelta(src, tt.delta, MaxPackedObject)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.notHere != errors.Is(err, ErrObjectTooLarge) {
				t.Fatalf("err = %v, ErrObjectTooLarge wanted: %v", err, tt.notHere)
			}
			if err == nil && string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPackFind builds a large index in memory (buckets of ~80 hashes, where
// the interpolation probes run) and looks up every hash and near misses.
func TestPackFind(t *testing.T) {
	const n = 20000
	rng := rand.New(rand.NewPCG(3, 4))
	hashes := make([]plumbing.Hash, n)
	for i := range hashes {
		for j := range hashes[i] {
			hashes[i][j] = byte(rng.IntN(256))
		}
	}
	hashes[1] = hashes[0]
	hashes[1][19] ^= 1 // two hashes that differ only in the last byte
	hashes[2] = hashes[0]
	hashes[2][8] ^= 0x80 // and one that differs after the first 8 bytes
	sort.Slice(hashes, func(i, j int) bool { return bytes.Compare(hashes[i][:], hashes[j][:]) < 0 })
	idx := make([]byte, idxHeaderLen+n*28+40)
	copy(idx, []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2})
	p := &packFile{idx: idx, n: n, off32: idxHeaderLen + n*24}
	for i, h := range hashes {
		copy(idx[idxHeaderLen+i*20:], h[:])
		binary.BigEndian.PutUint32(idx[p.off32+4*i:], uint32(1000+i))
		for b := int(h[0]); b < 256; b++ {
			p.fanout[b]++
		}
	}
	for i, h := range hashes {
		off, ok := p.find(h)
		if !ok || off != int64(1000+i) {
			t.Fatalf("find %s = %d, %v; want %d", h, off, ok, 1000+i)
		}
		miss := h
		miss[19] ^= 0x55
		if j := sort.Search(n, func(k int) bool { return bytes.Compare(hashes[k][:], miss[:]) >= 0 }); j < n && hashes[j] == miss {
			continue
		}
		if _, ok := p.find(miss); ok {
			t.Fatalf("find %s: found an absent hash", miss)
		}
	}
}

// TestMappedPackHostile reads objects at every offset of a mapped pack full
// of random bytes (and of headers cut by the end of the pack): errors, never
// a panic, whatever the offset.
func TestMappedPackHostile(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := 0; round < 20; round++ {
		data := make([]byte, 64+rng.IntN(200))
		for i := range data {
			data[i] = byte(rng.IntN(256))
		}
		if round%2 == 0 { // long headers: size and offset bytes with the high bit set
			for i := 12; i < len(data)-20; i++ {
				data[i] |= 0x80
			}
		}
		n := len(data) - 12
		hashes := make([]plumbing.Hash, n)
		for i := range hashes {
			for j := range hashes[i] {
				hashes[i][j] = byte(rng.IntN(256))
			}
		}
		sort.Slice(hashes, func(i, j int) bool { return bytes.Compare(hashes[i][:], hashes[j][:]) < 0 })
		idx := make([]byte, idxHeaderLen+n*28+40)
		p := &packFile{name: "hostile", idx: idx, n: n, off32: idxHeaderLen + n*24, data: data, size: int64(len(data))}
		p.off64 = p.off32 + n*4
		for i, h := range hashes {
			copy(idx[idxHeaderLen+i*20:], h[:])
			binary.BigEndian.PutUint32(idx[p.off32+4*i:], uint32(12+i))
			for b := int(h[0]); b < 256; b++ {
				p.fanout[b]++
			}
		}
		s := &Store{packs: []*packFile{p}, loaded: true, cache: newOffsetCache(cacheBytes)}
		for off := int64(0); off < int64(len(data)); off++ {
			_, _, _, _ = s.read(p, off, 0, MaxPackedObject, 0)
		}
		for _, h := range hashes {
			_, _, _, _ = s.object(h, MaxPackedObject, 128)
			_, _, _, _ = s.object(h, MaxPackedObject, 0)
		}
	}
}

// TestPackFindSkewed: hashes far from uniform (clustered at one end of
// their fan-out byte, or sharing their first 8 bytes) are all found, as a
// binary search alone finds them; in an index out of order a look-up ends
// (found or not) and never reads outside the index.
func TestPackFindSkewed(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	build := func(hashes []plumbing.Hash, sorted bool) *packFile {
		if sorted {
			sort.Slice(hashes, func(i, j int) bool { return bytes.Compare(hashes[i][:], hashes[j][:]) < 0 })
		}
		n := len(hashes)
		idx := make([]byte, idxHeaderLen+n*28+40)
		p := &packFile{idx: idx, n: n, off32: idxHeaderLen + n*24}
		for i, h := range hashes {
			copy(idx[idxHeaderLen+i*20:], h[:])
			binary.BigEndian.PutUint32(idx[p.off32+4*i:], uint32(1000+i))
			for b := int(h[0]); b < 256; b++ {
				p.fanout[b]++
			}
		}
		return p
	}
	shapes := map[string]func(i int) plumbing.Hash{
		"clustered low": func(i int) plumbing.Hash {
			var h plumbing.Hash
			h[0], h[7], h[8] = 0x42, byte(i), byte(i>>8)
			binary.BigEndian.PutUint32(h[12:], rng.Uint32())
			return h
		},
		"clustered high": func(i int) plumbing.Hash {
			var h plumbing.Hash
			for j := 1; j < 7; j++ {
				h[j] = 0xff
			}
			h[0], h[7] = 0x42, byte(i)
			binary.BigEndian.PutUint32(h[16:], uint32(i))
			return h
		},
		"two ends": func(i int) plumbing.Hash {
			var h plumbing.Hash
			h[0] = 0x99
			if i%2 == 1 {
				h[1] = 0xff
			}
			binary.BigEndian.PutUint32(h[4:], uint32(i))
			return h
		},
		"same first 8 bytes": func(i int) plumbing.Hash {
			var h plumbing.Hash
			h[0], h[3] = 0x10, 0x80
			binary.BigEndian.PutUint32(h[10:], uint32(i))
			return h
		},
	}
	for name, gen := range shapes {
		hashes := make([]plumbing.Hash, 3000)
		for i := range hashes {
			hashes[i] = gen(i)
		}
		p := build(hashes, true)
		for i, h := range hashes {
			if off, ok := p.find(h); !ok || off != int64(1000+i) {
				t.Fatalf("%s: find %s = %d, %v; want %d", name, h, off, ok, 1000+i)
			}
			miss := h
			miss[19] ^= 0x55
			miss[9] ^= 0x33
			j := sort.Search(len(hashes), func(k int) bool { return bytes.Compare(hashes[k][:], miss[:]) >= 0 })
			if _, ok := p.find(miss); ok != (j < len(hashes) && hashes[j] == miss) {
				t.Fatalf("%s: find %s found %v", name, miss, ok)
			}
		}
		rng.Shuffle(len(hashes), func(i, j int) { hashes[i], hashes[j] = hashes[j], hashes[i] })
		p = build(hashes, false) // hostile: out of order
		for _, h := range hashes {
			p.find(h) // ends, and in bounds
		}
	}
}
