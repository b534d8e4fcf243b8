package attacktest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"crypto/sha1"
	binenc "encoding/binary"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Delta fan sizes: a base blob bigger than anything read whole, and
// enough small blobs stored as deltas over it that rebuilding the base for
// each one runs far past the time bound (the attack: 4,000 deltas over a
// 64 MiB base in a 217 KB pack, killed after 300 s).
const (
	fanBase    = 64 << 20
	fanStories = 400
)

// packWriter writes a pack file, hashing what it writes for the trailer.
type packWriter struct {
	w   *bufio.Writer
	h   hash.Hash
	off int64
	z   *zlib.Writer // reset for each object (a new one per object cost seconds under -race)
	buf bytes.Buffer
}

func (p *packWriter) write(b []byte) {
	p.w.Write(b)
	p.h.Write(b)
	p.off += int64(len(b))
}

// header writes an object header: type and inflated size.
func (p *packWriter) header(typ int, size int64) {
	b := byte(typ<<4) | byte(size&0x0f)
	size >>= 4
	var out []byte
	for size != 0 {
		out = append(out, b|0x80)
		b = byte(size & 0x7f)
		size >>= 7
	}
	p.write(append(out, b))
}

// deflate writes data zlib-compressed.
func (p *packWriter) deflate(data io.Reader) {
	p.buf.Reset()
	if p.z == nil {
		p.z, _ = zlib.NewWriterLevel(&p.buf, zlib.BestSpeed)
	} else {
		p.z.Reset(&p.buf)
	}
	io.Copy(p.z, data)
	p.z.Close()
	p.write(p.buf.Bytes())
}

// deltaVarint is the size encoding of a delta's header.
func deltaVarint(n int64) []byte {
	var out []byte
	for {
		b := byte(n & 0x7f)
		n >>= 7
		if n == 0 {
			return append(out, b)
		}
		out = append(out, b|0x80)
	}
}

// writeFanPack writes a pack of one fanBase-byte blob and fanStories
// OFS_DELTA blobs over it, each a small story inserted whole, and indexes it
// with git. It returns each story's committed content.
func writeFanPack(t *testing.T, e *env) []string {
	t.Helper()
	dir := filepath.Join(e.repo, ".git", "objects", "pack")
	tmp := filepath.Join(dir, "tmp-fan.pack")
	f, err := os.Create(tmp)
	if err != nil {
		t.Fatal(err)
	}
	p := &packWriter{w: bufio.NewWriter(f), h: sha1.New()}
	hdr := []byte("PACK\x00\x00\x00\x02")
	hdr = binenc.BigEndian.AppendUint32(hdr, uint32(1+fanStories))
	p.write(hdr)
	baseOff := p.off
	p.header(3, fanBase) // OBJ_BLOB
	p.write(fanBaseDeflated(t))
	var stories []string
	for i := range fanStories {
		text := fmt.Sprintf("# Story %d.1: S\n**Status:** InProgress\n", i+1)
		stories = append(stories, text)
		delta := append(deltaVarint(fanBase), deltaVarint(int64(len(text)))...)
		delta = append(delta, byte(len(text)))
		delta = append(delta, text...)
		objOff := p.off
		p.header(6, int64(len(delta))) // OBJ_OFS_DELTA
		rel := objOff - baseOff
		enc := []byte{byte(rel & 0x7f)}
		for rel >>= 7; rel != 0; rel >>= 7 {
			rel--
			enc = append([]byte{byte(0x80 | rel&0x7f)}, enc...)
		}
		p.write(enc)
		p.deflate(bytes.NewReader(delta))
	}
	sum := p.h.Sum(nil)
	p.w.Write(sum)
	if err := p.w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, fmt.Sprintf("pack-%x.pack", sum))
	if err := os.Rename(tmp, name); err != nil {
		t.Fatal(err)
	}
	e.git(nil, "index-pack", name)
	// git read the base whole: it is fanBase zero bytes
	base := sha1.New()
	fmt.Fprintf(base, "blob %d\x00", fanBase)
	if _, err := io.Copy(base, io.LimitReader(zeros{}, fanBase)); err != nil {
		t.Fatal(err)
	}
	if got := e.git(nil, "cat-file", "-s", fmt.Sprintf("%x", base.Sum(nil))); got != fmt.Sprint(fanBase) {
		t.Fatalf("the pack's base blob is %s bytes, want %d zero bytes", got, fanBase)
	}
	return stories
}

