package gitobj

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/orchestrate-dev/orchestrate/internal/gitdelta"
	"github.com/orchestrate-dev/orchestrate/internal/inflate"
)

// Limits of the pack reader.
const (
	MaxPackedObject = gitdelta.MaxObject // the largest object (or delta) inflated, whole
	maxDeltaDepth   = 4096               // the longest delta chain followed
	cacheBytes      = 4 << 20            // the delta-base cache
	maxCachedObject = 1 << 20            // the largest object the cache keeps
	pageSize        = 4096               // what touched counts
	maxKeptIndex    = 16 << 20           // the pack index bytes a fork leaves mapped, at most (see touch)
	idxHeaderLen    = 8 + 256*4
)

// errNotHere sends a look-up on to go-git's storage.
var errNotHere = errors.New("object not handled by the pack reader")

// Store reads objects straight from the pack files: a look-up is a
// search in the memory-mapped pack index, an object is inflated from the
// memory-mapped pack (read with pread when it cannot be mapped; mapped pages
// are dropped from the process's memory as a walk goes), a delta base is read at its
// offset in the pack (no reverse index of the pack is ever built), and
// objects rebuilt from delta chains are kept in a bounded cache keyed by pack
// offset — nothing is re-hashed, the hash is the one the index names. Loose
// objects and the alternates' packs and loose objects are read here too.
// Every size an object declares (pack entry, delta header, loose header) is
// checked before anything is inflated, and the work of rebuilding a delta
// chain is bounded (maxDeltaWork). Only objects of packs this reader does
// not take (an index it cannot read) go to the wrapped go-git storage, once
// it has told their size; every other method goes there too.
type Store struct {
	storer.EncodedObjectStorer
	// mu serialises the pack reader: the packs' file offsets, the reused
	// inflater and the cache are shared (discovery dates stories from git
	// while other sources scan).
	mu sync.Mutex
	// goGit serialises the look-ups sent on to go-git's storage, which is
	// not safe for concurrent use (its maps of packs and indexes): two
	// readers of one Repo may ask at once (see gitrepo's HistoryFor).
	goGit  sync.Mutex
	FS     billy.Filesystem
	packs  []*packFile
	loaded bool
	cache  *offsetCache
	fr     io.ReadCloser    // the reused deflate reader (see inflate)
	inf    *inflate.Decoder // the reused in-memory inflater (see inflateFast)
	br     *bufio.Reader
	// scratch holds the buffers deltas were inflated in, per depth of the
	// chain (see keepScratch).
	scratch [][]byte
	mr      bytes.Reader // over a mapped pack
	// touched counts the pages of mapped files read since their pages were
	// last dropped from the process's memory, each once (seen; see touch);
	// mapped is the size of the packs and indexes mapped (set by load).
	touched, mapped int
	seen            map[*packFile]*pageSet
	// work counts the bytes inflated and rebuilt by the current read (see
	// maxDeltaWork), total those of every delta and base (see
	// maxStoreDeltaWork).
	work, total uint64
	// objDir is the repository's objects folder (alternates are relative
	// to it); alts are the alternate object folders (see loadAlternates).
	ObjDir string
	alts   []billy.Filesystem
	// forked is set on a Fork: no go-git fallback, and Close closes
	// nothing (the packs are its parent's); a fork drops the mappings
	// past touchDiv times fewer pages (see touch).
	forked   bool
	touchDiv int
}

func NewStore(s storer.EncodedObjectStorer, fs billy.Filesystem) *Store {
	return &Store{EncodedObjectStorer: s, FS: fs, cache: newOffsetCache(cacheBytes)}
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
func (s *Store) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	return s.SmallObject(t, h, MaxPackedObject)
}

// SmallObject is EncodedObject for an object of at most max bytes: a bigger
// one is an error wrapping ErrObjectTooLarge, found from the size its pack
// entry, delta header or loose header declares, before anything is
// inflated. Objects outside the packs and the loose folders (alternates,
// packs this reader does not take) come from go-git's storage once it has
// told their size.
func (s *Store) SmallObject(t plumbing.ObjectType, h plumbing.Hash, max uint64) (plumbing.EncodedObject, error) {
	typ, data, _, err := s.object(h, max, 0)
	if errors.Is(err, errNotHere) {
		return s.fromGoGit(t, h, max)
	}
	if err != nil {
		return nil, err
	}
	if t != plumbing.AnyObject && typ != t {
		return nil, plumbing.ErrObjectNotFound
	}
	return &packedObject{h: h, t: typ, data: data}, nil
}

