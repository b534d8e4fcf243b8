package gitobj

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// fuzzMax caps what the fuzz targets let an input announce, so that every
// input runs in microseconds.
const fuzzMax = 1 << 16

// deltaOf builds a git delta from src: its sizes, then ops as given.
func deltaOf(srcLen, dstLen int, ops ...byte) []byte {
	d := binary.AppendUvarint(nil, uint64(srcLen))
	d = binary.AppendUvarint(d, uint64(dstLen))
	return append(d, ops...)
}

// FuzzApplyDelta: applyDelta gives an object of exactly the announced size
// or an error (errNotHere only for a size over its limit), and agrees with
// go-git's patcher whenever both succeed.
func FuzzApplyDelta(f *testing.F) {
	src := []byte("hello, world")
	seeds := [][]byte{
		deltaOf(12, 8, 0x90, 5, 3, '!', '!', '!'),
		deltaOf(12, 5, 0x91, 7, 5),
		deltaOf(12, 12, 0x90, 12),
		deltaOf(12, 2, 0x90, 5),
		deltaOf(12, 1, 0),
		deltaOf(12, 0x10000, 0x80),
		{12, 0xff, 0xff, 0xff, 0xff, 0x7f},
	}
	for _, d := range seeds {
		for n := 0; n <= len(d); n++ {
			f.Add(src, d[:n], uint16(fuzzMax-1))
		}
	}
	f.Fuzz(func(t *testing.T, src, delta []byte, max uint16) {
		if len(src) > fuzzMax || len(delta) > fuzzMax {
			return
		}
		got, err := applyDelta(src, delta, uint64(max))
		var announced uint64
		if srcSize, n := binary.Uvarint(delta); n > 0 && srcSize == uint64(len(src)) {
			announced, n = binary.Uvarint(delta[n:])
			if n <= 0 && err == nil {
				t.Fatalf("a delta with no target size applied")
			}
		}
		if errors.Is(err, ErrObjectTooLarge) {
			if announced <= uint64(max) {
				t.Fatalf("ErrObjectTooLarge for a target of %d bytes (max %d)", announced, max)
			}
			return
		}
		if err != nil {
			return
		}
		if uint64(len(got)) != announced || announced > uint64(max) {
			t.Fatalf("built %d bytes, announced %d (max %d)", len(got), announced, max)
		}
		if want, gerr := packfile.PatchDelta(src, delta); gerr == nil && !bytes.Equal(got, want) {
			t.Fatalf("applyDelta = %q, go-git %q", got, want)
		}
	})
}

// packObject is the pack encoding of an object: its header, an offset
// delta's base distance (rel > 0), then content deflated.
func packObject(typ plumbing.ObjectType, rel int64, content []byte) []byte {
	b := packHeader(typ, uint64(len(content)))
	if rel > 0 {
		var o []byte
		o = append(o, byte(rel&0x7f))
		for rel >>= 7; rel > 0; rel >>= 7 {
			rel--
			o = append([]byte{0x80 | byte(rel&0x7f)}, o...)
		}
		b = append(b, o...)
	}
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	_, _ = w.Write(content)
	_ = w.Close()
	return append(b, z.Bytes()...)
}

// packHeader is the shortest pack encoding of an object's type and size.
func packHeader(typ plumbing.ObjectType, size uint64) []byte {
	c := byte(typ&7)<<4 | byte(size&0x0f)
	size >>= 4
	var b []byte
	for size > 0 {
		b = append(b, c|0x80)
		c = byte(size & 0x7f)
		size >>= 7
	}
	return append(b, c)
}

// fuzzPack is a pack of a blob, an offset delta on it and a commit, with
// no index (a base named by hash is never found).
func fuzzPack() []byte {
	p := []byte("PACK\x00\x00\x00\x02\x00\x00\x00\x03")
	blob := packObject(plumbing.BlobObject, 0, []byte("hello, world"))
	p = append(p, blob...)
	p = append(p, packObject(plumbing.OFSDeltaObject, int64(len(blob)), deltaOf(12, 8, 0x90, 5, 3, '!', '!', '!'))...)
	p = append(p, packObject(plumbing.CommitObject, 0, []byte("tree "+plumbing.ZeroHash.String()+"\n\nx\n"))...)
	return append(p, make([]byte, 20)...)
}

