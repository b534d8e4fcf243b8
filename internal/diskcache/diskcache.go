// Package diskcache keeps what orchestrate derived once from content that
// cannot change under the same key (git objects named by their hash, a
// file named by its stat data) so that a later run does not derive it
// again: the differences of two git trees, a commit's tree and parent, a
// parsed story. It is an optimisation only: a missing, unreadable, corrupt
// or foreign cache reads as empty, and a cache that cannot be written is
// skipped, never an error the user sees.
//
// The cache lives in the user's cache folder ($ORCHESTRATE_CACHE_DIR, else
// $XDG_CACHE_HOME/orchestrate, else $HOME/.cache/orchestrate), never in a
// repository: a repository is written by whoever cloned it, and a cache
// planted there could lie. ORCHESTRATE_CACHE_DIR=off turns it off. The
// folder is orchestrate's alone (see folder.go): it holds orchestrate's
// marker, CACHEDIR.TAG, or is new or empty, is the user's own and not
// writable by others; pruning removes only orchestrate's tables there.
//
// Every table is authenticated: it ends with an HMAC-SHA256, under a
// per-user secret key kept outside the cache folder (key.go), of its name
// and content. A table that was damaged, copied over another table's name
// (another repository's), restored from another machine's cache or
// written by anything but orchestrate with this user's key reads as empty.
// Each table is a regular file (no symlink followed), at most MaxTableSize
// bytes, and replaced atomically (a temporary file renamed over it). See
// docs/SECURITY.md.
//
// A table maps fixed-size keys to byte values. Keys should be uniformly
// distributed (git hashes, or a SHA-256 of what identifies the entry):
// look-ups go through a 256-way fan-out on the first key byte, then a
// binary search. Values are whatever the caller encodes; the caller decodes
// them as untrusted input (a value that does not decode is a miss).
package diskcache

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// EnvDir names the environment variable that sets the cache folder; the
// value Off turns the cache off.
const (
	EnvDir = "ORCHESTRATE_CACHE_DIR"
	Off    = "off"
)

// MaxTableSize bounds a table file: a bigger one is not read, and a table
// that would grow past it starts over with only the newest entries.
const MaxTableSize = 64 << 20

// MaxFolderSize bounds the cache folder: after a write, the tables written
// longest ago are removed until the folder holds at most this much (the
// per-repository tables of repositories no longer used go first).
const MaxFolderSize = 256 << 20

// staleTemp is the age after which a temporary file left by a write that
// did not finish (a killed process) is removed.
const staleTemp = time.Hour

// magic starts every table file; the version is part of it. Version 1
// ended with a CRC-32C; version 2, with the table's MAC (macSize bytes).
var magic = []byte("orchestrate-cache 2\n")

// magicPrefix starts a table file of any version (prune removes those).
var magicPrefix = []byte("orchestrate-cache ")

// macSize is the size of a table's MAC (HMAC-SHA256).
const macSize = sha256.Size

// macLabel starts what a table's MAC covers, before its name.
const macLabel = "orchestrate-cache table\x00"

// Cache is a cache folder and the key its tables are authenticated with.
// The zero value and nil are a cache that is off: every table reads as
// empty and nothing is written.
type Cache struct {
	dir    string
	anchor string      // the existing folder dir may be created under ("": its parent)
	key    []byte      // the MAC key (keySize bytes)
	marked atomic.Bool // dir was found (or made) orchestrate's (see checkDir)
}

// New returns the cache in dir ("" for a cache that is off) with a key
// made for this process only: its tables are read back by this process
// and by no other (tests; a user's cache is ForUser's). Nothing is read or
// created until a table is opened or written; the folder is created only
// under an existing parent.
func New(dir string) *Cache {
	if dir == "" {
		return nil
	}
	return &Cache{dir: filepath.Clean(dir), key: processKey()}
}

// Dir returns c's folder ("" when c is off).
func (c *Cache) Dir() string {
	if !c.Enabled() {
		return ""
	}
	return c.dir
}

// Enabled reports whether c reads and writes anything.
func (c *Cache) Enabled() bool { return c != nil && c.dir != "" }

