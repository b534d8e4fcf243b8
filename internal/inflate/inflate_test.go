package inflate

import (
	"bytes"
	"compress/flate"
	"io"
	"math/bits"
	"math/rand"
	"testing"
)

// flateFull is what the inflater stands in for: io.ReadFull of size bytes
// over compress/flate.
func flateFull(raw []byte, size int) ([]byte, error) {
	out := make([]byte, size)
	_, err := io.ReadFull(flate.NewReader(bytes.NewReader(raw)), out)
	return out, err
}

// checkInflater: when the inflater decodes raw, compress/flate gives the
// same bytes; when compress/flate fails, so does the inflater. want says
// whether it must decode (-1: either).
func checkInflater(t *testing.T, d *Decoder, name string, raw []byte, size int, want int) {
	t.Helper()
	got := make([]byte, size)
	ok := d.decode(raw, got)
	ref, err := flateFull(raw, size)
	switch {
	case ok && err != nil:
		t.Fatalf("%s: the inflater decoded %d bytes, compress/flate: %v", name, size, err)
	case ok && !bytes.Equal(got, ref):
		t.Fatalf("%s: the inflater and compress/flate decode different bytes", name)
	case want >= 0 && ok != (want == 1):
		t.Fatalf("%s: decoded %v, want %v (compress/flate: %v)", name, ok, want == 1, err)
	}
}

// bitWriter writes a deflate stream by hand, bits first to last.
type bitWriter struct {
	out   []byte
	nbits uint
}

func (w *bitWriter) bits(v uint, n uint) *bitWriter {
	for i := uint(0); i < n; i++ {
		if w.nbits%8 == 0 {
			w.out = append(w.out, 0)
		}
		w.out[len(w.out)-1] |= byte(v>>i&1) << (w.nbits % 8)
		w.nbits++
	}
	return w
}

// code writes a Huffman code, its first bit first.
func (w *bitWriter) code(c, n uint) *bitWriter {
	return w.bits(uint(bits.Reverse16(uint16(c)))>>(16-n), n)
}

// lit writes literal or length symbol v of the fixed code.
func (w *bitWriter) lit(v uint) *bitWriter {
	switch {
	case v < 144:
		return w.code(0x30+v, 8)
	case v < 256:
		return w.code(0x190+v-144, 9)
	case v < 280:
		return w.code(v-256, 7)
	}
	return w.code(0xc0+v-280, 8)
}

func (w *bitWriter) align() *bitWriter {
	w.nbits = (w.nbits + 7) &^ 7
	return w
}

// stored writes a stored block of data.
func (w *bitWriter) stored(final uint, data []byte) *bitWriter {
	w.bits(final, 1).bits(0, 2).align()
	w.bits(uint(len(data)), 16).bits(^uint(len(data))&0xffff, 16)
	w.out = append(w.out, data...)
	w.nbits += 8 * uint(len(data))
	return w
}

// dynamicHeader writes a dynamic block's header whose code-length code
// gives the 19 lengths cl, then the code lengths given as raw symbols of
// that code (sym, code, length, extra bits, extra length).
func dynamicHeader(final uint, nlit, ndst int, cl [19]uint) *bitWriter {
	w := new(bitWriter)
	w.bits(final, 1).bits(2, 2).bits(uint(nlit-257), 5).bits(uint(ndst-1), 5).bits(15, 4)
	for _, i := range clenOrder {
		w.bits(cl[i], 3)
	}
	return w
}

