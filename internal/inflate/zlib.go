package inflate

import (
	"compress/flate"
	"compress/zlib"
	"encoding/binary"
	"hash/adler32"
	"io"
)

// The zlib wrapping (RFC 1950) of a deflate stream, read as compress/zlib
// reads it, with its errors, for a reader that inflates the raw stream
// itself (internal/gitobj): its header, and the checksum that ends it.

// DecodeZlib decodes the zlib stream z (RFC 1950: its header, then the
// deflate stream) into n bytes (n > 0), in buf when its capacity is enough
// (Decode writes all of it, and reads only what it wrote), and tells how
// many bytes of z it read; false when it cannot and compress/flate must (a
// header that is not deflate's, a preset dictionary's, whatever Decode
// does not take).
func (d *Decoder) DecodeZlib(z []byte, n int, buf []byte) ([]byte, int, bool) {
	if n == 0 || len(z) < 2 || z[0]&0x0f != 8 || z[0]>>4 > 7 || binary.BigEndian.Uint16(z)%31 != 0 || z[1]&0x20 != 0 {
		return nil, 0, false
	}
	out := buf[:cap(buf)]
	if len(out) < n {
		out = make([]byte, n)
	}
	out = out[:n]
	used, ok := d.Decode(z[2:], out)
	if !ok {
		return nil, 0, false
	}
	return out, 2 + used, true
}

// ZlibHeader reads the two bytes of a zlib header (RFC 1950), and the
// dictionary id that may follow, with compress/zlib's errors: only deflate
// with a window of at most 32 KiB, and no preset dictionary (but the empty
// one, whose id zlib takes).
func ZlibHeader(r io.ByteReader) error {
	var h [2]byte
	for i := range h {
		c, err := r.ReadByte()
		if err != nil {
			return noEOF(err)
		}
		h[i] = c
	}
	if h[0]&0x0f != 8 || h[0]>>4 > 7 || binary.BigEndian.Uint16(h[:])%31 != 0 {
		return zlib.ErrHeader
	}
	if h[1]&0x20 != 0 {
		id, err := ZlibTrailer(r)
		if err != nil {
			return err
		}
		if id != adler32.Checksum(nil) {
			return zlib.ErrDictionary
		}
	}
	return nil
}

// ZlibTrailer reads the four big-endian bytes of a zlib checksum.
func ZlibTrailer(r io.ByteReader) (uint32, error) {
	var v uint32
	for range 4 {
		c, err := r.ReadByte()
		if err != nil {
			return 0, noEOF(err)
		}
		v = v<<8 | uint32(c)
	}
	return v, nil
}

// ZlibShort is the error io.ReadFull over compress/zlib gives for a
// deflate stream that ends after data, short of its announced size: the
// checksum that follows is read and checked first.
func ZlibShort(r io.ByteReader, data []byte) error {
	sum, err := ZlibTrailer(r)
	switch {
	case err != nil:
		return err
	case sum != adler32.Checksum(data):
		return zlib.ErrChecksum
	case len(data) == 0:
		return io.EOF
	}
	return io.ErrUnexpectedEOF
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// ReadZlib reads size bytes of zlib data from src: the zlib header checked
// as compress/zlib checks it, then the raw deflate stream inflated by *fr
// (a compress/flate reader, made on first use and reset after), with none
// of zlib's running checksum (the read stops at the announced size, so
// zlib never checked it). The errors are compress/zlib's, a stream shorter
// than announced included (see ZlibShort).
func ReadZlib(src flate.Reader, size int, fr *io.ReadCloser) ([]byte, error) {
	if err := ZlibHeader(src); err != nil {
		return nil, err
	}
	if *fr == nil {
		*fr = flate.NewReader(src)
	} else if err := (*fr).(flate.Resetter).Reset(src, nil); err != nil {
		return nil, err
	}
	out := make([]byte, size)
	for n := 0; n < size; {
		m, err := (*fr).Read(out[n:])
		n += m
		switch {
		case err == io.EOF && n < size:
			return nil, ZlibShort(src, out[:n])
		case err == io.EOF:
			ZlibTrailer(src) // read as zlib reads it: the pages touched stay the same
		case err != nil && n < size:
			return nil, err
		}
	}
	return out, nil
}
