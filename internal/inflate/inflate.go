// Package inflate decodes a raw deflate stream (RFC 1951) held whole in
// memory straight into an output of the size its reader announces, for
// the pack reader (internal/gitobj): back references point into the output
// itself (no 32 KiB window to copy out of), Huffman codes are decoded by
// table. It decodes a prefix and stops there, as io.ReadFull over
// compress/flate does, and fails on anything compress/flate rejects before
// that prefix is decoded, and on whatever it does not take; the caller then
// inflates with compress/flate, whose result is the answer.
package inflate

import (
	"encoding/binary"
	"math/bits"
	"sync"
)

// Decoder decodes deflate streams (see the package's doc); its tables are
// reused from one stream to the next. The zero Decoder is ready to use; it
// is not safe for concurrent use.
type Decoder struct {
	in       []byte
	pos      int    // the next byte of in to load
	bits     uint64 // loaded, not yet consumed, bits
	nb       uint   // how many
	over     uint   // bytes past the end of in loaded (as zeros)
	lit, dst huffTable
	clen     huffTable // the code lengths' code
	lens     [288 + 32]uint8
}

// huffTable decodes one canonical Huffman code: t[bits&(1<<pbits-1)] is
// sym<<8|len for a code of at most pbits bits, off<<8|0x80|sub for a longer
// one (its sym<<8|len at t[off+(bits>>pbits)&(1<<sub-1)]), 0 for no code.
type huffTable struct {
	t      []uint32
	pbits  uint
	min    uint        // the fewest bits a symbol may take
	sorted [288]uint16 // the symbols by code (see build)
}

// Code lengths are sent in this order (RFC 1951, 3.2.7).
var clenOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// The base and extra bits of length codes 257..285 and distance codes 0..29.
var (
	lenBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lenExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	dstBase  = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	dstExtra = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
)

// build makes t decode the code of lengths (0: no code), with a first
// table of at most maxP bits. As compress/flate, it takes only a complete
// code, the empty one, or a single code of one bit; false otherwise.
func (h *huffTable) build(lengths []uint8, maxP uint) bool {
	var count [16]int
	for _, n := range lengths {
		count[n&15]++
	}
	lo, hi := uint(16), uint(0)
	for n := uint(1); n < 16; n++ {
		if count[n] != 0 {
			lo, hi = min(lo, n), n
		}
	}
	p := max(min(hi, maxP), 1)
	h.pbits, h.min = p, lo
	if cap(h.t) < 1<<p {
		h.t = make([]uint32, 1<<p, 1<<maxP)
	}
	h.t = h.t[:1<<p]
	if hi == 0 {
		clear(h.t)
		h.min = 0
		return true
	}
	var next, at [16]int
	code, sorted := 0, 0
	for n := lo; n <= hi; n++ {
		code <<= 1
		next[n], at[n] = code, sorted
		code += count[n]
		sorted += count[n]
	}
	switch {
	case code == 1 && hi == 1: // the single code of one bit: its other bit is no code
		clear(h.t)
		for sym, n := range lengths {
			if n != 0 {
				h.t[0] = uint32(sym)<<8 | 1
			}
		}
		return true
	case code != 1<<hi || lo > p || len(lengths) > len(h.sorted):
		return false
	}
	// The symbols by code (by length, then by symbol: RFC 1951, 3.2.2).
	for sym, n := range lengths {
		if n != 0 {
			h.sorted[at[n&15]] = uint16(sym)
			at[n&15]++
		}
	}
	// The codes of at most p bits: at length n the table is 1<<n entries
	// (a code's index is its bits reversed), doubled for the next length by
	// a copy, which repeats every shorter code's entry; the entries no code
	// of at most n bits takes are the first bits of longer ones, written
	// later.
	i := 0
	for n := lo; n <= p; n++ {
		for c := next[n]; c < next[n]+count[n]; c++ {
			h.t[bits.Reverse16(uint16(c))>>(16-n)] = uint32(h.sorted[i])<<8 | uint32(n)
			i++
		}
		if n < p {
			copy(h.t[1<<n:], h.t[:1<<n])
		}
	}
	if hi == p {
		return true
	}
	// The longer codes: a second table (of hi-p bits) for each of their
	// first p bits, linked from the first table.
	sub := hi - p
	for n := p + 1; n <= hi; n++ {
		for c := next[n]; c < next[n]+count[n]; c++ {
			h.t[uint(bits.Reverse16(uint16(c))>>(16-n))&(1<<p-1)] = 0
		}
	}
	for n := p + 1; n <= hi; n++ {
		for c := next[n]; c < next[n]+count[n]; c++ {
			rev := uint(bits.Reverse16(uint16(c)) >> (16 - n))
			link := h.t[rev&(1<<p-1)]
			if link == 0 {
				link = uint32(len(h.t))<<8 | 0x80 | uint32(sub)
				h.t[rev&(1<<p-1)] = link
				h.t = append(h.t, make([]uint32, 1<<sub)...)
			}
			e := uint32(h.sorted[i])<<8 | uint32(n)
			i++
			for j, off := rev>>p, uint(link>>8); j < 1<<sub; j += 1 << (n - p) {
				h.t[off+j] = e
			}
		}
	}
	return true
}

