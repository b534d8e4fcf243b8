package gitdelta

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// deltaOf is a delta from a base of srcLen bytes to one of dstLen, with ops.
func deltaOf(srcLen, dstLen int, ops ...byte) []byte {
	d := binary.AppendUvarint(nil, uint64(srcLen))
	d = binary.AppendUvarint(d, uint64(dstLen))
	return append(d, ops...)
}

// TestApplyDeltaPieces: an object of a few hundred pieces (one-byte copies
// and inserts) is built whole and cut anywhere, with no spare capacity; in
// a reused buffer (of any content) the same bytes, in that buffer when it
// is large enough.
func TestApplyDeltaPieces(t *testing.T) {
	src := []byte("0123456789")
	var ops, want []byte
	for i := range 192 {
		if i%2 == 0 {
			ops = append(ops, 1, byte('a'+i%26)) // insert one byte
			want = append(want, byte('a'+i%26))
		} else {
			ops = append(ops, 0x91, byte(i%10), 1) // copy one byte at i%10
			want = append(want, src[i%10])
		}
	}
	delta := deltaOf(len(src), len(want), ops...)
	for _, cut := range []int{0, 1, 63, 64, 65, 133, len(want) - 1, len(want), len(want) + 1} {
		got, whole, err := Apply(src, delta, uint64(len(want)), cut, nil)
		exp := want
		if cut > 0 && cut < len(want) {
			exp = want[:cut]
		}
		if err != nil || !bytes.Equal(got, exp) || whole != (len(exp) == len(want)) || cap(got) != len(got) {
			t.Errorf("cut %d: %q (cap %d), whole %v, %v; want %q", cut, got, cap(got), whole, err, exp)
		}
		for _, room := range []int{len(exp) - 1, len(exp), len(exp) + 7} {
			if room < 0 {
				continue
			}
			buf := bytes.Repeat([]byte{'#'}, room)
			got, whole, err := Apply(src, delta, uint64(len(want)), cut, buf)
			if err != nil || !bytes.Equal(got, exp) || whole != (len(exp) == len(want)) {
				t.Errorf("cut %d in %d bytes: %q, whole %v, %v; want %q", cut, room, got, whole, err, exp)
			}
			if inBuf := len(got) > 0 && room > 0 && &got[0] == &buf[0]; inBuf != (room >= len(exp) && len(exp) > 0) {
				t.Errorf("cut %d in %d bytes: built in the buffer %v", cut, room, inBuf)
			}
		}
	}
	if _, _, err := Apply(src, deltaOf(len(src), len(want)+1, ops...), MaxObject, 0, nil); err == nil {
		t.Error("a delta one byte short of its announced size applied")
	}
}

// TestApplyErrors: a hostile delta is an error, never a panic, whatever
// buffer it is given; an over-size target is ErrObjectTooLarge.
func TestApplyErrors(t *testing.T) {
	src := []byte("hello, world")
	tests := []struct {
		name  string
		delta []byte
		max   uint64
		large bool
	}{
		{"empty", nil, MaxObject, false},
		{"base size differs", deltaOf(11, 1, 1, 'a'), MaxObject, false},
		{"no target size", []byte{12}, MaxObject, false},
		{"over max", deltaOf(12, 9, 0x90, 9), 8, true},
		{"over MaxObject", deltaOf(12, MaxObject+1, 0x90, 9), MaxObject + 2, true},
		{"copy past the base", deltaOf(12, 9, 0x91, 5, 9), MaxObject, false},
		{"copy past the target", deltaOf(12, 4, 0x90, 5), MaxObject, false},
		{"truncated copy", deltaOf(12, 4, 0x91, 5), MaxObject, false},
		{"insert past the input", deltaOf(12, 4, 4, 'a'), MaxObject, false},
		{"insert past the target", deltaOf(12, 1, 2, 'a', 'b'), MaxObject, false},
		{"opcode 0", deltaOf(12, 1, 0), MaxObject, false},
		{"short", deltaOf(12, 6, 0x90, 5), MaxObject, false},
	}
	for _, tt := range tests {
		for _, buf := range [][]byte{nil, make([]byte, 64)} {
			got, _, err := Apply(src, tt.delta, tt.max, 0, buf)
			if err == nil || got != nil || errors.Is(err, ErrObjectTooLarge) != tt.large {
				t.Errorf("%s (buffer %d): %q, %v; want an error (too large %v)", tt.name, len(buf), got, err, tt.large)
			}
		}
	}
}

// TestApplyOverItsBase: a delta is built over a copy of its base's first
// bytes (the copies that put base bytes at their own offset move nothing),
// and what it builds is what a plain rebuild gives, whatever the mix of
// copies in place, copies moved, inserts over the base's bytes, a target
// longer or shorter than its base, a buffer of junk, a cut.
func TestApplyOverItsBase(t *testing.T) {
	src := []byte("0123456789abcdefghijklmnopqrstuvwxyz")
	type op struct {
		copy      bool
		off, size int
		lit       string
	}
	cases := []struct {
		name string
		ops  []op
	}{
		{"the base whole, in place", []op{{copy: true, off: 0, size: 36}}},
		{"a hash replaced", []op{{copy: true, off: 0, size: 10}, {lit: "ABCDE"}, {copy: true, off: 15, size: 21}}},
		{"an entry inserted: the rest moved", []op{{copy: true, off: 0, size: 10}, {lit: "NEW"}, {copy: true, off: 10, size: 26}}},
		{"an entry removed: the rest moved back", []op{{copy: true, off: 0, size: 5}, {copy: true, off: 10, size: 26}}},
		{"in place after a move back", []op{{copy: true, off: 5, size: 5}, {copy: true, off: 5, size: 5}, {copy: true, off: 10, size: 4}}},
		{"inserts only", []op{{lit: "only new bytes"}}},
		{"longer than the base", []op{{copy: true, off: 0, size: 36}, {copy: true, off: 0, size: 36}, {lit: "tail"}}},
		{"in place past an insert of the same length", []op{{lit: "01234"}, {copy: true, off: 5, size: 31}}},
	}
	for _, c := range cases {
		var ops, want []byte
		for _, o := range c.ops {
			if o.copy {
				ops = append(ops, 0x80|0x01|0x10, byte(o.off), byte(o.size))
				want = append(want, src[o.off:o.off+o.size]...)
			} else {
				ops = append(ops, byte(len(o.lit)))
				ops = append(ops, o.lit...)
				want = append(want, o.lit...)
			}
		}
		delta := deltaOf(len(src), len(want), ops...)
		for _, cut := range []int{0, 1, 7, 12, len(want) - 1, len(want)} {
			exp := want
			if cut > 0 && cut < len(want) {
				exp = want[:cut]
			}
			for _, buf := range [][]byte{nil, bytes.Repeat([]byte{'#'}, len(exp)), bytes.Repeat([]byte{'#'}, 100)} {
				got, whole, err := Apply(src, delta, MaxObject, cut, buf)
				if err != nil || !bytes.Equal(got, exp) || whole != (len(exp) == len(want)) {
					t.Errorf("%s, cut %d, buffer %d: %q, whole %v, %v; want %q", c.name, cut, len(buf), got, whole, err, exp)
				}
				if buf == nil && cap(got) != len(got) {
					t.Errorf("%s, cut %d: capacity %d for %d bytes", c.name, cut, cap(got), len(got))
				}
				if len(got) > 0 && &got[0] == &src[0] {
					t.Errorf("%s, cut %d: built in its base", c.name, cut)
				}
			}
		}
	}
}