// fromGoGit asks go-git's storage for h once the size it declares is at
// most max.
func (s *Store) fromGoGit(t plumbing.ObjectType, h plumbing.Hash, max uint64) (plumbing.EncodedObject, error) {
	if s.forked || s.EncodedObjectStorer == nil {
		return nil, plumbing.ErrObjectNotFound
	}
	s.goGit.Lock()
	defer s.goGit.Unlock()
	if sz, ok := s.EncodedObjectStorer.(interface {
		EncodedObjectSize(plumbing.Hash) (int64, error)
	}); ok {
		n, err := sz.EncodedObjectSize(h)
		switch {
		case err == nil && n >= 0 && uint64(n) > max:
			return nil, fmt.Errorf("read object %s: %w", h, tooLarge(uint64(n), max))
		case err != nil && !errors.Is(err, plumbing.ErrObjectNotFound):
			return nil, fmt.Errorf("read object %s: %w", h, err)
		}
	}
	return s.EncodedObjectStorer.EncodedObject(t, h)
}

// object reads h from the packs, else from its loose file: all of it (at
// most max bytes) or, with cut > 0, its first cut bytes (whole reports
// whether that is all of it). errNotHere sends the look-up on to go-git.
func (s *Store) object(h plumbing.Hash, max uint64, cut int) (plumbing.ObjectType, []byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.load()
	for _, p := range s.packs {
		off, ok, at := p.findAt(h)
		s.touchIndex(p, at)
		if !ok {
			continue
		}
		typ, data, whole, err := s.read(p, off, 0, max, cut)
		if errors.Is(err, errNotHere) {
			return 0, nil, false, err
		}
		if err != nil {
			return 0, nil, false, fmt.Errorf("read object %s from %s: %w", h, p.name, err)
		}
		return typ, data, whole, nil
	}
	return s.loose(h, max, cut)
}

// CommitPrefix returns the first n bytes of commit h (all of it when it is
// shorter; whole reports that): the history walk needs only the tree and
// parent lines, and a commit is inflated (or rebuilt from its delta) no
// further.
func (s *Store) CommitPrefix(h plumbing.Hash, n int) (data []byte, whole bool, err error) {
	typ, data, whole, err := s.object(h, MaxPackedObject, n)
	if errors.Is(err, errNotHere) {
		obj, err := s.fromGoGit(plumbing.CommitObject, h, MaxPackedObject)
		if err != nil {
			return nil, false, err
		}
		data, err = ObjectBytes(obj)
		return data, err == nil, err
	}
	if err != nil {
		return nil, false, err
	}
	if typ != plumbing.CommitObject {
		return nil, false, plumbing.ErrObjectNotFound
	}
	return data, whole, nil
}

// load opens every pack index once; a pack that cannot be read is skipped
// (its objects then come from go-git).
func (s *Store) load() {
	if s.loaded {
		return
	}
	s.loaded = true
	if s.FS == nil {
		return
	}
	s.loadPacks(s.FS, s.FS.Join("objects", "pack"))
	s.loadAlternates()
	s.mapped = mappedSize(s.packs)
}

// loadPacks opens the packs of the folder dir of fs.
func (s *Store) loadPacks(fs billy.Filesystem, dir string) {
	infos, err := fs.ReadDir(dir)
	if err != nil {
		return
	}
	for _, fi := range infos {
		name := fi.Name()
		if !strings.HasSuffix(name, ".idx") {
			continue
		}
		if p, err := openPack(fs, fs.Join(dir, name), fs.Join(dir, strings.TrimSuffix(name, ".idx")+".pack")); err == nil {
			s.packs = append(s.packs, p)
		}
	}
}

