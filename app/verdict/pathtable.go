package verdict

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"sync"
	"unsafe"
)

// The path table: every path a memo's read set names, kept once in the
// verdict table under pathsKey, and a memo's read set a list of indexes
// into it (memo version 3). A run reads the table's paths once, each into
// its own slot, and a look-up goes from an index to its slot: no path is
// hashed to find its slot (1,000 memos of ~58 paths a run looked each up
// by string before). What an index means is checked, not trusted: a
// memo's sum is of each of its paths' slot sums, and a slot's sum is of
// its path's encoding and its stat data, so an index naming another path
// than the one the memo was kept with (a table another run rewrote, a
// damaged one) gives another sum: a refused memo, never a stale one used.
//
// The value: the table's generation (16 random bytes, copied into each
// memo kept with it: a memo of another generation is a miss without a
// look-up), a varint count, and each path as a varint length and its
// bytes. A run that keeps memos writes the table again with the paths
// it added at the end (indexes already given never move); a table over
// half of maxPathBytes is started anew (a new generation) by the next run
// that keeps a memo, so paths no memo names any more do not pile up.

// pathsKey is the path table's key in the verdict table (no memo key, a
// SHA-256 of the run's and a candidate's facts, is it).
var pathsKey = sha256.Sum256([]byte("orchestrate verdict memo: the path table"))

// genSize is the size of a path table's generation.
const genSize = 16

// maxPathBytes bounds the path table's value.
const maxPathBytes = 8 << 20

// pathTable is a run's view of the path table: the saved one's paths, each
// with its slot, and the paths this run's memos added.
type pathTable struct {
	once sync.Once
	gen  [genSize]byte
	// base are the slots of the saved table's paths, by index (their
	// paths views of the table's value, which is never written and is held
	// until the run ends); set once, then read without a lock
	base  []slot
	bytes int // the saved table's value size

	mu    sync.Mutex
	index map[string]uint32 // every path's index, made by the first Put
	ext   []*slot           // the paths this run added, by index - len(base)
	free  []slot            // allocated in blocks
	used  bool              // a memo was kept with this table: Save writes it
}

// load reads the saved path table of m's verdict table, once; a table that
// is missing, does not decode, or is over half its bound starts a new
// generation with no paths.
func (m *Memo) load() *pathTable {
	pt := &m.pt
	pt.once.Do(func() {
		raw, ok := m.tab.Saved(pathsKey)
		if ok && len(raw) <= maxPathBytes/2 {
			if gen, paths, ok := decodePaths(raw); ok {
				pt.gen, pt.bytes = gen, len(raw)
				pt.base = make([]slot, len(paths))
				for i, p := range paths {
					pt.base[i].path = p
				}
				return
			}
		}
		if _, err := rand.Read(pt.gen[:]); err != nil {
			// no generation of its own: no memo kept this run (a zero
			// generation is never written)
			pt.gen = [genSize]byte{}
		}
	})
	return pt
}

// decodePaths reads a path table's value as untrusted input: its
// generation and its paths, views of v (which must never be written
// again); false when it does not decode (never a panic).
func decodePaths(v []byte) (gen [genSize]byte, paths []string, ok bool) {
	if len(v) < genSize {
		return gen, nil, false
	}
	copy(gen[:], v)
	rest := v[genSize:]
	n, k := uvarintOf(rest)
	rest = rest[k:]
	if k == 0 || n > uint64(len(rest)) || gen == [genSize]byte{} {
		return gen, nil, false
	}
	paths = make([]string, 0, n)
	for range n {
		l, k := uvarintOf(rest)
		if k == 0 || l > uint64(len(rest)-k) {
			return gen, nil, false
		}
		p := rest[k : k+int(l)]
		rest = rest[k+int(l):]
		if len(p) == 0 {
			paths = append(paths, "")
		} else {
			paths = append(paths, unsafe.String(&p[0], len(p)))
		}
	}
	if len(rest) != 0 {
		return gen, nil, false
	}
	return gen, paths, true
}

// encodePathTable is the value of a path table of generation gen holding
// the paths of base, then those of ext.
func encodePathTable(gen [genSize]byte, base []slot, ext []*slot) []byte {
	n := len(base) + len(ext)
	size := genSize + 10
	for i := range base {
		size += 2 + len(base[i].path)
	}
	for _, s := range ext {
		size += 2 + len(s.path)
	}
	b := append(make([]byte, 0, size), gen[:]...)
	b = binary.AppendUvarint(b, uint64(n))
	for i := range base {
		b = appendStr(b, base[i].path)
	}
	for _, s := range ext {
		b = appendStr(b, s.path)
	}
	return b
}

// slotAt is the slot of index i of pt; nil when pt has no such index.
func (pt *pathTable) slotAt(i uint64) *slot {
	if i < uint64(len(pt.base)) {
		return &pt.base[i]
	}
	pt.mu.Lock()
	defer pt.mu.Unlock()
	j := i - uint64(len(pt.base))
	if j >= uint64(len(pt.ext)) {
		return nil
	}
	return pt.ext[j]
}

// indexes appends the index of each of paths to dst, giving the paths the
// table does not hold yet the next ones.
func (pt *pathTable) indexes(dst []uint32, paths []string) ([]uint32, bool) {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	if pt.index == nil {
		pt.index = make(map[string]uint32, len(pt.base)+len(paths))
		for i := range pt.base {
			if _, ok := pt.index[pt.base[i].path]; !ok { // a damaged table's repeat: the first
				pt.index[pt.base[i].path] = uint32(i)
			}
		}
	}
	for _, p := range paths {
		i, ok := pt.index[p]
		if !ok {
			n := len(pt.base) + len(pt.ext)
			if n >= 1<<31 {
				return dst, false
			}
			if len(pt.free) == 0 {
				pt.free = make([]slot, 256)
			}
			s := &pt.free[0]
			pt.free = pt.free[1:]
			s.path = p
			pt.ext = append(pt.ext, s)
			i = uint32(n)
			pt.index[p] = i
		}
		dst = append(dst, i)
	}
	return dst, true
}

// value is the table's value for Save (nil when no memo was kept with
// it: used false), and whether it is within its bound.
func (pt *pathTable) value() (v []byte, used, fits bool) {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	if !pt.used {
		return nil, false, false
	}
	v = encodePathTable(pt.gen, pt.base, pt.ext)
	return v, true, len(v) <= maxPathBytes
}