// Path returns where table name is kept ("" when c is off).
func (c *Cache) Path(name string) string {
	if !c.Enabled() {
		return ""
	}
	return filepath.Join(c.dir, name)
}

// validName reports whether name can name a table: lower-case letters,
// digits and '-', starting with a letter, at most 128 bytes. Only files so
// named (and starting as a table does) are ever pruned.
func validName(name string) bool {
	if name == "" || len(name) > 128 || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
		default:
			return false
		}
	}
	return true
}

// Table is a read-only view of one table. The zero value and nil are an
// empty table.
type Table struct {
	keySize int
	fanout  [257]uint32 // fanout[b]: the first entry whose key starts with a byte >= b
	keys    []byte
	offs    []byte // count+1 little-endian uint32 offsets into vals
	vals    []byte
}

// Open reads table name of key size keySize. A cache that is off, a
// missing table, and a table that is not one (another key size or version,
// too big, a symlink, not the user's, a wrong checksum, a truncated file)
// all give an empty table, and so does a table whose MAC is not the one
// c's key gives its name and content (damaged, copied from another name,
// written with another key); the error, when not nil, says why the file
// was not used (for a debug log) and may be ignored.
func (c *Cache) Open(name string, keySize int) (*Table, error) {
	empty := &Table{keySize: keySize}
	if !c.Enabled() {
		return empty, nil
	}
	if !validName(name) || keySize <= 0 || keySize > 64 {
		return empty, fmt.Errorf("cache table %q: invalid name or key size", name)
	}
	if err := c.checkDir(false); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return empty, nil
		}
		return empty, err
	}
	path := filepath.Join(c.dir, name)
	data, unmap, err := readPrivate(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return empty, nil
		}
		return empty, fmt.Errorf("cache table %s: %w", path, err)
	}
	t, err := parse(data, keySize, c.mac(name))
	if err != nil {
		if unmap != nil {
			unmap() // nothing points into it
		}
		return empty, fmt.Errorf("cache table %s: %w", path, err)
	}
	return t, nil
}