// Alternates: the object folders objects/info/alternates names (a path
// per line, relative to the objects folder naming it), and theirs, up to
// maxAlternateDepth deep and maxAlternates in all, as git reads them. Their
// packs and loose objects are read here, under the same bounds as the
// repository's own, so that go-git is never asked for them.
const (
	maxAlternateDepth = 5
	maxAlternates     = 64
)

// loadAlternates opens the packs of the alternate object folders and
// keeps the folders for loose objects (s.alts). The repository's own
// objects folder is s.objDir (set by Open; without it relative alternates
// are taken from the .git folder's objects).
func (s *Store) loadAlternates() {
	own := s.ObjDir
	if own == "" {
		root := s.FS.Root()
		if !filepath.IsAbs(root) {
			return
		}
		own = filepath.Join(root, "objects")
	}
	seen := map[string]bool{filepath.Clean(own): true}
	type level struct {
		dir   string
		depth int
	}
	queue := []level{{own, 0}}
	for len(queue) > 0 && len(s.alts) < maxAlternates {
		cur := queue[0]
		queue = queue[1:]
		if cur.depth >= maxAlternateDepth {
			continue
		}
		data, err := ReadGitFile(filepath.Join(cur.dir, "info", "alternates"), maxConfigFile)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || line[0] == '#' {
				continue
			}
			if !filepath.IsAbs(line) {
				line = filepath.Join(cur.dir, line)
			}
			line = filepath.Clean(line)
			if seen[line] || len(s.alts) >= maxAlternates {
				continue
			}
			seen[line] = true
			if fi, err := os.Stat(line); err != nil || !fi.IsDir() {
				continue
			}
			afs := SafeFS{osfs.New(line)}
			s.alts = append(s.alts, afs)
			s.loadPacks(afs, "pack")
			queue = append(queue, level{line, cur.depth + 1})
		}
	}
}

