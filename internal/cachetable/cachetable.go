// Package cachetable is one table of the user's cache (internal/diskcache)
// bound to one folder, as a run sees it: the table read on first use, the
// entries this run adds held apart (pending) until Save writes them with
// the table's in one Write, a bound on what one run adds and on the table
// file, and the look-ups it answered counted. The git tables
// (internal/gitrepo: objects, paths, walks, commits) are each one Table.
//
// Binding: a table's name is its prefix and Digest of the folder it
// describes (absolute path, device, inode and birth time), so an entry one
// folder derived is never read for another (a clone elsewhere, or a folder
// created again at the same path); diskcache's MAC covers the name, so a
// table copied over another's is not read. What a value means, and whether
// it is true, is the caller's: Decode is given every value read as
// untrusted input, and one that does not decode is a miss.
package cachetable

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

// Spec is what one kind of table is: its name, keys, values and bounds.
type Spec[K comparable, V any] struct {
	// Prefix starts the table's name; the folder's Digest follows.
	Prefix string
	// KeySize is the size of the table's keys; Key returns k's bytes
	// (KeySize of them).
	KeySize int
	Key     func(k *K) []byte
	// Encode appends v's value to dst (for Save); Decode reads a value of
	// the table file: ok false is a miss.
	Encode func(dst []byte, v V) []byte
	Decode func(v []byte) (V, bool)
	// MaxNew bounds the entries one run adds (0: no bound); MaxBytes
	// bounds the bytes they hold, as Size counts them (0: no bound).
	MaxNew   int
	MaxBytes int
	Size     func(V) int
	// Bound bounds the table file (0: no bound): a save that would grow
	// it past Bound writes this run's entries alone. Grow is what a save
	// of n entries of valueBytes bytes (as Size counts them) adds to the
	// file, as that bound counts it.
	Bound int64
	Grow  func(n, valueBytes int) int64
}

// Stats counts the look-ups of a run that the saved table answered (hits),
// had no value for or none that decoded (misses), and whose value the
// caller found untrue (refused). Look-ups this run's own entries answered
// are not counted.
type Stats struct{ Hits, Misses, Refused int }

// Table is a run's view of one table of a cache, bound to a folder. It is
// safe for concurrent use; nil is a table that is off.
type Table[K comparable, V any] struct {
	disk *diskcache.Cache
	dir  string
	spec Spec[K, V]

	once    sync.Once
	mu      sync.Mutex
	name    string
	table   *diskcache.Table // nil when the cache is off or the folder unnamed
	pending map[K]V
	bytes   int // what pending holds, as spec.Size counts it
	stats   Stats
}

// New returns the table spec describes for folder dir in disk; it is read
// on first use.
func New[K comparable, V any](disk *diskcache.Cache, dir string, spec Spec[K, V]) *Table[K, V] {
	return &Table[K, V]{disk: disk, dir: dir, spec: spec}
}

// Open reads the table on first use and reports whether it is on: false
// when t is nil, the cache is off or the folder cannot be named.
func (t *Table[K, V]) Open() bool {
	if t == nil {
		return false
	}
	t.once.Do(func() {
		if t.name, t.table = Open(t.disk, t.dir, t.spec.Prefix, t.spec.KeySize); t.table != nil {
			t.pending = map[K]V{}
		}
	})
	return t.table != nil
}

// Len is how many entries the saved table holds (0 when it is off or
// none was saved).
func (t *Table[K, V]) Len() int {
	if !t.Open() {
		return 0
	}
	return t.table.Len()
}

// Name is the table's name ("" until opened, or when off).
func (t *Table[K, V]) Name() string {
	if !t.Open() {
		return ""
	}
	return t.name
}

