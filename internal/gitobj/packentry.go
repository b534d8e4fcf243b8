package gitobj

import (
	"compress/flate"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/orchestrate-dev/orchestrate/internal/gitdelta"
	"github.com/orchestrate-dev/orchestrate/internal/inflate"
)

// The pieces of a pack entry objectStore reads (objstore.go), each bounded
// by the size it announces: its header and an offset delta's base are
// gitdelta's (with git's delta format), zlib inflation inflate's.

// objectHeader parses the type and size that start an object in a pack, and
// returns how many bytes of b they take.
func objectHeader(b []byte) (plumbing.ObjectType, uint64, int, error) {
	t, size, n, err := gitdelta.EntryHeader(b)
	return plumbing.ObjectType(t), size, n, err
}

// deltaOffset parses the base offset of an offset delta, and returns how
// many bytes of b it takes.
var deltaOffset = gitdelta.BaseOffset

// inflate reads size bytes of zlib data from src with s's reused flate
// reader (inflate.ReadZlib).
func (s *Store) inflate(src flate.Reader, size int) ([]byte, error) {
	return inflate.ReadZlib(src, size, &s.fr)
}