// refill loads bytes of in until at least 56 bits are loaded (unless 16
// are); past its end zeros are loaded, counted in over.
func (d *Decoder) refill() {
	if d.nb < 16 {
		d.load()
	}
}

// load is refill's slow path, kept out of line so that refill is inlined.
//
//go:noinline
func (d *Decoder) load() {
	if d.pos+8 <= len(d.in) {
		d.bits |= binary.LittleEndian.Uint64(d.in[d.pos:]) << d.nb
		k := (63 - d.nb) >> 3
		d.pos += int(k)
		d.nb += k << 3
		return
	}
	for d.nb <= 56 {
		if d.pos < len(d.in) {
			d.bits |= uint64(d.in[d.pos]) << d.nb
			d.pos++
		} else {
			d.over++
		}
		d.nb += 8
	}
}

// short reports whether n more bits run past the end of in.
func (d *Decoder) short(n uint) bool { return d.nb < n+d.over<<3 }

// take consumes n bits (loaded).
func (d *Decoder) take(n uint) uint {
	v := uint(d.bits & (1<<n - 1))
	d.bits >>= n
	d.nb -= n
	return v
}

// sym decodes a symbol of h (bits loaded); -1 for bits that are no code of
// h or that run past the end of in.
func (d *Decoder) sym(h *huffTable) int {
	e := h.t[d.bits&(1<<h.pbits-1)]
	if e&0x80 != 0 {
		e = h.t[uint(e>>8)+uint(d.bits>>h.pbits)&(1<<(e&0x0f)-1)]
	}
	n := uint(e & 0x0f)
	if n == 0 || d.short(n) {
		return -1
	}
	d.bits >>= n
	d.nb -= n
	return int(e >> 8)
}

// Decode decodes the raw deflate stream in into out, all of out, and
// reports whether it could, and how many bytes of in it read (the byte a
// last bit read is in counted): false on anything compress/flate rejects
// before out is full (its stream ending first included), and on whatever
// Decode does not take.
func (d *Decoder) Decode(in, out []byte) (used int, ok bool) {
	ok = d.decode(in, out)
	used, d.in = d.used(), nil // keeps nothing of in (a mapping the caller may close)
	if !ok {
		return 0, false
	}
	return used, true
}

func (d *Decoder) decode(in, out []byte) bool {
	d.in, d.pos, d.bits, d.nb, d.over = in, 0, 0, 0, 0
	n, final := 0, false
	var lit, dst *huffTable
	for n < len(out) {
		if final {
			return false // the stream ends short of the announced size
		}
		d.refill()
		if d.short(3) {
			return false
		}
		final = d.take(1) == 1
		switch d.take(2) {
		case 0:
			d.take(d.nb & 7)
			if d.nb < 56 {
				d.load()
			}
			if d.short(32) {
				return false
			}
			size, nsize := d.take(16), d.take(16)
			if size != ^nsize&0xffff {
				return false
			}
			at := d.pos + int(d.over) - int(d.nb>>3) // the next byte unread
			k := min(int(size), len(out)-n)
			if at+k > len(in) {
				return false
			}
			n += copy(out[n:n+k], in[at:])
			d.pos, d.bits, d.nb, d.over = at+int(size), 0, 0, 0
			if d.pos > len(in) {
				d.pos, d.over = len(in), 1 // past the end: any further bit is short
			}
			continue
		case 1:
			fixedOnce.Do(buildFixed)
			lit, dst = &fixedLit, &fixedDst
		case 2:
			if !d.dynamic() {
				return false
			}
			lit, dst = &d.lit, &d.dst
		default:
			return false
		}
		var ok bool
		if n, ok = d.block(out, n, lit, dst); !ok {
			return false
		}
	}
	return true
}

