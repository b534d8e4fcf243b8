package gitrepo

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"container/list"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Limits of the pack reader; objects beyond them are left to go-git.
const (
	maxPackedObject = 64 << 20 // the largest object (or delta) inflated here
	maxDeltaDepth   = 4096     // the longest delta chain followed
	cacheBytes      = 4 << 20  // the delta-base cache
	maxCachedObject = 1 << 20  // the largest object the cache keeps
	maxTouchedPages = 8192     // mapped pages read before they are dropped (32 MiB)
	pageSize        = 4096     // what touched counts (an estimate is enough)
	idxPagesPerFind = 1        // new index pages a look-up reads, roughly (the first probes share theirs)
	idxHeaderLen    = 8 + 256*4
)

// errNotHere sends a look-up on to go-git's storage.
var errNotHere = errors.New("object not handled by the pack reader")

// objectStore reads objects straight from the pack files: a look-up is a
// search in the memory-mapped pack index, an object is inflated from the
// memory-mapped pack (read with pread when it cannot be mapped; mapped pages
// are dropped from the process's memory as a walk goes), a delta base is read at its
// offset in the pack (no reverse index of the pack is ever built), and
// objects rebuilt from delta chains are kept in a bounded cache keyed by pack
// offset — nothing is re-hashed, the hash is the one the index names. Loose
// objects, alternates, objects over maxPackedObject and every other method go
// to the wrapped go-git storage.
type objectStore struct {
	storer.EncodedObjectStorer
	// mu serialises the pack reader: the packs' file offsets, the reused
	// inflater and the cache are shared (discovery dates stories from git
	// while other sources scan).
	mu     sync.Mutex
	fs     billy.Filesystem
	packs  []*packFile
	loaded bool
	cache  *offsetCache
	zr     io.ReadCloser
	br     *bufio.Reader
	mr     bytes.Reader // over a mapped pack
	// touched counts the pages of mapped files read since their pages were
	// last dropped from the process's memory (see dropMapped).
	touched int
}

func newObjectStore(s storer.EncodedObjectStorer, fs billy.Filesystem) *objectStore {
	return &objectStore{EncodedObjectStorer: s, fs: fs, cache: newOffsetCache(cacheBytes)}
}

// packFile is one pack and its version 2 index.
type packFile struct {
	name   string
	idx    []byte
	unmap  func() error
	pack   billy.File   // nil when the pack is mapped
	data   []byte       // the mapped pack, nil when it is read with pread
	unmapP func() error // releases data
	size   int64        // of the pack
	n      int          // objects
	off32  int          // where the 4-byte offsets start in idx
	off64  int          // where the 8-byte offsets start
	fanout [256]uint32
}

// EncodedObject returns the object h of type t (plumbing.AnyObject: any);
// a type mismatch is plumbing.ErrObjectNotFound, as in go-git's storage.
func (s *objectStore) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	obj, err := s.fromPacks(t, h, maxPackedObject)
	if !errors.Is(err, errNotHere) {
		return obj, err
	}
	return s.EncodedObjectStorer.EncodedObject(t, h)
}

// smallObject is EncodedObject for an object of at most max bytes: a bigger
// one comes from go-git's storage, which reads it lazily (so that a caller
// that rejects big objects never holds one in memory).
func (s *objectStore) smallObject(t plumbing.ObjectType, h plumbing.Hash, max uint64) (plumbing.EncodedObject, error) {
	obj, err := s.fromPacks(t, h, max)
	if !errors.Is(err, errNotHere) {
		return obj, err
	}
	return s.EncodedObjectStorer.EncodedObject(t, h)
}

// commitPrefix returns the first n bytes of commit h (all of it when it is
// shorter; whole reports that): the history walk needs only the tree and
// parent lines, and a commit stored whole in a pack is inflated no further.
// A commit stored as a delta, or outside the packs, is read in full.
func (s *objectStore) commitPrefix(h plumbing.Hash, n int) (data []byte, whole bool, err error) {
	s.mu.Lock()
	data, whole, err = s.packPrefix(h, n)
	s.mu.Unlock()
	if !errors.Is(err, errNotHere) {
		return data, whole, err
	}
	obj, err := s.EncodedObject(plumbing.CommitObject, h)
	if err != nil {
		return nil, false, err
	}
	data, err = objectBytes(obj)
	return data, err == nil, err
}

