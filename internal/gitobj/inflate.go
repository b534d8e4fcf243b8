package gitobj

import (
	"encoding/binary"

	"github.com/orchestrate-dev/orchestrate/internal/inflate"
)

// inflateMapped inflates the n bytes the zlib stream z announces, and tells
// how many bytes of z it read: with the store's inflater, else (when it
// cannot) with compress/flate (see inflate).
func (s *Store) inflateMapped(z []byte, n int) ([]byte, int, error) {
	if data, used, ok := s.inflateFast(z, n); ok {
		return data, used, nil
	}
	s.mr.Reset(z)
	data, err := s.inflate(&s.mr, n)
	return data, len(z) - s.mr.Len(), err
}

// inflateFast inflates the n bytes the zlib stream z announces with the
// store's inflate.Decoder; false when it cannot, and compress/flate must
// (a preset dictionary's header included).
func (s *Store) inflateFast(z []byte, n int) ([]byte, int, bool) {
	if n == 0 || len(z) < 2 || z[0]&0x0f != 8 || z[0]>>4 > 7 || binary.BigEndian.Uint16(z)%31 != 0 || z[1]&0x20 != 0 {
		return nil, 0, false
	}
	if s.inf == nil {
		s.inf = new(inflate.Decoder)
	}
	out := make([]byte, n)
	used, ok := s.inf.Decode(z[2:], out)
	if !ok {
		return nil, 0, false
	}
	return out, 2 + used, true
}