// The fixed codes (RFC 1951, 3.2.6), built once.
var (
	fixedOnce          sync.Once
	fixedLit, fixedDst huffTable
)

func buildFixed() {
	var l [288 + 32]uint8
	for i := range l {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		case i < 288:
			l[i] = 8
		default:
			l[i] = 5
		}
	}
	fixedLit.build(l[:288], 9)
	fixedDst.build(l[288:], 5)
}

// dynamic reads the code lengths of a dynamic block and builds its codes,
// with compress/flate's checks.
func (d *Decoder) dynamic() bool {
	d.refill()
	if d.short(14) {
		return false
	}
	nlit, ndst, nclen := int(d.take(5))+257, int(d.take(5))+1, int(d.take(4))+4
	if nlit > 286 || ndst > 30 {
		return false
	}
	var cl [19]uint8
	for i := range nclen {
		d.refill()
		if d.short(3) {
			return false
		}
		cl[clenOrder[i]] = uint8(d.take(3))
	}
	ct := &d.clen
	if !ct.build(cl[:], 7) {
		return false
	}
	l := d.lens[:nlit+ndst]
	for i := 0; i < len(l); {
		d.refill()
		x := d.sym(ct)
		if x < 0 {
			return false
		}
		if x < 16 {
			l[i] = uint8(x)
			i++
			continue
		}
		rep, nb, v := uint(3), uint(2), uint8(0)
		switch x {
		case 16:
			if i == 0 {
				return false
			}
			v = l[i-1]
		case 17:
			nb = 3
		default:
			rep, nb = 11, 7
		}
		if d.short(nb) {
			return false
		}
		rep += d.take(nb)
		if i+int(rep) > len(l) {
			return false
		}
		for range rep {
			l[i] = v
			i++
		}
	}
	if !d.lit.build(l[:nlit], 9) || !d.dst.build(l[nlit:], 8) {
		return false
	}
	d.lit.min = max(d.lit.min, uint(l[256])) // compress/flate loads the end of block's bits first
	return true
}

