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
