package gitobj

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"io"
	"math/rand"
	"testing"
)

// zlibInflate is the reader inflate replaced: io.ReadFull of size bytes
// over compress/zlib. inflate must give the same bytes, the same error and
// leave src where this leaves it.
func zlibInflate(src flate.Reader, size int) ([]byte, error) {
	zr, err := zlib.NewReader(src)
	if err != nil {
		return nil, err
	}
	out := make([]byte, size)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, err
	}
	return out, nil
}

// zlibOf compresses data at level, with a preset dictionary's id when
// dictID is set.
func zlibOf(t testing.TB, data []byte, level int) []byte {
	var b bytes.Buffer
	w, err := zlib.NewWriterLevel(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// inflateSeeds are zlib streams of every kind of deflate block, whole and
// damaged.
func inflateSeeds(t testing.TB) [][]byte {
	rnd := rand.New(rand.NewSource(1))
	text := bytes.Repeat([]byte("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent "), 40)
	noise := make([]byte, 3000)
	rnd.Read(noise)
	var seeds [][]byte
	for _, data := range [][]byte{nil, []byte("a"), text, noise} {
		for _, level := range []int{zlib.NoCompression, zlib.BestSpeed, zlib.DefaultCompression, zlib.HuffmanOnly} {
			z := zlibOf(t, data, level)
			seeds = append(seeds, z)
			bad := bytes.Clone(z)
			bad[len(bad)-1] ^= 1 // the checksum
			seeds = append(seeds, bad, z[:len(z)-2], z[:len(z)/2])
			if len(z) > 6 {
				mid := bytes.Clone(z)
				mid[len(mid)/2] ^= 0x55
				seeds = append(seeds, mid)
			}
		}
	}
	// a preset dictionary: the empty one's id (zlib takes it), another's
	dict := append([]byte{0x78, 0xbb}, 0, 0, 0, 1)
	dict = append(dict, zlibOf(t, []byte("abc"), zlib.BestSpeed)[2:]...)
	seeds = append(seeds, dict, append([]byte{0x78, 0xbb, 0, 0, 0, 2}, dict[6:]...), dict[:4])
	return append(seeds, nil, []byte{0x78}, []byte{0x79, 0x9c}, []byte{0x88, 0x98})
}

func TestInflateAsZlib(t *testing.T) {
	var s Store
	for i, z := range inflateSeeds(t) {
		for _, size := range []int{0, 1, 2, 50, 2120, 2999, 3000, 3001, 4000} {
			checkInflate(t, &s, z, size, i)
		}
	}
}

// checkInflate compares inflate with zlibInflate over z for size bytes.
func checkInflate(t *testing.T, s *Store, z []byte, size, seed int) {
	t.Helper()
	wr := bytes.NewReader(z)
	wantOut, want := zlibInflate(wr, size)
	gr := bytes.NewReader(z)
	got, err := s.inflate(gr, size)
	if !bytes.Equal(got, wantOut) || (got == nil) != (wantOut == nil) {
		t.Fatalf("seed %d size %d: inflate gave %d bytes, zlib %d", seed, size, len(got), len(wantOut))
	}
	if (err == nil) != (want == nil) || err != nil && err.Error() != want.Error() {
		t.Fatalf("seed %d size %d: inflate: %v, zlib: %v", seed, size, err, want)
	}
	if err == nil && gr.Len() != wr.Len() {
		t.Fatalf("seed %d size %d: inflate left %d bytes, zlib %d", seed, size, gr.Len(), wr.Len())
	}
	// the mapped pack's way: the inflater, else compress/flate
	got, _, err = s.inflateMapped(z, size, nil)
	if !bytes.Equal(got, wantOut) || (got == nil) != (wantOut == nil) {
		t.Fatalf("seed %d size %d: inflateMapped gave %d bytes, zlib %d", seed, size, len(got), len(wantOut))
	}
	if (err == nil) != (want == nil) || err != nil && err.Error() != want.Error() {
		t.Fatalf("seed %d size %d: inflateMapped: %v, zlib: %v", seed, size, err, want)
	}
}

// FuzzInflate: inflate gives what io.ReadFull over compress/zlib gives (the
// same bytes, the same error) and reads as far.
func FuzzInflate(f *testing.F) {
	for _, z := range inflateSeeds(f) {
		f.Add(z, uint16(3000))
		f.Add(z, uint16(10))
	}
	var s Store
	f.Fuzz(func(t *testing.T, z []byte, size uint16) {
		checkInflate(t, &s, z, int(size), 0)
	})
}

func BenchmarkInflate(b *testing.B) {
	text := bytes.Repeat([]byte("100644 blob 4b825dc642cb6eb9a060e54bf8d69288fbee4904 file\x00"), 60)
	z := zlibOf(b, text, zlib.DefaultCompression)
	var s Store
	r := bytes.NewReader(z)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.Reset(z)
		if _, err := s.inflate(r, len(text)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkInflateMapped(b *testing.B) {
	text := bytes.Repeat([]byte("100644 blob 4b825dc642cb6eb9a060e54bf8d69288fbee4904 file\x00"), 60)
	z := zlibOf(b, text, zlib.DefaultCompression)
	var s Store
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, _, err := s.inflateMapped(z, len(text), nil); err != nil {
			b.Fatal(err)
		}
	}
}