func TestInflaterBlocks(t *testing.T) {
	big := make([]byte, 32768)
	rand.New(rand.NewSource(2)).Read(big)
	var d Decoder
	for _, tc := range []struct {
		name string
		w    *bitWriter
		size int
		want int
	}{
		{"stored", new(bitWriter).stored(1, []byte("hello")), 5, 1},
		{"stored, shorter than announced", new(bitWriter).stored(1, []byte("hello")), 6, 0},
		{"stored, longer than announced", new(bitWriter).stored(1, []byte("hello")), 3, 1},
		{"stored, empty then more", new(bitWriter).stored(0, nil).stored(1, []byte("ab")), 2, 1},
		{"stored, truncated", &bitWriter{out: new(bitWriter).stored(1, []byte("hello")).out[:7]}, 5, 0},
		{"stored, truncated past the announced size", &bitWriter{out: new(bitWriter).stored(1, []byte("hello")).out[:7]}, 2, 1},
		{"stored, LEN and NLEN disagree", new(bitWriter).bits(1, 1).bits(0, 2).align().bits(5, 16).bits(5, 16), 1, 0},
		{"block type 3", new(bitWriter).bits(1, 1).bits(3, 2).bits(0, 16), 1, 0},
		{"fixed", new(bitWriter).bits(1, 1).bits(1, 2).lit('a').lit('b').lit(256), 2, 1},
		{"fixed, shorter than announced", new(bitWriter).bits(1, 1).bits(1, 2).lit('a').lit('b').lit(256), 3, 0},
		{"fixed, not final, nothing after", new(bitWriter).bits(0, 1).bits(1, 2).lit('a').lit(256), 2, 0},
		{"fixed, a run: length 258, distance 1", new(bitWriter).bits(1, 1).bits(1, 2).lit('a').lit(285).code(0, 5).lit(256), 259, 1},
		{"fixed, a run cut short", new(bitWriter).bits(1, 1).bits(1, 2).lit('a').lit(285).code(0, 5).lit(256), 100, 1},
		{"fixed, a reference before the start", new(bitWriter).bits(1, 1).bits(1, 2).lit('a').lit(257).code(1, 5).lit(256), 4, 0},
		{"fixed, distance code 30", new(bitWriter).bits(1, 1).bits(1, 2).lit('a').lit(257).code(30, 5).lit(256), 4, 0},
		{"fixed, distance code 31", new(bitWriter).bits(1, 1).bits(1, 2).lit('a').lit(257).code(31, 5).lit(256), 4, 0},
		{"fixed, length code 286", new(bitWriter).bits(1, 1).bits(1, 2).lit('a').lit(286).code(0, 5).lit(256), 4, 0},
		{"fixed, length code 287", new(bitWriter).bits(1, 1).bits(1, 2).lit('a').lit(287).code(0, 5).lit(256), 4, 0},
		{"fixed, truncated before the end of block's bits", &bitWriter{out: []byte{0x4b, 0x04}}, 1, -1},
		{"the farthest distance: 32768", new(bitWriter).stored(0, big).bits(1, 1).bits(1, 2).lit(284).bits(30, 5).code(29, 5).bits(8191, 13).lit(256), 32768 + 257, 1},
		{"distance 32768 with 32767 bytes before", new(bitWriter).stored(0, big[1:]).bits(1, 1).bits(1, 2).lit(284).bits(30, 5).code(29, 5).bits(8191, 13).lit(256), 32767 + 257, 0},
		{"distance code 29, least extra: 24577", new(bitWriter).stored(0, big).bits(1, 1).bits(1, 2).lit(258).code(29, 5).bits(0, 13).lit(256), 32768 + 4, 1},
		{"distance code 0 after stored", new(bitWriter).stored(0, []byte("xy")).bits(1, 1).bits(1, 2).lit(257).code(0, 5).lit(256), 5, 1},
	} {
		checkInflater(t, &d, tc.name, tc.w.out, tc.size, tc.want)
	}
}

// TestInflaterDynamic: dynamic blocks built by hand, the code-length code
// complete, incomplete, over-subscribed, and their literal and distance
// codes degenerate.
func TestInflaterDynamic(t *testing.T) {
	var d Decoder
	// code-length code: lengths 1 (for 0? no): symbols 1 and 18 of one bit
	// each would leave no room; use four of two bits: 0, 1, 8, 18.
	cl := [19]uint{}
	cl[0], cl[1], cl[8], cl[18] = 2, 2, 2, 2
	// canonical codes (by symbol): 0 -> 00, 1 -> 01, 8 -> 10, 18 -> 11
	clSym := map[uint][2]uint{0: {0, 2}, 1: {1, 2}, 8: {2, 2}, 18: {3, 2}}
	put := func(w *bitWriter, sym uint) *bitWriter { c := clSym[sym]; return w.code(c[0], c[1]) }
	// literal code: 'a' (97) and 256 of one bit each; one distance code of one bit.
	lits := func(w *bitWriter, ndstLen uint) *bitWriter {
		put(w, 18).bits(97-11, 7) // 97 zeros
		put(w, 1)                 // 'a'
		put(w, 18).bits(138-11, 7)
		put(w, 18).bits(158-138-11, 7) // 98..255: 158 zeros
		put(w, 1)                      // 256
		return put(w, ndstLen)         // the one distance code
	}
	good := lits(dynamicHeader(1, 257, 1, cl), 1)
	good.code(0, 1).code(0, 1).code(1, 1) // 'a', 'a', end
	checkInflater(t, &d, "dynamic", good.out, 2, 1)
	checkInflater(t, &d, "dynamic, shorter than announced", good.out, 3, 0)

	noDist := lits(dynamicHeader(1, 257, 1, cl), 0)
	noDist.code(0, 1).code(1, 1)
	checkInflater(t, &d, "dynamic, no distance code", noDist.out, 1, 1)

	over := cl
	over[2] = 2 // five codes of two bits
	checkInflater(t, &d, "over-subscribed code-length code", lits(dynamicHeader(1, 257, 1, over), 1).code(0, 1).out, 1, 0)
	incomplete := cl
	incomplete[18] = 0 // three codes of two bits
	checkInflater(t, &d, "incomplete code-length code", dynamicHeader(1, 257, 1, incomplete).bits(0, 40).out, 1, 0)

	// literal code of three one-bit codes: over-subscribed
	w := dynamicHeader(1, 257, 1, cl)
	put(w, 18).bits(97-11, 7)
	put(w, 1).code(1, 2) // 'a', 'b'
	put(w, 18).bits(138-11, 7)
	put(w, 18).bits(158-138-11-1, 7)
	put(w, 1)
	put(w, 1)
	w.bits(0, 8)
	checkInflater(t, &d, "over-subscribed literal code", w.out, 1, 0)

	// repeat code 16 first: no length to repeat (16 needs a code: none here)
	cl16 := [19]uint{}
	cl16[16], cl16[0] = 1, 1 // 0 -> 0, 16 -> 1
	w = dynamicHeader(1, 257, 1, cl16).code(1, 1).bits(0, 2).bits(0, 30)
	checkInflater(t, &d, "repeat of no length", w.out, 1, 0)

	// too many lengths: HLIT 30 (287 codes)
	w = dynamicHeader(1, 287, 1, cl).bits(0, 64)
	checkInflater(t, &d, "HLIT over 286", w.out, 1, 0)
	w = dynamicHeader(1, 257, 31, cl).bits(0, 64)
	checkInflater(t, &d, "HDIST over 30", w.out, 1, 0)
}