// fanBaseDeflated is the pack's base blob, fanBase zero bytes, zlib
// compressed as writeFanPack once compressed them itself
// (zlib.BestSpeed): compressing 64 MiB took seconds under -race; the
// fixture is those 81,434 bytes, gzipped (448 bytes). Made with
//
//	z, _ := zlib.NewWriterLevel(w, zlib.BestSpeed)
//	io.Copy(z, io.LimitReader(zeros{}, fanBase)); z.Close()
//
// then gzip -9 -n. writeFanPack checks that git reads it as fanBase zero
// bytes.
func fanBaseDeflated(t *testing.T) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "fan-base.zlib.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(io.LimitReader(zr, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// zeros reads as endless zero bytes.
type zeros struct{}

func (zeros) Read(b []byte) (int, error) { clear(b); return len(b), nil }

// A pack of small blobs stored as deltas over one huge base: each read of
// one rebuilt the base again (4,000 × 64 MiB: killed after 300 s). Delta
// resolution is bounded in total work, not only in depth: with every story
// changed since the commit (so its committed text is read to compare),
// status and a dry run answer within the bounds.
func TestAttackDeltaFan(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	needGit(t)
	e.git(nil, "init", "-q", "-b", "main")
	stories := writeFanPack(t, e)
	var index strings.Builder
	for i, s := range stories {
		sum := sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(s), s)))
		fmt.Fprintf(&index, "100644 %x\tdocs/stories/%d.1.s.md\n", sum, i+1)
	}
	e.git([]byte(index.String()), "update-index", "--add", "--index-info")
	tree := e.git(nil, "write-tree")
	c := e.git(nil, "commit-tree", tree, "-m", "stories")
	e.git(nil, "update-ref", "refs/heads/main", c)
	// an epic interrupted after the commit, whose stories all changed since:
	// each story's text at the interruption is read from the pack to compare
	var epic strings.Builder
	epic.WriteString("epic_state:\n  epicId: FAN\n  status: paused\n  updatedAt: '2026-11-20T10:00:00Z'\n  currentWave: 1\n  waves:\n    - wave: 1\n      status: in_progress\n      stories:\n")
	later := commitTime.Add(2 * time.Hour)
	for i, s := range stories {
		rel := fmt.Sprintf("docs/stories/%d.1.s.md", i+1)
		e.write(rel, []byte(s+"\n## Dev Notes\nchanged since\n"))
		if err := os.Chtimes(filepath.Join(e.repo, rel), later, later); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&epic, "        - {id: '%d.1', status: in_progress, path: %s}\n", i+1, rel)
	}
	e.write(".aiox/epic-FAN-state.yaml", []byte(epic.String()))
	r := e.run("status")
	wantCode(t, r, 0)
	wantOut(t, r, "epic:FAN")
	r = e.run("status", "--all", "--json")
	wantCode(t, r, 0)
	// the committed texts were read (through the deltas) and compared
	r = e.run("resume", "--mode", "autopilot", "--dry-run", "--json", "epic:FAN")
	wantOut(t, r, "(Dev Notes section updated)")
	r = e.run("resume", "--mode", "autopilot", "--dry-run", "epic:FAN")
	if r.code != 0 && r.code != 17 {
		t.Errorf("%s: want exit 0 or 17 (an answer)", r)
	}
}
