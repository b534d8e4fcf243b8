package source

import "encoding/binary"

// ValueReader reads a cache value made of uvarints and length-prefixed
// strings as untrusted input (a table's bytes are checked by their MAC, not
// trusted to be well formed): anything that does not decode or breaks a
// bound sets Bad, after which every read gives zero values, so a decoder
// reads on and checks Bad (and Len() == 0) once at its end. The strings it
// returns are substrings of one copy of the value: a decoded parse is one
// allocation, not one per title, id and path.
type ValueReader struct {
	all string // the value, copied once
	b   []byte // what is left to read
	// Bad is set by the first read that did not decode or broke its bound.
	Bad bool
}

// NewValueReader returns a reader of v.
func NewValueReader(v []byte) *ValueReader { return &ValueReader{all: string(v), b: v} }

// U reads a uvarint of at most limit.
func (r *ValueReader) U(limit int) int {
	v, n := binary.Uvarint(r.b)
	if r.Bad || n <= 0 || limit < 0 || v > uint64(limit) {
		r.Bad = true
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

// Str reads a string of at most limit bytes.
func (r *ValueReader) Str(limit int) string {
	n := r.U(limit)
	if r.Bad || n > len(r.b) {
		r.Bad = true
		return ""
	}
	off := len(r.all) - len(r.b)
	r.b = r.b[n:]
	return r.all[off : off+n]
}

// List reads a count of at most limit, then that many strings of at most
// strLimit bytes each.
func (r *ValueReader) List(limit, strLimit int) []string {
	n := r.U(limit)
	var out []string
	if n > 0 && !r.Bad {
		out = make([]string, 0, min(n, len(r.b))) // each string takes a byte at least
	}
	for i := 0; i < n && !r.Bad; i++ {
		out = append(out, r.Str(strLimit))
	}
	return out
}

// Len is how many bytes are left to read.
func (r *ValueReader) Len() int { return len(r.b) }
