package gitobj

import (
	"encoding/binary"

	"github.com/orchestrate-dev/orchestrate/internal/inflate"
)

// inflateMapped inflates the n bytes the zlib stream z announces, and tells
// how many bytes of z it read: with the store's inflater (in buf when its
// capacity is enough), else (when it cannot) with compress/flate (see
// inflate).
func (s *Store) inflateMapped(z []byte, n int, buf []byte) ([]byte, int, error) {
	if data, used, ok := s.inflateFast(z, n, buf); ok {
		return data, used, nil
	}
	s.mr.Reset(z)
	data, err := s.inflate(&s.mr, n)
	return data, len(z) - s.mr.Len(), err
}

// inflateFast inflates the n bytes the zlib stream z announces with the
// store's inflate.Decoder; false when it cannot, and compress/flate must
// (a preset dictionary's header included). The output goes to buf when its
// capacity is enough: Decode writes all of it, and reads only what it wrote.
func (s *Store) inflateFast(z []byte, n int, buf []byte) ([]byte, int, bool) {
	if n == 0 || len(z) < 2 || z[0]&0x0f != 8 || z[0]>>4 > 7 || binary.BigEndian.Uint16(z)%31 != 0 || z[1]&0x20 != 0 {
		return nil, 0, false
	}
	if s.inf == nil {
		s.inf = new(inflate.Decoder)
	}
	out := buf[:cap(buf)]
	if len(out) < n {
		out = make([]byte, n)
	}
	out = out[:n]
	used, ok := s.inf.Decode(z[2:], out)
	if !ok {
		return nil, 0, false
	}
	return out, 2 + used, true
}