// TestInflaterZlibStreams: what compress/flate writes, at every level and
// every size announced around the real one, the inflater decodes as
// compress/flate does.
func TestInflaterZlibStreams(t *testing.T) {
	var d Decoder
	rnd := rand.New(rand.NewSource(3))
	for _, n := range []int{0, 1, 100, 5000, 70000} {
		data := make([]byte, n)
		for i := range data {
			data[i] = "abcdefgh\n"[rnd.Intn(9)]
		}
		for _, level := range []int{flate.NoCompression, flate.BestSpeed, 5, flate.BestCompression, flate.HuffmanOnly} {
			var b bytes.Buffer
			w, _ := flate.NewWriter(&b, level)
			w.Write(data)
			w.Close()
			for _, size := range []int{max(n-1, 0), n, n + 1} {
				want := 1
				if size > n {
					want = 0
				}
				checkInflater(t, &d, "compress/flate's", b.Bytes(), size, want)
			}
		}
	}
}

// FuzzInflater: whenever the inflater decodes a stream, compress/flate
// decodes the same bytes from it.
func FuzzInflater(f *testing.F) {
	rnd := rand.New(rand.NewSource(4))
	noise := make([]byte, 3000)
	rnd.Read(noise)
	text := bytes.Repeat([]byte("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent "), 40)
	for _, data := range [][]byte{nil, []byte("a"), text, noise} {
		for _, level := range []int{flate.NoCompression, flate.BestSpeed, flate.DefaultCompression, flate.HuffmanOnly} {
			var b bytes.Buffer
			w, _ := flate.NewWriter(&b, level)
			w.Write(data)
			w.Close()
			f.Add(b.Bytes(), uint16(len(data)))
			f.Add(b.Bytes(), uint16(40))
		}
	}
	var d Decoder
	f.Fuzz(func(t *testing.T, raw []byte, size uint16) {
		checkInflater(t, &d, "fuzz", raw, int(size), -1)
	})
}

// dynamicOf writes a dynamic block's header sending lens (nlit literal and
// length codes, then distance codes; each 0 to 3) with the code-length code
// 0 -> 00, 1 -> 01, 18 -> 10, 2 -> 110, 3 -> 111.
func dynamicOf(final uint, nlit int, lens []uint) *bitWriter {
	cl := [19]uint{}
	cl[0], cl[1], cl[18], cl[2], cl[3] = 2, 2, 2, 3, 3
	codes := [4][2]uint{{0, 2}, {1, 2}, {6, 3}, {7, 3}}
	w := dynamicHeader(final, nlit, len(lens)-nlit, cl)
	for i := 0; i < len(lens); {
		run := 0
		for i+run < len(lens) && lens[i+run] == 0 && run < 138 {
			run++
		}
		if run >= 11 {
			w.code(2, 2).bits(uint(run-11), 7)
			i += run
			continue
		}
		w.code(codes[lens[i]][0], codes[lens[i]][1])
		i++
	}
	return w
}