// packPrefix is commitPrefix's pack path, under the lock: errNotHere when
// the commit is not stored whole in a mapped pack.
func (s *objectStore) packPrefix(h plumbing.Hash, n int) ([]byte, bool, error) {
	s.load()
	for _, p := range s.packs {
		off, ok := p.find(h)
		if p.unmap != nil {
			s.touch(idxPagesPerFind)
		}
		if !ok {
			continue
		}
		if p.data == nil || off < 12 || off >= p.size-20 {
			return nil, false, errNotHere
		}
		b := p.data[off:min(off+32, p.size-20)] // not the trailing checksum
		typ, size, i, err := objectHeader(b)
		switch {
		case err != nil:
			return nil, false, fmt.Errorf("read object %s from %s: %w", h, p.name, err)
		case typ == plumbing.OFSDeltaObject || typ == plumbing.REFDeltaObject:
			return nil, false, errNotHere
		case typ != plumbing.CommitObject:
			return nil, false, plumbing.ErrObjectNotFound
		}
		whole := size <= uint64(n)
		if !whole {
			size = uint64(n)
		}
		if off+int64(i) > p.size-20 {
			return nil, false, fmt.Errorf("read object %s from %s: truncated object header at %d", h, p.name, off)
		}
		s.mr.Reset(p.data[off+int64(i) : p.size-20])
		data, err := s.inflate(&s.mr, int(size))
		s.touch(1)
		if err != nil {
			return nil, false, fmt.Errorf("read object %s from %s: inflate object at %d: %w", h, p.name, off, err)
		}
		return data, whole, nil
	}
	return nil, false, errNotHere
}

// fromPacks is EncodedObject's pack path, under the lock, for objects of at
// most max bytes; errNotHere sends the look-up on to go-git.
func (s *objectStore) fromPacks(t plumbing.ObjectType, h plumbing.Hash, max uint64) (plumbing.EncodedObject, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.load()
	for _, p := range s.packs {
		off, ok := p.find(h)
		if p.unmap != nil {
			s.touch(idxPagesPerFind)
		}
		if !ok {
			continue
		}
		typ, data, err := s.read(p, off, 0, max)
		if errors.Is(err, errNotHere) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read object %s from %s: %w", h, p.name, err)
		}
		if t != plumbing.AnyObject && typ != t {
			return nil, plumbing.ErrObjectNotFound
		}
		return &packedObject{h: h, t: typ, data: data}, nil
	}
	return nil, errNotHere
}

// load opens every pack index once; a pack that cannot be read is skipped
// (its objects then come from go-git).
func (s *objectStore) load() {
	if s.loaded {
		return
	}
	s.loaded = true
	if s.fs == nil {
		return
	}
	dir := s.fs.Join("objects", "pack")
	infos, err := s.fs.ReadDir(dir)
	if err != nil {
		return
	}
	for _, fi := range infos {
		name := fi.Name()
		if !strings.HasSuffix(name, ".idx") {
			continue
		}
		if p, err := openPack(s.fs, s.fs.Join(dir, name), s.fs.Join(dir, strings.TrimSuffix(name, ".idx")+".pack")); err == nil {
			s.packs = append(s.packs, p)
		}
	}
}

// Close releases the mapped indexes and open packs.
func (s *objectStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var first error
	for _, p := range s.packs {
		if err := p.close(); err != nil && first == nil {
			first = err
		}
	}
	s.packs, s.loaded = nil, true
	s.cache = newOffsetCache(cacheBytes)
	return first
}