// Close releases the mapped indexes and open packs.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.forked {
		s.packs = nil
		return nil
	}
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
// rebuilding deltas from their bases. An object over max bytes is an error
// wrapping ErrObjectTooLarge, checked before anything is inflated: the size
// a pack entry declares, or, for a delta, the size its header declares,
// read before its base. With cut > 0 only the first cut bytes are wanted:
// an object longer than that comes back cut (whole false) and limit does not
// apply to it. The work of one read (bytes inflated and rebuilt along a
// delta chain) is bounded by maxDeltaWork.
func (s *Store) read(p *packFile, off int64, depth int, limit uint64, cut int) (plumbing.ObjectType, []byte, bool, error) {
	if depth == 0 {
		s.work = 0
	}
	if e, ok := s.cache.get(p, off); ok {
		e.lent = e.lent || depth == 0 // a reader's from now on
		switch {
		case cut > 0 && len(e.data) > cut:
			return e.t, e.data[:cut:cut], false, nil
		case uint64(len(e.data)) > limit:
			return 0, nil, false, tooLarge(uint64(len(e.data)), limit)
		}
		return e.t, e.data, true, nil
	}
	if depth > maxDeltaDepth {
		return 0, nil, false, fmt.Errorf("delta chain longer than %d at offset %d", maxDeltaDepth, off)
	}
	if off < 12 || off >= p.size-20 {
		return 0, nil, false, fmt.Errorf("offset %d outside the pack", off)
	}
	var b []byte
	if p.data != nil {
		b = p.data[off:min(off+32, p.size-20)] // not the trailing checksum
	} else {
		var hdr [32]byte
		n, err := p.pack.ReadAt(hdr[:min(32, p.size-20-off)], off) // not the trailing checksum
		if n == 0 && err != nil {
			return 0, nil, false, err
		}
		b = hdr[:n]
	}
	typ, size, i, err := objectHeader(b)
	if err != nil {
		return 0, nil, false, err
	}
	baseP, baseOff := p, int64(-1)
	switch typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
	case plumbing.OFSDeltaObject:
		rel, n, err := deltaOffset(b[i:])
		if err != nil {
			return 0, nil, false, err
		}
		i += n
		if rel <= 0 || rel >= off {
			return 0, nil, false, fmt.Errorf("delta at %d names a base outside the pack", off)
		}
		baseOff = off - rel
	case plumbing.REFDeltaObject:
		if i+20 > len(b) {
			return 0, nil, false, errors.New("truncated object header")
		}
		var bh plumbing.Hash
		copy(bh[:], b[i:i+20])
		i += 20
		if baseP, baseOff = s.findPacked(p, bh); baseP == nil {
			return 0, nil, false, errNotHere // a thin pack's base outside the packs: go-git looks further
		}
	default:
		return 0, nil, false, fmt.Errorf("unknown object type %d at offset %d", typ, off)
	}
	at := off + int64(i)
	if at > p.size-20 {
		return 0, nil, false, fmt.Errorf("truncated object header at offset %d", off)
	}
	if baseOff < 0 { // stored whole
		n, whole := size, true
		if cut > 0 && size > uint64(cut) {
			n, whole = uint64(cut), false
		} else if size > limit {
			return 0, nil, false, tooLarge(size, limit)
		}
		if err := s.charge(n, off, depth > 0 || n > maxCachedObject); err != nil {
			return 0, nil, false, err
		}
		var buf []byte
		if depth > 0 && whole {
			buf = s.cache.buffer(int(n)) // a base: kept by the cache alone
		}
		data, err := s.inflateAt(p, at, int(n), buf)
		if err != nil {
			return 0, nil, false, fmt.Errorf("inflate object at %d: %w", off, err)
		}
		if whole {
			s.cache.put(p, off, typ, data, depth > 0)
		}
		return typ, data, whole, nil
	}
	// A delta: its header first (the sizes of its base and of what it
	// builds), so that nothing too large is rebuilt.
	if size > MaxPackedObject {
		return 0, nil, false, tooLarge(size, MaxPackedObject)
	}
	// A small delta (nearly all of them) is inflated whole at once, a
	// larger one only its header now and whole once its base is built.
	var head, held []byte
	if size <= maxHeldDelta {
		held, err = s.inflateAt(p, at, int(size), s.scratchFor(depth))
		head = held
	} else {
		head, err = s.inflateAt(p, at, int(min(size, 2*binary.MaxVarintLen64)), nil)
	}
	if err != nil {
		return 0, nil, false, fmt.Errorf("inflate delta at %d: %w", off, err)
	}
	srcSize, n := binary.Uvarint(head)
	if n <= 0 {
		return 0, nil, false, fmt.Errorf("delta at %d: truncated header", off)
	}
	dstSize, m := binary.Uvarint(head[n:])
	if m <= 0 {
		return 0, nil, false, fmt.Errorf("delta at %d: truncated header", off)
	}
	want, whole := dstSize, true
	if cut > 0 && dstSize > uint64(cut) {
		want, whole = uint64(cut), false
	} else if dstSize > limit {
		return 0, nil, false, tooLarge(dstSize, limit)
	}
	if srcSize > MaxPackedObject {
		return 0, nil, false, fmt.Errorf("delta base: %w", tooLarge(srcSize, MaxPackedObject))
	}
	if whole && dstSize > MaxPackedObject {
		return 0, nil, false, tooLarge(dstSize, MaxPackedObject)
	}
	// A cut object needs no more of its delta than 8 bytes (the longest
	// copy instruction) per byte built.
	dn := size
	if !whole {
		dn = min(size, 8*want+2*binary.MaxVarintLen64)
	}
	if err := s.charge(dn+want, off, true); err != nil {
		return 0, nil, false, err
	}
	baseType, base, _, err := s.read(baseP, baseOff, depth+1, MaxPackedObject, 0)
	if err != nil {
		return 0, nil, false, err
	}
	delta := held
	if delta == nil {
		if delta, err = s.inflateAt(p, at, int(dn), s.scratchFor(depth)); err != nil {
			return 0, nil, false, fmt.Errorf("inflate delta at %d: %w", off, err)
		}
	}
	data, whole, err := gitdelta.Apply(base, delta, limit, cut, s.cache.buffer(int(want)))
	s.keepScratch(depth, delta) // its bytes were copied: the buffer is free again
	if err != nil {
		return 0, nil, false, fmt.Errorf("apply delta at %d: %w", off, err)
	}
	if whole {
		s.cache.put(p, off, baseType, data, depth > 0)
	}
	return baseType, data, whole, nil
}