// openPrivate opens path for reading without following a symlink or
// blocking on a FIFO, and checks that it is a regular file the user owns
// (ownedPrivate): the one opening of a table and of the key file. The
// caller closes the file.
func openPrivate(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, nil, errors.New("a symlink, not read")
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	if err == nil {
		err = ownedPrivate(fi, false)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// readPrivate reads a regular file of at most MaxTableSize bytes that the
// user owns, without following a symlink or blocking on a FIFO; unmap is
// readTable's.
func readPrivate(path string) (data []byte, unmap func(), err error) {
	f, fi, err := openPrivate(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi.Size() > MaxTableSize {
		return nil, nil, fmt.Errorf("%d bytes, more than %d", fi.Size(), MaxTableSize)
	}
	data, unmap, err = readTable(f, fi.Size())
	if err != nil {
		return nil, nil, err
	}
	markUsed(f, fi.ModTime())
	return data, unmap, nil
}

// usedAfter is how old a table's modification time may get before a read
// moves it to now: prune removes the tables written longest ago, and a
// table only ever read (a warm cache) must not look unused.
const usedAfter = 24 * time.Hour

// markUsed sets the modification time of the open table f (last modified
// at mod) to now when mod is older than usedAfter. Errors are ignored.
func markUsed(f *os.File, mod time.Time) {
	now := time.Now()
	if now.Sub(mod) < usedAfter {
		return
	}
	tv := unix.NsecToTimeval(now.UnixNano())
	_ = unix.Futimes(int(f.Fd()), []unix.Timeval{tv, tv})
}

// header is magic, then key size, count, values length (uint32 each).
const headerSize = 12

// mac returns the MAC of table name, ready for its content.
func (c *Cache) mac(name string) hash.Hash {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(macLabel))
	m.Write([]byte(name))
	m.Write([]byte{0})
	return m
}

// parse checks data as a table of keySize keys whose MAC, begun by m (its
// name written), is its last macSize bytes, and returns its view (the
// slices point into data).
func parse(data []byte, keySize int, m hash.Hash) (*Table, error) {
	if len(data) < len(magic)+headerSize+4+macSize || !bytes.Equal(data[:len(magic)], magic) {
		return nil, errors.New("not a cache table (or another version)")
	}
	body, sum := data[:len(data)-macSize], data[len(data)-macSize:]
	m.Write(body)
	if !hmac.Equal(m.Sum(nil), sum) {
		return nil, errors.New("not authenticated (damaged, copied from another table, or written with another key)")
	}
	return parseBody(body, keySize)
}

// parseBody checks body (a table file without its MAC) as a table of
// keySize keys and returns its view. It trusts nothing: the fuzz target
// calls it with any bytes.
func parseBody(body []byte, keySize int) (*Table, error) {
	if len(body) < len(magic)+headerSize+4 || !bytes.Equal(body[:len(magic)], magic) {
		return nil, errors.New("not a cache table (or another version)")
	}
	h := body[len(magic):]
	ks := int(binary.LittleEndian.Uint32(h[0:]))
	count := int64(binary.LittleEndian.Uint32(h[4:]))
	vlen := int64(binary.LittleEndian.Uint32(h[8:]))
	if ks != keySize {
		return nil, fmt.Errorf("key size %d, want %d", ks, keySize)
	}
	rest := h[headerSize:]
	need := count*int64(keySize) + (count+1)*4 + vlen
	if need != int64(len(rest)) {
		return nil, errors.New("truncated or padded")
	}
	t := &Table{keySize: keySize}
	t.keys = rest[:count*int64(keySize)]
	t.offs = rest[len(t.keys) : int64(len(t.keys))+(count+1)*4]
	t.vals = rest[int64(len(t.keys))+(count+1)*4:]
	prev := uint32(0)
	for i := int64(0); i <= count; i++ {
		o := binary.LittleEndian.Uint32(t.offs[i*4:])
		if o < prev || int64(o) > vlen || (i == 0 && o != 0) {
			return nil, errors.New("value offsets out of order")
		}
		prev = o
	}
	if int64(prev) != vlen {
		return nil, errors.New("values do not end where the offsets say")
	}
	// keys strictly increasing; fan-out from the first bytes
	b := 0
	for i := 0; i < int(count); i++ {
		k := t.keys[i*keySize : (i+1)*keySize]
		if i > 0 && bytes.Compare(t.keys[(i-1)*keySize:i*keySize], k) >= 0 {
			return nil, errors.New("keys out of order")
		}
		for b <= int(k[0]) {
			t.fanout[b] = uint32(i)
			b++
		}
	}
	for ; b <= 256; b++ {
		t.fanout[b] = uint32(count)
	}
	return t, nil
}

// Len returns the number of entries in t.
func (t *Table) Len() int {
	if t == nil || t.keySize == 0 {
		return 0
	}
	return len(t.keys) / t.keySize
}

// KeySize returns the size of t's keys.
func (t *Table) KeySize() int {
	if t == nil {
		return 0
	}
	return t.keySize
}

// Get returns the value of key, and whether t holds it. The value points
// into t: the caller must not change it. t's bytes are read once when the
// table is opened (mapped, or into a buffer of its own) and nothing writes
// them again (saving merges into a new one), and callers keep views into a value for
// the whole run (the story, wfstates and verdict decoders: strings that
// point into it). A table of mapMin bytes or more is mapped read-only
// (mapread.go): a value changed in place ends the process.
func (t *Table) Get(key []byte) ([]byte, bool) {
	if t == nil || len(key) != t.keySize || len(t.keys) == 0 {
		return nil, false
	}
	lo, hi := int(t.fanout[key[0]]), int(t.fanout[int(key[0])+1])
	ks := t.keySize
	i := lo
	if ks >= 9 {
		// the keys of a fan-out bucket share their first byte: compare the
		// next eight as a number, and the rest only when those are equal
		// (keys are hashes: almost never)
		want := binary.BigEndian.Uint64(key[1:9])
		for lo, hi := lo, hi; lo < hi; {
			m := int(uint(lo+hi) >> 1)
			k := t.keys[m*ks : (m+1)*ks]
			c := cmp.Compare(binary.BigEndian.Uint64(k[1:9]), want)
			if c == 0 {
				c = bytes.Compare(k[9:], key[9:])
			}
			if c < 0 {
				lo = m + 1
			} else {
				hi = m
			}
			i = lo
		}
	} else {
		i += sort.Search(hi-lo, func(i int) bool {
			return bytes.Compare(t.keys[(lo+i)*ks:(lo+i+1)*ks], key) >= 0
		})
	}
	if i >= hi || !bytes.Equal(t.keys[i*ks:(i+1)*ks], key) {
		return nil, false
	}
	return t.value(i), true
}

func (t *Table) value(i int) []byte {
	a := binary.LittleEndian.Uint32(t.offs[i*4:])
	b := binary.LittleEndian.Uint32(t.offs[(i+1)*4:])
	return t.vals[a:b:b]
}

// Builder collects the new entries of a table. Keys and values are copied
// into chunks (no allocation per entry, and no copy of everything when the
// buffer grows): the first of builderFirstChunk bytes, each next one twice
// the last up to builderChunk, so a table of a few entries (most of a
// first run's tables) does not hold a whole builderChunk.
type Builder struct {
	keySize int
	chunks  [][]byte     // keys and values, one after the other
	ents    []builderEnt // in the order added
	sorted  bool
}

const (
	builderChunk      = 1 << 20
	builderFirstChunk = 4 << 10
)

type builderEnt struct {
	chunk int32 // which chunk
	at    int32 // where the key starts in it (its value follows)
	vlen  int32
}

// NewBuilder returns a builder of keySize keys.
func NewBuilder(keySize int) *Builder {
	return &Builder{keySize: keySize}
}

// Add records value for key (a later Add of the same key wins). A key of
// another size is ignored. Key and value are copied.
func (b *Builder) Add(key, value []byte) {
	if b == nil || len(key) != b.keySize {
		return
	}
	if len(value) > 1<<30 {
		return
	}
	need := len(key) + len(value)
	n := len(b.chunks)
	if n == 0 || cap(b.chunks[n-1])-len(b.chunks[n-1]) < need {
		size := builderFirstChunk
		if n > 0 {
			size = min(2*cap(b.chunks[n-1]), builderChunk)
		}
		b.chunks = append(b.chunks, make([]byte, 0, max(size, need)))
		n++
	}
	ch := b.chunks[n-1]
	at := len(ch)
	ch = append(ch, key...)
	b.chunks[n-1] = append(ch, value...)
	b.ents = append(b.ents, builderEnt{int32(n - 1), int32(at), int32(len(value))})
	b.sorted = false
}

// Len returns the number of entries added (a key added twice counts
// twice until the table is written).
func (b *Builder) Len() int {
	if b == nil {
		return 0
	}
	return len(b.ents)
}

func (b *Builder) key(i int) []byte { return b.keyOf(b.ents[i]) }

func (b *Builder) keyOf(e builderEnt) []byte {
	return b.chunks[e.chunk][e.at : int(e.at)+b.keySize]
}

func (b *Builder) value(i int) []byte {
	e := b.ents[i]
	v := int(e.at) + b.keySize
	return b.chunks[e.chunk][v : v+int(e.vlen) : v+int(e.vlen)]
}

// sort orders the entries by key, keeping the last one added of each key.
func (b *Builder) sort() {
	if b.sorted {
		return
	}
	// by key, then in the order added (chunk, then offset: entries are
	// appended), which is what a stable sort keeps, without its O(n log² n)
	// merging (20,000 stories: 56 ms of a first run)
	slices.SortFunc(b.ents, func(x, y builderEnt) int {
		if c := bytes.Compare(b.keyOf(x), b.keyOf(y)); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(x.chunk, y.chunk), cmp.Compare(x.at, y.at))
	})
	out := b.ents[:0]
	for i := range b.ents {
		if len(out) > 0 && bytes.Equal(b.key(i), b.keyOf(out[len(out)-1])) {
			out[len(out)-1] = b.ents[i] // the later Add wins (the sort is stable)
			continue
		}
		out = append(out, b.ents[i])
	}
	b.ents = out
	b.sorted = true
}

// Write replaces table name with old's entries and b's (b's win), or with
// b's alone when both would be bigger than MaxTableSize. Nothing is written
// when c is off or b holds nothing new. The folder is created (0700) when
// missing; it must be the user's and not writable by others.
func (c *Cache) Write(name string, old *Table, b *Builder) error {
	if !c.Enabled() || b == nil || len(b.ents) == 0 {
		return nil
	}
	if !validName(name) {
		return fmt.Errorf("cache table %q: invalid name", name)
	}
	if old != nil && old.keySize != 0 && old.keySize != b.keySize {
		old = nil
	}
	b.sort()
	m := newMerge(old, b)
	if old != nil && m.size() > MaxTableSize {
		m = newMerge(nil, b)
	}
	if m.size() > MaxTableSize || m.count > 1<<31 {
		return fmt.Errorf("cache table %s: %d bytes, more than %d", name, m.size(), MaxTableSize)
	}
	if err := c.checkDir(true); err != nil {
		return err
	}
	mac := c.mac(name)
	if err := writeAtomic(c.dir, name, func(w io.Writer) error { return m.writeTo(w, mac) }); err != nil {
		return err
	}
	c.prune(name, MaxFolderSize)
	return nil
}

// merge walks old's entries and b's (sorted) in key order, b's winning.
type merge struct {
	old   *Table
	b     *Builder
	count int64
	vlen  int64
}

func newMerge(old *Table, b *Builder) *merge {
	m := &merge{old: old, b: b}
	m.each(func(k, v []byte) { m.count++; m.vlen += int64(len(v)) })
	return m
}

// size is the table file's size.
func (m *merge) size() int64 {
	return int64(len(magic)+headerSize) + m.count*int64(m.b.keySize+4) + 4 + m.vlen + macSize
}

func (m *merge) each(f func(k, v []byte)) {
	ks := m.b.keySize
	n := m.old.Len()
	i, j := 0, 0
	for i < n || j < len(m.b.ents) {
		switch {
		case j >= len(m.b.ents):
			f(m.old.keys[i*ks:(i+1)*ks], m.old.value(i))
			i++
		case i >= n:
			f(m.b.key(j), m.b.value(j))
			j++
		default:
			switch c := bytes.Compare(m.old.keys[i*ks:(i+1)*ks], m.b.key(j)); {
			case c < 0:
				f(m.old.keys[i*ks:(i+1)*ks], m.old.value(i))
				i++
			case c > 0:
				f(m.b.key(j), m.b.value(j))
				j++
			default:
				f(m.b.key(j), m.b.value(j))
				i, j = i+1, j+1
			}
		}
	}
}

// writeTo writes the table file to w: header, keys, offsets, values, and
// the MAC of all that (mac, begun with the table's name).
func (m *merge) writeTo(w io.Writer, mac hash.Hash) error {
	bw := bufio.NewWriterSize(io.MultiWriter(w, mac), 64<<10)
	var num [4]byte
	put := func(x uint32) {
		binary.LittleEndian.PutUint32(num[:], x)
		bw.Write(num[:])
	}
	bw.Write(magic)
	put(uint32(m.b.keySize))
	put(uint32(m.count))
	put(uint32(m.vlen))
	m.each(func(k, v []byte) { bw.Write(k) })
	put(0)
	off := uint32(0)
	m.each(func(k, v []byte) { off += uint32(len(v)); put(off) })
	m.each(func(k, v []byte) { bw.Write(v) })
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(mac.Sum(nil))
	return err
}

// encode returns the file of table name of c, old and b merged (tests and
// fuzzing).
func (c *Cache) encode(name string, old *Table, b *Builder) ([]byte, error) {
	b.sort()
	var buf bytes.Buffer
	err := newMerge(old, b).writeTo(&buf, c.mac(name))
	return buf.Bytes(), err
}