// FuzzPackRead reads the object at an offset of a pack: the object header
// parses back as it was encoded and never claims more bytes than it has,
// the mapped and the pread paths give the same answer, a whole object has
// the size its header announces, and a second (cached) read agrees.
func FuzzPackRead(f *testing.F) {
	pack := fuzzPack()
	for _, off := range []uint16{12, 12 + uint16(len(packObject(plumbing.BlobObject, 0, []byte("hello, world")))), 0, 40} {
		f.Add(pack, off)
	}
	for n := 12; n < len(pack); n += 7 {
		f.Add(pack[:n], uint16(12))
	}
	f.Add([]byte("PACK\x00\x00\x00\x02\x00\x00\x00\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"), uint16(12))
	f.Fuzz(func(t *testing.T, data []byte, off uint16) {
		if len(data) > 4096 {
			return
		}
		// the header on its own
		typ, size, i, err := objectHeader(data)
		if err == nil {
			if i < 1 || i > len(data) || i > 10 {
				t.Fatalf("objectHeader took %d of %d bytes", i, len(data))
			}
			enc := packHeader(typ, size)
			if t2, s2, i2, err2 := objectHeader(enc); err2 != nil || t2 != typ || s2 != size || i2 != len(enc) {
				t.Fatalf("%v %d encodes as %x, parsed back as %v %d %d %v", typ, size, enc, t2, s2, i2, err2)
			}
			if t2, s2, i2, err2 := objectHeader(data[:i]); err2 != nil || t2 != typ || s2 != size || i2 != i {
				t.Fatalf("the header alone parses as %v %d %d %v, within the data %v %d %d", t2, s2, i2, err2, typ, size, i)
			}
		}
		if rel, n, err := deltaOffset(data); err == nil && (n < 1 || n > len(data) || rel < 0) {
			t.Fatalf("deltaOffset = %d over %d bytes of %d", rel, n, len(data))
		}

		if len(data) < 32 {
			return
		}
		mapped := &packFile{name: "fuzz", data: data, size: int64(len(data)), idx: make([]byte, idxHeaderLen+40), off32: idxHeaderLen, off64: idxHeaderLen}
		s := &Store{packs: []*packFile{mapped}, loaded: true, cache: newOffsetCache(cacheBytes)}
		mt, md, _, merr := s.read(mapped, int64(off), 0, fuzzMax, 0)

		fs := memfs.New()
		w, err := fs.Create("p.pack")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(data)
		_ = w.Close()
		file, err := fs.Open("p.pack")
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		pread := &packFile{name: "fuzz", pack: file, size: int64(len(data)), idx: mapped.idx, off32: idxHeaderLen, off64: idxHeaderLen}
		s2 := &Store{packs: []*packFile{pread}, loaded: true, cache: newOffsetCache(cacheBytes)}
		pt, pd, _, perr := s2.read(pread, int64(off), 0, fuzzMax, 0)

		if (merr == nil) != (perr == nil) || errors.Is(merr, errNotHere) != errors.Is(perr, errNotHere) {
			t.Fatalf("mapped read: %v; pread: %v", merr, perr)
		}
		if merr != nil {
			return
		}
		if mt != pt || !bytes.Equal(md, pd) {
			t.Fatalf("mapped read %v %q, pread %v %q", mt, md, pt, pd)
		}
		switch mt {
		case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
		default:
			t.Fatalf("read gives type %v", mt)
		}
		if ht, hs, _, _ := objectHeader(data[off:]); ht == mt && hs != uint64(len(md)) {
			t.Fatalf("a whole object of %d bytes announced %d", len(md), hs)
		}
		if ct, cd, _, cerr := s.read(mapped, int64(off), 0, fuzzMax, 0); cerr != nil || ct != mt || !bytes.Equal(cd, md) {
			t.Fatalf("cached read %v %q %v, first %v %q", ct, cd, cerr, mt, md)
		}
	})
}