// scratchFor returns the buffer a delta at depth of a chain may be inflated
// in (nil: none yet): a delta is read only to build its object, and the
// depths below it are rebuilt while it is held, each with its own.
func (s *Store) scratchFor(depth int) []byte {
	if depth < len(s.scratch) {
		return s.scratch[depth]
	}
	return nil
}

// keepScratch keeps b, a delta read at depth and no longer needed, for the
// next delta read there; up to maxScratchDepth depths and maxScratch bytes
// each.
func (s *Store) keepScratch(depth int, b []byte) {
	if depth >= maxScratchDepth || cap(b) > maxScratch {
		return
	}
	for len(s.scratch) <= depth {
		s.scratch = append(s.scratch, nil)
	}
	s.scratch[depth] = b[:0]
}

// maxScratchDepth and maxScratch bound the delta buffers a Store keeps
// (see keepScratch): 64 KiB at each of the first 64 depths at most.
const (
	maxScratchDepth = 64
	maxScratch      = 64 << 10
)

// maxDeltaWork bounds the work of one read: the bytes inflated and rebuilt
// along a delta chain (a small pack of deltas over a large base would
// otherwise rebuild the base once per link).
var maxDeltaWork uint64 = 512 << 20

// maxHeldDelta is the largest delta inflated before its base is built (and
// so held while the chain below it is rebuilt: at most 16 MiB along the
// longest chain followed).
const maxHeldDelta = 4 << 10

// maxStoreDeltaWork bounds the delta work of all the reads of a store —
// deltas, their bases, and objects over maxCachedObject inflated whole: a
// small pack of thousands of deltas over one large base, or of thousands of
// large objects that compress to nothing, would otherwise take minutes,
// each read within maxDeltaWork.
var maxStoreDeltaWork uint64 = 2 << 30

// ErrObjectTooLarge is an object over the size a reader takes: it is never
// inflated.
var ErrObjectTooLarge = gitdelta.ErrObjectTooLarge

// ErrDeltaWork is a delta chain that needs more work than maxDeltaWork to
// rebuild.
var ErrDeltaWork = errors.New("delta chain too costly to rebuild")

func tooLarge(size, max uint64) error { return gitdelta.TooLarge(size, max) }

// charge counts n bytes of work of the current read, and, for a delta, a
// delta's base or a large object (delta), of the store's work in all.
func (s *Store) charge(n uint64, off int64, delta bool) error {
	s.work += n
	if s.work > maxDeltaWork {
		return fmt.Errorf("%w: the object at offset %d needs more than %d bytes inflated and rebuilt", ErrDeltaWork, off, maxDeltaWork)
	}
	if delta {
		s.total += n
		if s.total > maxStoreDeltaWork {
			return fmt.Errorf("%w: the repository's deltas and large objects needed more than %d bytes inflated and rebuilt in all", ErrDeltaWork, maxStoreDeltaWork)
		}
	}
	return nil
}

// findPacked finds h in p first, then in the other packs; nil when no pack
// holds it.
func (s *Store) findPacked(p *packFile, h plumbing.Hash) (*packFile, int64) {
	if off, ok := p.find(h); ok {
		return p, off
	}
	for _, q := range s.packs {
		if q == p {
			continue
		}
		if off, ok := q.find(h); ok {
			return q, off
		}
	}
	return nil, -1
}

// inflateAt inflates n bytes of the zlib stream at offset at of p, into buf
// when it can (see inflateFast).
func (s *Store) inflateAt(p *packFile, at int64, n int, buf []byte) ([]byte, error) {
	if p.data != nil {
		data, used, err := s.inflateMapped(p.data[at:p.size-20], n, buf)
		s.touchPack(p, at, at+int64(used)) // the pages the object spans
		return data, err
	}
	sr := io.NewSectionReader(p.pack, at, p.size-20-at) // not the trailing checksum
	if s.br == nil {
		s.br = bufio.NewReaderSize(sr, 4096)
	} else {
		s.br.Reset(sr)
	}
	return s.inflate(s.br, n)
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
