package gitobj

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-billy/v5"
)

// mapOrRead maps the file name of fs (f, open) when it can, else reads it
// whole.
func mapOrRead(fs billy.Filesystem, name string, f billy.File, fi os.FileInfo) ([]byte, func() error, error) {
	if of := osFile(fs, name, fi); of != nil {
		defer of.Close()
		if b, unmap, err := mmapFile(of, fi.Size()); err == nil {
			return b, unmap, nil
		}
	}
	return readWhole(f, fi.Size())
}

// osFile opens the file name of fs with the operating system when fs is
// backed by it (go-billy's files hide their descriptor): the file opened must
// be the one fs names (the same device and inode as fi), else it is nil.
func osFile(fs billy.Filesystem, name string, fi os.FileInfo) *os.File {
	root := fs.Root()
	if !filepath.IsAbs(root) {
		return nil
	}
	f, _, err := OpenGitFile(filepath.Join(root, filepath.FromSlash(name)), 0)
	if err != nil {
		return nil
	}
	if ofi, err := f.Stat(); err != nil || !sameFile(ofi, fi) || ofi.Size() != fi.Size() {
		f.Close()
		return nil
	}
	return f
}

// touch counts n more pages of mapped files read; past maxResident bytes
// of them, the mapped packs and indexes leave the process's memory (they
// stay in the page cache, and a later read maps them again), so that a walk
// over a whole pack does not count the pack in the process's resident
// memory. A page is counted once until it is dropped (touchPack,
// touchIndex): a walk reads the same trees' pages over and over, and the
// pages are resident only once; an index counts the pages of the entries
// its look-ups ended at. A fork leaves indexes of at most
// maxKeptIndex bytes in all mapped: an index is shared by the walk and its
// readers, every look-up of each reads it at random places, and a fork
// that dropped it (every thousand commits or so of a cold walk) made all
// of them fault its pages in again (about 2,500 of the 17,000 page faults
// of a 20,000-commit walk). Mappings of maxResident bytes or less in all
// are never dropped: resident whole they stay within the bound, and a walk
// that dropped them faulted their pages in again (1,000 of a cache-off
// run's 4,000 faults on 1,000 workflows, 40 ms; see docs/ARCHITECTURE.md,
// issue 25's sixteenth pass).
func (s *Store) touch(n int) {
	s.touched += n
	limit := maxResident / pageSize
	if s.forked {
		// a fork shares its parent's mappings and drops them on its own
		// count: a quarter (a chain's commits), a half (the walk's trees,
		// most of what a walk reads), so that together they stay near one
		// bound
		limit /= max(s.touchDiv, 1)
	}
	if s.touched < limit {
		return
	}
	s.touched = 0
	kept := 0 // the bytes of the indexes a fork leaves mapped
	for _, p := range s.packs {
		ps := s.seen[p]
		if p.data != nil {
			drop(p.data)
		}
		if ps != nil {
			clear(ps.bits)
		}
		if s.forked && p.unmap != nil && kept+len(p.idx) <= maxKeptIndex {
			kept += len(p.idx)
		} else if p.unmap != nil {
			drop(p.idx)
			if ps != nil {
				clear(ps.idx)
			}
		}
	}
}

// pageSet is what a Store read of one pack's mappings since it last
// dropped them: a bit a page of the pack, and of its index.
type pageSet struct {
	bits, idx []uint64
}

// pages returns p's pageSet, made on the first call.
func (s *Store) pages(p *packFile) *pageSet {
	ps := s.seen[p]
	if ps == nil {
		if s.seen == nil {
			s.seen = map[*packFile]*pageSet{}
		}
		ps = &pageSet{bits: make([]uint64, len(p.data)/pageSize/64+1), idx: make([]uint64, len(p.idx)/pageSize/64+1)}
		s.seen[p] = ps
	}
	return ps
}

// mark sets the bits of the pages [from, to) spans in bits, and returns
// how many were not set.
func mark(bits []uint64, from, to int64) int {
	n := 0
	for pg := from / pageSize; pg <= (to-1)/pageSize; pg++ {
		if w, b := pg/64, uint64(1)<<(pg%64); bits[w]&b == 0 {
			bits[w] |= b
			n++
		}
	}
	return n
}

// touchPack counts the pages of p's mapped pack that [from, to) spans, read
// (each once until dropped; see touch).
func (s *Store) touchPack(p *packFile, from, to int64) {
	if s.mapped <= maxResident || from < 0 || to <= from || to > int64(len(p.data)) {
		return
	}
	s.touch(mark(s.pages(p).bits, from, to))
}

// touchIndex counts the pages of p's mapped index a look-up that ended at
// entry at read: the entry's name and its offset (the search's first
// probes read pages every look-up reads; each page counts once until
// dropped, see touch).
func (s *Store) touchIndex(p *packFile, at int) {
	if s.mapped <= maxResident || p.unmap == nil || at < 0 || at >= p.n {
		return
	}
	ps := s.pages(p)
	name, off := int64(idxHeaderLen+at*20), int64(p.off32+4*at)
	s.touch(mark(ps.idx, name, name+20) + mark(ps.idx, off, off+4))
}

// maxResident is the most bytes of mapped packs and indexes a Store keeps
// in the process's memory (see touch); a variable for tests.
var maxResident = 32 << 20

// drop is dropPages (a variable for tests).
var drop = dropPages

// mappedSize is the size of the packs and pack indexes of packs mapped.
func mappedSize(packs []*packFile) int {
	n := 0
	for _, p := range packs {
		if p.data != nil {
			n += len(p.data)
		}
		if p.unmap != nil {
			n += len(p.idx)
		}
	}
	return n
}

// readWhole reads the first size bytes of f.
func readWhole(f io.ReaderAt, size int64) ([]byte, func() error, error) {
	if size > 1<<31 {
		return nil, nil, fmt.Errorf("file of %d bytes too big to read", size)
	}
	b := make([]byte, size)
	if _, err := f.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, err
	}
	return b, nil, nil
}
