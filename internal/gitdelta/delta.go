// Package gitdelta is git's delta format (the instructions a pack's delta
// entries hold): building an object from its base and a delta, bounded by
// the sizes the delta announces, never past its base or its input; and the
// header of a pack entry (its type and size, an offset delta's base).
package gitdelta

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// MaxObject is the largest object Apply builds whole.
const MaxObject = 64 << 20

// ErrObjectTooLarge is an object over the size a reader takes: it is never
// built.
var ErrObjectTooLarge = errors.New("object too large")

// TooLarge is the error of an object of size bytes over max: it wraps
// ErrObjectTooLarge.
func TooLarge(size, max uint64) error {
	return fmt.Errorf("%w: %d bytes, over the %d-byte limit", ErrObjectTooLarge, size, max)
}

// Apply builds the object a git delta describes from its base src, in one
// allocation of the announced size, or in buf when its capacity is enough
// (buf's content does not matter). A delta that does not fit its base or
// its announced size is an error, one announcing more than max (or
// MaxObject) bytes an error wrapping ErrObjectTooLarge, found before
// anything is built. With cut > 0 only the first cut bytes of an object
// longer than that are built (whole false), whatever max is.
func Apply(src, delta []byte, max uint64, cut int, buf []byte) (_ []byte, whole bool, _ error) {
	srcSize, n := binary.Uvarint(delta)
	if n <= 0 || srcSize != uint64(len(src)) {
		return nil, false, errors.New("delta does not match its base")
	}
	delta = delta[n:]
	dstSize, n := binary.Uvarint(delta)
	if n <= 0 {
		return nil, false, errors.New("truncated delta header")
	}
	want, whole := dstSize, true
	switch {
	case cut > 0 && dstSize > uint64(cut):
		want, whole = uint64(cut), false
	case dstSize > max:
		return nil, false, TooLarge(dstSize, max)
	}
	if dstSize > MaxObject && whole {
		return nil, false, TooLarge(dstSize, MaxObject)
	}
	delta = delta[n:]
	// A new object is built over a copy of its base's first bytes rather
	// than over zeros: a copy instruction that puts base bytes at their own
	// offset (most of a tree's delta over the same folder's tree in the
	// commit before: the same names, a few hashes replaced) then has
	// nothing to move. In buf (not zeroed), or when longer than its base, it
	// is built as it comes.
	pre := 0 // dst[:pre] holds src[:pre] until written over
	var dst []byte
	switch {
	case buf != nil && uint64(cap(buf)) >= want:
		dst = buf[:0]
	case want <= uint64(len(src)) && want > 0:
		pre = int(want)
		dst = append([]byte(nil), src[:pre]...)[:0:pre] // not zeroed first
	default:
		dst = make([]byte, 0, int(want))
	}
	for len(delta) > 0 && (whole || uint64(len(dst)) < want) {
		op := delta[0]
		delta = delta[1:]
		switch {
		case op&0x80 != 0: // copy from the base
			var off, size uint64
			for i := 0; i < 7; i++ {
				if op&(1<<i) == 0 {
					continue
				}
				if len(delta) == 0 {
					return nil, false, errors.New("truncated delta copy")
				}
				if i < 4 {
					off |= uint64(delta[0]) << (8 * i)
				} else {
					size |= uint64(delta[0]) << (8 * (i - 4))
				}
				delta = delta[1:]
			}
			if size == 0 {
				size = 0x10000
			}
			if off+size > uint64(len(src)) || uint64(len(dst))+size > dstSize {
				return nil, false, errors.New("delta copy out of bounds")
			}
			size = min(size, want-uint64(len(dst)))
			if at := uint64(len(dst)); off == at && off+size <= uint64(pre) {
				dst = dst[:at+size] // the base's bytes at their own place: there already
			} else {
				dst = append(dst, src[off:off+size]...)
			}
		case op != 0: // insert literal bytes
			size := int(op)
			if size > len(delta) || uint64(len(dst)+size) > dstSize {
				return nil, false, errors.New("delta insert out of bounds")
			}
			take := min(size, int(want)-len(dst))
			dst = append(dst, delta[:take]...)
			delta = delta[size:]
		default:
			return nil, false, errors.New("delta opcode 0")
		}
	}
	if uint64(len(dst)) != want {
		return nil, false, errors.New("delta builds a short object")
	}
	return dst, whole, nil
}