// block decodes the symbols of a Huffman-coded block (codes lit and dst)
// into out from n, up to its end of block or to the end of out. Its loop is
// refill and sym by hand, on locals: a refill loads enough bits for a
// length and its distance (48).
func (d *Decoder) block(out []byte, n int, lit, dst *huffTable) (_ int, ok bool) {
	in, pos, b, nb, over := d.in, d.pos, d.bits, d.nb, d.over
	lt, lp, lmask, lmin := lit.t, lit.pbits&63, uint64(1)<<lit.pbits-1, lit.min
	dt, dp, dmask := dst.t, dst.pbits&63, uint64(1)<<dst.pbits-1
	lim := over << 3 // bits loaded past the end of in: never to be consumed
	for n < len(out) {
		var st int
		if n, pos, b, nb, st = fastBlock(in, out, n, pos, b, nb, lit, dst); st != 0 {
			d.pos, d.bits, d.nb = pos, b, nb
			return n, st == 1
		}
		if n >= len(out) {
			break
		}
		if nb < 48 {
			if pos+8 <= len(in) {
				b |= binary.LittleEndian.Uint64(in[pos:]) << (nb & 63)
				k := (63 - nb) >> 3
				pos += int(k)
				nb += k << 3
			} else {
				for ; nb <= 56; nb += 8 {
					if pos < len(in) {
						b |= uint64(in[pos]) << (nb & 63)
						pos++
					} else {
						over++
					}
				}
				lim = over << 3
			}
		}
		if nb < lmin+lim {
			break
		}
		e := lt[b&lmask]
		if e&0x80 != 0 {
			e = lt[uint(e>>8)+uint(b>>lp)&(1<<(e&0x0f)-1)]
		}
		l := uint(e & 0x0f)
		if l == 0 || nb < l+lim {
			break
		}
		b >>= l
		nb -= l
		v := int(e >> 8)
		if v < 256 {
			out[n] = byte(v)
			n++
			continue
		}
		if v == 256 {
			ok = true
			break
		}
		if v >= 286 {
			break
		}
		v -= 257
		l = uint(lenExtra[v])
		if nb < l+lim {
			break
		}
		length := int(lenBase[v]) + int(b&(1<<l-1))
		b >>= l
		nb -= l
		e = dt[b&dmask] // the fixed code's are five bits: a code of 32
		if e&0x80 != 0 {
			e = dt[uint(e>>8)+uint(b>>dp)&(1<<(e&0x0f)-1)]
		}
		l = uint(e & 0x0f)
		dc := int(e >> 8)
		if l == 0 || nb < l+lim || dc >= 30 {
			break
		}
		b >>= l
		nb -= l
		l = uint(dstExtra[dc])
		if nb < l+lim {
			break
		}
		dist := int(dstBase[dc]) + int(b&(1<<l-1))
		b >>= l
		nb -= l
		if dist > n {
			break // before the start of the stream
		}
		end := min(n+length, len(out))
		from := n - dist
		for n < end {
			n += copy(out[n:end], out[from:n])
		}
	}
	d.pos, d.bits, d.nb, d.over = pos, b, nb, over
	return n, ok || n == len(out)
}

// fastBlock is block's loop while eight bytes of in are left: every bit
// loaded is one of in's and a refill loads the 48 bits a length and its
// distance may take, so no bit is checked. st is 1 at the end of the
// block, -1 on an error, 0 when out is full or in nearly read.
func fastBlock(in, out []byte, n, pos int, b uint64, nb uint, lit, dst *huffTable) (_, _ int, _ uint64, _ uint, st int) {
	lt, lp, dt, dp := lit.t, lit.pbits&63, dst.t, dst.pbits&63
	for n < len(out) && pos+8 <= len(in) {
		if nb < 48 {
			b |= binary.LittleEndian.Uint64(in[pos:]) << (nb & 63)
			k := (63 - nb) >> 3
			pos += int(k)
			nb += k << 3
		}
		e := lt[b&(1<<lp-1)]
		if e&0x80 != 0 {
			e = lt[uint(e>>8)+uint(b>>lp)&(1<<(e&0x0f)-1)]
		}
		l := uint(e & 0x0f)
		b >>= l
		nb -= l
		if v := e >> 8; v < 256 && l != 0 {
			out[n] = byte(v)
			n++
			continue
		}
		v := int(e >> 8)
		switch {
		case l == 0 || v >= 286:
			return n, pos, b, nb, -1
		case v == 256:
			return n, pos, b, nb, 1
		}
		v -= 257
		l = uint(lenExtra[v])
		length := int(lenBase[v]) + int(b&(1<<l-1))
		b >>= l
		nb -= l
		e = dt[b&(1<<dp-1)]
		if e&0x80 != 0 {
			e = dt[uint(e>>8)+uint(b>>dp)&(1<<(e&0x0f)-1)]
		}
		l = uint(e & 0x0f)
		dc := int(e >> 8)
		if l == 0 || dc >= 30 {
			return n, pos, b, nb, -1
		}
		b >>= l
		nb -= l
		l = uint(dstExtra[dc])
		dist := int(dstBase[dc]) + int(b&(1<<l-1))
		b >>= l
		nb -= l
		if dist > n {
			return n, pos, b, nb, -1 // before the start of the stream
		}
		end := min(n+length, len(out))
		from := n - dist
		for n < end {
			n += copy(out[n:end], out[from:n])
		}
	}
	return n, pos, b, nb, 0
}

// used is how many bytes of in the decoded bits span.
func (d *Decoder) used() int { return d.pos + int(d.over) - int(d.nb>>3) }
