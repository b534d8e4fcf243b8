package verdict

import (
	"encoding/binary"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
)

// The value encoding of a memo: unsigned varints, zig-zag varints,
// strings as a varint length and their bytes, times as
// time.MarshalBinary (instant and zone offset) behind a length.

// writer appends the encoding; ok is false once a value cannot be encoded.
type writer struct {
	b  []byte
	ok bool
}

func (w *writer) uint(u uint64) { w.b = binary.AppendUvarint(w.b, u) }

func (w *writer) int(i int64) { w.b = binary.AppendVarint(w.b, i) }

func (w *writer) str(s string) {
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *writer) strs(ss []string) {
	if ss == nil {
		w.b = append(w.b, 0)
		return
	}
	w.b = binary.AppendUvarint(w.b, uint64(len(ss))+1)
	for _, s := range ss {
		w.str(s)
	}
}

func (w *writer) time(t time.Time) {
	if t.IsZero() {
		w.b = append(w.b, 0)
		return
	}
	data, err := t.MarshalBinary()
	if err != nil {
		w.ok = false
		w.b = append(w.b, 0)
		return
	}
	w.str(string(data))
}

func (w *writer) commit(c gitrepo.Commit) {
	w.str(c.Hash)
	w.str(c.Short)
	w.str(c.Author)
	w.str(c.Email)
	w.time(c.When)
	w.str(c.Subject)
}

// reader reads the encoding from s; bad is set at the first value that
// does not decode (the rest read as zero).
type reader struct {
	s   string
	bad bool
}

func (r *reader) uint() uint64 {
	if r.bad {
		return 0
	}
	u, n := uvarintOf(r.s)
	if n == 0 {
		r.bad = true
		return 0
	}
	r.s = r.s[n:]
	return u
}

// uvarintOf reads the unsigned varint s starts with: its value and its
// length, 0 when s does not start with one (cut short, or past 64 bits).
func uvarintOf[T ~string | ~[]byte](s T) (uint64, int) {
	var u uint64
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if i == binary.MaxVarintLen64-1 && c > 1 {
			break
		}
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return u, i + 1
		}
	}
	return 0, 0
}

func (r *reader) int() int64 {
	u := r.uint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

// count reads a count of items of at least min bytes each: bad when the
// rest cannot hold them.
func (r *reader) count(min int) int {
	n := r.uint()
	if n > uint64(len(r.s)/min) {
		r.bad = true
		return 0
	}
	return int(n)
}

func (r *reader) str() string {
	n := r.uint()
	if r.bad || n > uint64(len(r.s)) {
		r.bad = true
		return ""
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

func (r *reader) strs() []string {
	n := r.uint()
	if n == 0 || r.bad {
		return nil
	}
	if n-1 > uint64(len(r.s)) {
		r.bad = true
		return nil
	}
	out := make([]string, 0, n-1)
	for range n - 1 {
		out = append(out, r.str())
	}
	return out
}

func (r *reader) time() time.Time {
	s := r.str()
	if s == "" || r.bad {
		return time.Time{}
	}
	var t time.Time
	if err := t.UnmarshalBinary([]byte(s)); err != nil {
		r.bad = true
	}
	return t
}

func (r *reader) commit() gitrepo.Commit {
	return gitrepo.Commit{Hash: r.str(), Short: r.str(), Author: r.str(), Email: r.str(), When: r.time(), Subject: r.str()}
}