// TestInflaterCodes: literal and distance codes compress/flate rejects
// (incomplete, too many), and the end of block's length read first.
func TestInflaterCodes(t *testing.T) {
	var d Decoder
	lens := func(nlit, ndst int, set map[int]uint) []uint {
		l := make([]uint, nlit+ndst)
		for i, n := range set {
			l[i] = n
		}
		return l
	}
	// 'a' 0, 'b' 10, end 11; distance code 0 of one bit
	ok := lens(257, 1, map[int]uint{'a': 1, 'b': 2, 256: 2, 257: 1})
	checkInflater(t, &d, "dynamic a a b", dynamicOf(1, 257, ok).code(0, 1).code(0, 1).code(2, 2).code(3, 2).out, 3, 1)
	// incomplete literal code: 'a' 00, end 01
	inc := lens(257, 1, map[int]uint{'a': 2, 256: 2, 257: 1})
	checkInflater(t, &d, "incomplete literal code", dynamicOf(1, 257, inc).code(0, 2).code(0, 2).code(1, 2).out, 2, 0)
	// incomplete distance code: two codes of two bits
	incd := lens(257, 2, map[int]uint{'a': 1, 256: 2, 257: 2, 258: 2})
	checkInflater(t, &d, "incomplete distance code", dynamicOf(1, 257, incd).code(0, 1).code(0, 1).code(3, 2).out, 2, 0)
	// a degenerate distance code (one code of one bit) is taken: 'a' 0,
	// end 10, length 3 11; distance 1 is 0, 1 no code
	deg := lens(258, 1, map[int]uint{'a': 1, 256: 2, 257: 2, 258: 1})
	checkInflater(t, &d, "degenerate distance code, used", dynamicOf(1, 258, deg).code(0, 1).code(0, 1).code(3, 2).code(0, 1).code(2, 2).out, 5, 1)
	checkInflater(t, &d, "degenerate distance code, missing code", dynamicOf(1, 258, deg).code(0, 1).code(0, 1).code(3, 2).code(1, 1).code(2, 2).out, 5, 0)
	// 287 literal codes, 31 distance codes: over the format's
	many := lens(287, 1, map[int]uint{'a': 1, 'b': 2, 256: 2, 287: 1})
	checkInflater(t, &d, "HLIT 287", dynamicOf(1, 287, many).code(0, 1).code(0, 1).code(3, 2).out, 2, 0)
	manyd := lens(257, 31, map[int]uint{'a': 1, 'b': 2, 256: 2, 257: 1})
	checkInflater(t, &d, "HDIST 31", dynamicOf(1, 257, manyd).code(0, 1).code(0, 1).code(3, 2).out, 2, 0)
	// the end of block's two bits must be there before a one-bit literal is
	// decoded: the stream cut after a last 'a' that ends its byte
	w := dynamicOf(1, 257, ok)
	n := 0
	for w.nbits%8 != 0 || n == 0 {
		w.code(0, 1)
		n++
	}
	checkInflater(t, &d, "cut before the end of block's bits", w.out, n, 0)
	checkInflater(t, &d, "cut, one byte less announced", w.out, n-1, 1)
	// a literal longer than the end of block's code, cut: 'a' 0, end 10,
	// 'b' 110, 'c' 111
	long := lens(257, 1, map[int]uint{'a': 1, 256: 2, 'b': 3, 'c': 3, 257: 1})
	w = dynamicOf(1, 257, long)
	for n = 0; w.nbits%8 != 6; n++ {
		w.code(0, 1)
	}
	w.code(6, 3)
	checkInflater(t, &d, "a literal cut", w.out[:len(w.out)-1], n+1, 0)
	checkInflater(t, &d, "a literal whole", w.out, n+1, 1)
	// code lengths repeated past the last: 138 zeros, twice, for 258
	cl := [19]uint{}
	cl[0], cl[1], cl[2], cl[18] = 2, 2, 2, 2
	w = dynamicHeader(1, 257, 1, cl).code(3, 2).bits(127, 7).code(3, 2).bits(127, 7).bits(0, 16)
	checkInflater(t, &d, "lengths repeated past the last", w.out, 1, 0)
	// extra bits cut off: a length's, a distance's (fixed blocks whose
	// literals are padded with nine-bit ones so that the extra bits start a
	// byte, dropped)
	for _, tc := range []struct {
		name       string
		len, dcode uint
		mod        uint // nbits%8 before the length code
	}{
		{"a length's extra bits cut", 265, 0, 1},
		{"a distance's extra bits cut", 257, 4, 4},
	} {
		w := new(bitWriter).bits(1, 1).bits(1, 2)
		lits := 0
		for ; lits < 6 || w.nbits%8 != tc.mod; lits++ {
			w.lit(200)
		}
		w.lit(tc.len)
		if tc.dcode != 0 {
			w.code(tc.dcode, 5)
		}
		if w.nbits%8 != 0 {
			t.Fatalf("%s: the extra bits start at bit %d", tc.name, w.nbits)
		}
		checkInflater(t, &d, tc.name, w.out, lits+3, 0)
		w.bits(0, 8).code(0, 5).lit(256)
		checkInflater(t, &d, tc.name+", whole", w.out, lits+3, 1)
	}
}
