package gitobj

import "github.com/orchestrate-dev/orchestrate/internal/inflate"

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
// store's inflate.Decoder (see its DecodeZlib); false when compress/flate
// must.
func (s *Store) inflateFast(z []byte, n int, buf []byte) ([]byte, int, bool) {
	if s.inf == nil {
		s.inf = new(inflate.Decoder)
	}
	return s.inf.DecodeZlib(z, n, buf)
}