func openPack(fs billy.Filesystem, idxName, packName string) (_ *packFile, err error) {
	f, err := fs.Open(idxName)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := fs.Stat(idxName)
	if err != nil {
		return nil, err
	}
	if fi.Size() < idxHeaderLen+40 {
		return nil, fmt.Errorf("pack index %s: too short", idxName)
	}
	b, unmap, err := mapOrRead(fs, idxName, f, fi)
	if err != nil {
		return nil, err
	}
	p := &packFile{name: packName, idx: b, unmap: unmap}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	if !bytes.Equal(b[:8], []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}) {
		return nil, fmt.Errorf("pack index %s: not a version 2 index", idxName)
	}
	prev := uint32(0)
	for i := range p.fanout {
		v := binary.BigEndian.Uint32(b[8+4*i:])
		if v < prev {
			return nil, fmt.Errorf("pack index %s: fan-out table out of order", idxName)
		}
		p.fanout[i], prev = v, v
	}
	p.n = int(prev)
	if int64(p.n) > (fi.Size()-idxHeaderLen-40)/28 {
		return nil, fmt.Errorf("pack index %s: %d objects do not fit", idxName, p.n)
	}
	p.off32 = idxHeaderLen + p.n*24
	p.off64 = p.off32 + p.n*4
	pfi, err := fs.Stat(packName)
	if err != nil {
		return nil, err
	}
	p.size = pfi.Size()
	// Map the pack when the file system is the operating system's: objects
	// are then inflated straight from memory, with no read call per object.
	if of := osFile(fs, packName, pfi); of != nil {
		d, unmapP, merr := mmapFile(of, p.size)
		of.Close()
		if merr == nil && int64(len(d)) == p.size {
			adviseRandom(d)
			p.data, p.unmapP = d, unmapP
			return p, nil
		}
		if merr == nil {
			unmapP()
		}
	}
	if p.pack, err = fs.Open(packName); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *packFile) close() error {
	var err error
	if p.unmap != nil {
		err = p.unmap()
		p.unmap = nil
	}
	if p.unmapP != nil {
		if uerr := p.unmapP(); err == nil {
			err = uerr
		}
		p.unmapP, p.data = nil, nil
	}
	if p.pack != nil {
		if cerr := p.pack.Close(); err == nil {
			err = cerr
		}
		p.pack = nil
	}
	return err
}

