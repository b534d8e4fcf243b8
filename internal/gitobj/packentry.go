package gitobj

import (
	"compress/flate"
	"errors"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/orchestrate-dev/orchestrate/internal/inflate"
)

// The pieces of a pack entry objectStore reads (objstore.go): an entry's
// header, an offset delta's base and zlib inflation within a bound, each
// bounded by the size it announces (git's delta format is gitdelta's).

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
