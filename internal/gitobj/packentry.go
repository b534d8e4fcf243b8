package gitobj

import (
	"compress/flate"
	"encoding/binary"
	"errors"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/orchestrate-dev/orchestrate/internal/inflate"
)

// The pieces of a pack entry objectStore reads (objstore.go): an entry's
// header, an offset delta's base, zlib inflation within a bound, and git's
// delta format, each bounded by the size it announces.

// objectHeader parses the type and size that start an object in a pack, and
// returns how many bytes of b they take.
func objectHeader(b []byte) (plumbing.ObjectType, uint64, int, error) {
	if len(b) == 0 {
		return 0, 0, 0, errors.New("truncated object header")
	}
	c := b[0]
	i := 1
	typ := plumbing.ObjectType((c >> 4) & 7)
	size := uint64(c & 0x0f)
	for shift := uint(4); c&0x80 != 0; shift += 7 {
		if i >= len(b) {
			return 0, 0, 0, errors.New("truncated object header")
		}
		c = b[i]
		i++
		if shift > 56 {
			return 0, 0, 0, errors.New("object size overflows")
		}
		size |= uint64(c&0x7f) << shift
	}
	return typ, size, i, nil
}

// deltaOffset parses the base offset of an offset delta, and returns how
// many bytes of b it takes.
func deltaOffset(b []byte) (int64, int, error) {
	if len(b) == 0 {
		return 0, 0, errors.New("truncated object header")
	}
	c := b[0]
	i := 1
	rel := int64(c & 0x7f)
	for c&0x80 != 0 {
		if i >= len(b) {
			return 0, 0, errors.New("truncated object header")
		}
		c = b[i]
		i++
		if rel > 1<<48 {
			return 0, 0, errors.New("delta base offset overflows")
		}
		rel = ((rel + 1) << 7) | int64(c&0x7f)
	}
	return rel, i, nil
}

// inflate reads size bytes of zlib data from src: the zlib header checked
// as compress/zlib checks it, then the raw deflate stream inflated by a
// reused flate reader, with none of zlib's running checksum (the read stops
// at the announced size, so zlib never checked it). The errors are
// compress/zlib's, a stream shorter than announced included (see
// inflate.ZlibShort).
func (s *Store) inflate(src flate.Reader, size int) ([]byte, error) {
	if err := inflate.ZlibHeader(src); err != nil {
		return nil, err
	}
	if s.fr == nil {
		s.fr = flate.NewReader(src)
	} else if err := s.fr.(flate.Resetter).Reset(src, nil); err != nil {
		return nil, err
	}
	out := make([]byte, size)
	for n := 0; n < size; {
		m, err := s.fr.Read(out[n:])
		n += m
		switch {
		case err == io.EOF && n < size:
			return nil, inflate.ZlibShort(src, out[:n])
		case err == io.EOF:
			inflate.ZlibTrailer(src) // read as zlib reads it: the pages touched stay the same
		case err != nil && n < size:
			return nil, err
		}
	}
	return out, nil
}

// applyDelta builds the object a git delta describes from its base, in one
// allocation of the announced size; a delta that does not fit its base or
// its announced size is an error, one announcing more than max (or
// MaxPackedObject) bytes an error wrapping ErrObjectTooLarge.
func applyDelta(src, delta []byte, max uint64) ([]byte, error) {
	out, _, err := applyDeltaCut(src, delta, max, 0, nil)
	return out, err
}

// applyDeltaCut is applyDelta that, with cut > 0, builds only the first cut
// bytes of an object longer than that (whole false), whatever max is. The
// object is built in buf when its capacity is enough (buf's content does not
// matter).
func applyDeltaCut(src, delta []byte, max uint64, cut int, buf []byte) (_ []byte, whole bool, _ error) {
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
		return nil, false, tooLarge(dstSize, max)
	}
	if dstSize > MaxPackedObject && whole {
		return nil, false, tooLarge(dstSize, MaxPackedObject)
	}
	delta = delta[n:]
	var dst []byte
	if buf != nil && uint64(cap(buf)) >= want {
		dst = buf[:0]
	} else {
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
			dst = append(dst, src[off:off+size]...)
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