// read returns the type and content of the object at offset off in p,
// rebuilding deltas from their bases; an object (or delta base) over max
// bytes is errNotHere.
func (s *objectStore) read(p *packFile, off int64, depth int, max uint64) (plumbing.ObjectType, []byte, error) {
	if e, ok := s.cache.get(p, off); ok {
		if uint64(len(e.data)) > max {
			return 0, nil, errNotHere
		}
		return e.t, e.data, nil
	}
	if depth > maxDeltaDepth {
		return 0, nil, fmt.Errorf("delta chain longer than %d at offset %d", maxDeltaDepth, off)
	}
	if off < 12 || off >= p.size-20 {
		return 0, nil, fmt.Errorf("offset %d outside the pack", off)
	}
	var b []byte
	if p.data != nil {
		b = p.data[off:min(off+32, p.size-20)] // not the trailing checksum
	} else {
		sr := io.NewSectionReader(p.pack, off, p.size-20-off) // not the trailing checksum
		if s.br == nil {
			s.br = bufio.NewReaderSize(sr, 4096)
		} else {
			s.br.Reset(sr)
		}
		var err error
		if b, err = s.br.Peek(32); err != nil && !(errors.Is(err, io.EOF) && len(b) > 0) {
			return 0, nil, err
		}
	}
	typ, size, i, err := objectHeader(b)
	if err != nil {
		return 0, nil, err
	}
	if size > max {
		return 0, nil, errNotHere
	}
	var baseType plumbing.ObjectType
	var base []byte
	switch typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
	case plumbing.OFSDeltaObject:
		rel, n, err := deltaOffset(b[i:])
		if err != nil {
			return 0, nil, err
		}
		i += n
		if rel <= 0 || rel >= off {
			return 0, nil, fmt.Errorf("delta at %d names a base outside the pack", off)
		}
		if baseType, base, err = s.read(p, off-rel, depth+1, maxPackedObject); err != nil {
			return 0, nil, err
		}
	case plumbing.REFDeltaObject:
		if i+20 > len(b) {
			return 0, nil, errors.New("truncated object header")
		}
		var bh plumbing.Hash
		copy(bh[:], b[i:i+20])
		i += 20
		boff, ok := p.find(bh)
		if !ok {
			return 0, nil, errNotHere // a thin pack's base: go-git looks further
		}
		if baseType, base, err = s.read(p, boff, depth+1, maxPackedObject); err != nil {
			return 0, nil, err
		}
	default:
		return 0, nil, fmt.Errorf("unknown object type %d at offset %d", typ, off)
	}
	if off+int64(i) > p.size-20 {
		return 0, nil, fmt.Errorf("truncated object header at offset %d", off)
	}
	var src flate.Reader
	switch {
	case p.data != nil:
		s.mr.Reset(p.data[off+int64(i) : p.size-20])
		src = &s.mr
		defer func() { // the pages the object spans, once inflated
			end := p.size - 20 - int64(s.mr.Len())
			s.touch(int(end/pageSize - off/pageSize + 1))
		}()
	case base == nil: // s.br still reads at off: skip the header
		if _, err = s.br.Discard(i); err != nil {
			return 0, nil, err
		}
		src = s.br
	default: // reading the base moved s.br
		s.br.Reset(io.NewSectionReader(p.pack, off+int64(i), p.size-20-off-int64(i)))
		src = s.br
	}
	data, err := s.inflate(src, int(size))
	if err != nil {
		return 0, nil, fmt.Errorf("inflate object at %d: %w", off, err)
	}
	if base != nil {
		if data, err = applyDelta(base, data, max); errors.Is(err, errNotHere) {
			return 0, nil, err
		} else if err != nil {
			return 0, nil, fmt.Errorf("apply delta at %d: %w", off, err)
		}
		typ = baseType
	}
	s.cache.put(p, off, typ, data)
	return typ, data, nil
}

// objectHeader parses the type and size that start an object in a pack, and
// returns how many bytes of b they take.
func objectHeader(b []byte) (plumbing.ObjectType, uint64, int, error) {
	if len(b) == 0 {
		return 0, 0, 0, errors.New("truncated object header")
	}
	c := b[0]
	i := 1
	typ := plumbing.ObjectType((c >> 4) & 7)
	size := uint64(c & 0x0f)
	for shift := uint(4); c&0x80 != 0; shift += 7 {
		if i >= len(b) {
			return 0, 0, 0, errors.New("truncated object header")
		}
		c = b[i]
		i++
		if shift > 56 {
			return 0, 0, 0, errors.New("object size overflows")
		}
		size |= uint64(c&0x7f) << shift
	}
	return typ, size, i, nil
}

// deltaOffset parses the base offset of an offset delta, and returns how
// many bytes of b it takes.
func deltaOffset(b []byte) (int64, int, error) {
	if len(b) == 0 {
		return 0, 0, errors.New("truncated object header")
	}
	c := b[0]
	i := 1
	rel := int64(c & 0x7f)
	for c&0x80 != 0 {
		if i >= len(b) {
			return 0, 0, errors.New("truncated object header")
		}
		c = b[i]
		i++
		if rel > 1<<48 {
			return 0, 0, errors.New("delta base offset overflows")
		}
		rel = ((rel + 1) << 7) | int64(c&0x7f)
	}
	return rel, i, nil
}

// inflate reads size bytes of zlib data from src.
func (s *objectStore) inflate(src flate.Reader, size int) ([]byte, error) {
	var err error
	if s.zr == nil {
		s.zr, err = zlib.NewReader(src)
	} else {
		err = s.zr.(zlib.Resetter).Reset(src, nil)
	}
	if err != nil {
		return nil, err
	}
	out := make([]byte, size)
	if _, err := io.ReadFull(s.zr, out); err != nil {
		return nil, err
	}
	return out, nil
}