// Get returns the value of k: this run's (fresh), else the saved table's,
// decoded. ok is false when neither has one that decodes.
func (t *Table[K, V]) Get(k K) (v V, fresh, ok bool) {
	if !t.Open() {
		return v, false, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if v, ok := t.pending[k]; ok {
		return v, true, true
	}
	raw, ok := t.table.Get(t.spec.Key(&k))
	if ok {
		v, ok = t.spec.Decode(raw)
	}
	if ok {
		t.stats.Hits++
	} else {
		t.stats.Misses++
	}
	return v, false, ok
}

// Saved returns the saved table's value of k, as read (not decoded, not
// counted), whatever this run added.
func (t *Table[K, V]) Saved(k K) ([]byte, bool) {
	if !t.Open() {
		return nil, false
	}
	return t.table.Get(t.spec.Key(&k))
}

// Refuse counts the last hit as refused: a value that decoded but was not
// true (the caller reads what it names from the repository instead).
func (t *Table[K, V]) Refuse() { t.recount(&t.stats.Refused) }

// Unhit counts the last hit as a miss (a value naming what cannot be read).
func (t *Table[K, V]) Unhit() { t.recount(&t.stats.Misses) }

func (t *Table[K, V]) recount(to *int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stats.Hits > 0 {
		t.stats.Hits--
		*to++
	}
}

// Stats returns the counts of the run's look-ups.
func (t *Table[K, V]) Stats() Stats {
	if t == nil {
		return Stats{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stats
}

// Add records v for k for Save, unless this run has a value for k already
// or the run's bounds are reached; it reports whether k now has v.
func (t *Table[K, V]) Add(k K, v V) bool { return t.put(k, v, false) }

// Put is Add that replaces this run's value for k.
func (t *Table[K, V]) Put(k K, v V) bool { return t.put(k, v, true) }

func (t *Table[K, V]) put(k K, v V, replace bool) bool {
	if !t.Open() {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	old, had := t.pending[k]
	if had && !replace {
		return false
	}
	size := 0
	if t.spec.Size != nil {
		size = t.spec.Size(v)
		if had {
			size -= t.spec.Size(old)
		}
	}
	if !had && ((t.spec.MaxNew > 0 && len(t.pending) >= t.spec.MaxNew) ||
		(t.spec.MaxBytes > 0 && t.bytes+size > t.spec.MaxBytes)) {
		return false
	}
	t.pending[k] = v
	t.bytes += size
	return true
}

// Pending returns how many entries this run added.
func (t *Table[K, V]) Pending() int {
	if !t.Open() {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.pending)
}

// Keys returns the keys of this run's entries, in no order.
func (t *Table[K, V]) Keys() []K {
	if !t.Open() {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := make([]K, 0, len(t.pending))
	for k := range t.pending {
		keys = append(keys, k)
	}
	return keys
}

// Drop forgets this run's entries unsaved.
func (t *Table[K, V]) Drop() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.pending)
	t.bytes = 0
}

// Save writes this run's entries with the table's (see WriteBounded);
// nothing when there is nothing new.
func (t *Table[K, V]) Save() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.pending) == 0 {
		return nil
	}
	// Added in key order: the builder's own (stable, indirect) sort took
	// 3 ms of a cold run for 5,000 path look-ups, this one under 1.
	type kb struct {
		k K
		b []byte
	}
	keys := make([]kb, 0, len(t.pending))
	for k := range t.pending {
		keys = append(keys, kb{k, t.spec.Key(&k)})
	}
	slices.SortFunc(keys, func(a, b kb) int { return compareBytes(a.b, b.b) })
	b := diskcache.NewBuilder(t.spec.KeySize)
	var buf []byte
	for _, e := range keys {
		buf = t.spec.Encode(buf[:0], t.pending[e.k])
		b.Add(e.b, buf)
	}
	grow := int64(0)
	if t.spec.Grow != nil {
		grow = t.spec.Grow(len(keys), t.bytes)
	}
	clear(t.pending)
	t.bytes = 0
	return WriteBounded(t.disk, t.name, t.table, b, grow, t.spec.Bound)
}

func compareBytes(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return len(a) - len(b)
}

// Open opens the table prefix+Digest(dir) of keySize keys in disk and
// returns its name; a nil table when disk is off or the folder cannot be
// named. A table that cannot be read is empty.
func Open(disk *diskcache.Cache, dir, prefix string, keySize int) (string, *diskcache.Table) {
	if !disk.Enabled() {
		return "", nil
	}
	id := Digest(dir)
	if id == "" {
		return "", nil
	}
	name := prefix + id
	t, _ := disk.Open(name, keySize)
	if t == nil {
		t = &diskcache.Table{}
	}
	return name, t
}

// WriteBounded writes table name with b's entries and those of the table
// as it is now (read, or the file when another run wrote a bigger one
// since: Write keeps only the entries of the table it is given), or with
// b's alone when the file is within added bytes of bound (0: no bound): a
// table read by every run is kept small.
func WriteBounded(disk *diskcache.Cache, name string, read *diskcache.Table, b *diskcache.Builder, added, bound int64) error {
	old := read
	if now, err := disk.Open(name, read.KeySize()); err == nil && now.Len() >= old.Len() {
		old = now
	}
	if fi, err := os.Stat(disk.Path(name)); bound > 0 && err == nil && fi.Size()+added > bound {
		old = nil
	}
	return disk.Write(name, old, b)
}

// Digest names a folder's tables: the first 16 bytes (hex) of the SHA-256
// of its absolute path, device, inode and birth time (where the file
// system keeps one); "" when the folder cannot be read. A folder removed
// and created again at the same path most often gets the same inode
// (ext4), never the same birth time: it starts with tables of its own.
func Digest(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return ""
	}
	sum := sha256.Sum256([]byte(abs + "\x00" + fileIdentity(fi) + "\x00" + birthTime(abs)))
	return hex.EncodeToString(sum[:16])
}