// applyDelta builds the object a git delta describes from its base, in one
// allocation of the announced size; a delta that does not fit its base or
// its announced size is an error, one over max (or maxPackedObject) is
// errNotHere.
func applyDelta(src, delta []byte, max uint64) ([]byte, error) {
	srcSize, n := binary.Uvarint(delta)
	if n <= 0 || srcSize != uint64(len(src)) {
		return nil, errors.New("delta does not match its base")
	}
	delta = delta[n:]
	dstSize, n := binary.Uvarint(delta)
	if n <= 0 {
		return nil, errors.New("truncated delta header")
	}
	if dstSize > maxPackedObject || dstSize > max {
		return nil, errNotHere
	}
	delta = delta[n:]
	dst := make([]byte, 0, int(dstSize))
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		switch {
		case op&0x80 != 0: // copy from the base
			var off, size uint64
			for i := 0; i < 7; i++ {
				if op&(1<<i) == 0 {
					continue
				}
				if len(delta) == 0 {
					return nil, errors.New("truncated delta copy")
				}
				if i < 4 {
					off |= uint64(delta[0]) << (8 * i)
				} else {
					size |= uint64(delta[0]) << (8 * (i - 4))
				}
				delta = delta[1:]
			}
			if size == 0 {
				size = 0x10000
			}
			if off+size > uint64(len(src)) || uint64(len(dst))+size > dstSize {
				return nil, errors.New("delta copy out of bounds")
			}
			dst = append(dst, src[off:off+size]...)
		case op != 0: // insert literal bytes
			size := int(op)
			if size > len(delta) || uint64(len(dst)+size) > dstSize {
				return nil, errors.New("delta insert out of bounds")
			}
			dst = append(dst, delta[:size]...)
			delta = delta[size:]
		default:
			return nil, errors.New("delta opcode 0")
		}
	}
	if uint64(len(dst)) != dstSize {
		return nil, errors.New("delta builds a short object")
	}
	return dst, nil
}

// packedObject is an object read by objectStore: its hash is the one the
// index names (never recomputed) and its content is shared with the cache,
// so it is read-only.
type packedObject struct {
	h    plumbing.Hash
	t    plumbing.ObjectType
	data []byte
}

func (o *packedObject) Hash() plumbing.Hash           { return o.h }
func (o *packedObject) Type() plumbing.ObjectType     { return o.t }
func (o *packedObject) SetType(t plumbing.ObjectType) { o.t = t }
func (o *packedObject) Size() int64                   { return int64(len(o.data)) }
func (o *packedObject) SetSize(int64)                 {}
func (o *packedObject) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(o.data)), nil
}
func (o *packedObject) Writer() (io.WriteCloser, error) {
	return nil, errors.New("packed objects are read-only")
}

// offsetCache is a least-recently-used cache of rebuilt objects keyed by
// their place in a pack, bounded in bytes.
type offsetCache struct {
	max, used int
	order     *list.List
	items     map[cacheKey]*list.Element
}

type cacheKey struct {
	p   *packFile
	off int64
}

type cacheEntry struct {
	k    cacheKey
	t    plumbing.ObjectType
	data []byte
}

func newOffsetCache(max int) *offsetCache {
	return &offsetCache{max: max, order: list.New(), items: map[cacheKey]*list.Element{}}
}

func (c *offsetCache) get(p *packFile, off int64) (*cacheEntry, bool) {
	e, ok := c.items[cacheKey{p, off}]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cacheEntry), true
}

func (c *offsetCache) put(p *packFile, off int64, t plumbing.ObjectType, data []byte) {
	if len(data) > maxCachedObject {
		return
	}
	k := cacheKey{p, off}
	if _, ok := c.items[k]; ok {
		return
	}
	c.items[k] = c.order.PushFront(&cacheEntry{k: k, t: t, data: data})
	c.used += len(data)
	for c.used > c.max {
		last := c.order.Back()
		e := last.Value.(*cacheEntry)
		c.order.Remove(last)
		delete(c.items, e.k)
		c.used -= len(e.data)
	}
}
