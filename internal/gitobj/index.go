package gitobj

import (
	"bytes"
	"encoding/binary"
	"os"
	"strconv"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// IndexStat is the stat data git keeps in an index entry and compares with
// the file on disk, each field truncated to 32 bits as git stores it.
type IndexStat struct {
	CtimeSec, CtimeNsec, MtimeSec, MtimeNsec uint32
	Ino, UID, GID, Size                      uint32
}

// IndexEntry is what Compare takes from one index entry.
type IndexEntry struct {
	Stat IndexStat
	Hash plumbing.Hash
}

const (
	// minIndexPaths is the fewest paths for which Compare scans the index:
	// below it, hashing the files costs less than reading the index.
	MinIndexPaths = 64
	// indexBytesPerPath bounds the size of the index worth scanning: at most
	// this many bytes per path compared (a scanned entry costs far less than
	// a hashed file). 16 KiB since issue 25's eighteenth pass (4 before):
	// a file hashed costs ~60 µs here, a MB of index scanned ~1.4 ms.
	indexBytesPerPath = 16 << 10
)

// worthReading reports whether an index of size bytes is worth scanning
// for compared paths, rather than hashing their files.
func worthReading(size int64, compared int) bool {
	return compared >= MinIndexPaths && size <= int64(compared)*indexBytesPerPath
}

// ReadIndex is readIndex of the index of fs (a .git folder).
func ReadIndex(fs billy.Filesystem, paths []string, compared int, heads map[string]plumbing.Hash) (_ map[string]IndexEntry, root plumbing.Hash, dirs map[string]plumbing.Hash) {
	if compared < MinIndexPaths || len(paths) == 0 {
		return nil, plumbing.ZeroHash, nil
	}
	fi, err := fs.Lstat("index")
	if err != nil || !fi.Mode().IsRegular() || !worthReading(fi.Size(), compared) {
		return nil, plumbing.ZeroHash, nil
	}
	f, err := fs.Open("index")
	if err != nil {
		return nil, plumbing.ZeroHash, nil
	}
	defer f.Close()
	// No more than the size seen: an index rewritten meanwhile reads as
	// truncated (nil).
	b, unmap, err := mapOrRead(fs, "index", f, fi)
	if err != nil {
		return nil, plumbing.ZeroHash, nil
	}
	if unmap != nil {
		defer unmap()
	}
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	mt := fi.ModTime()
	sc := indexScratch{heads: heads, mapped: unmap != nil}
	out, rest := parseIndexBytes(b, want, uint32(mt.Unix()), uint32(mt.Nanosecond()), &sc)
	if out == nil || heads == nil || sc.noTree {
		return out, plumbing.ZeroHash, nil
	}
	// every folder of the paths: from a path's deepest folder up, to the
	// first one already there (its parents are then there too)
	wantDirs := map[string]bool{}
	for _, p := range paths {
		for i := strings.LastIndexByte(p, '/'); i >= 0 && !wantDirs[p[:i]]; i = strings.LastIndexByte(p[:i], '/') {
			wantDirs[p[:i]] = true
		}
	}
	root, dirs = cacheTreeBytes(rest, wantDirs)
	return out, root, dirs
}

// cacheTreeBytes is readCacheTree over b, the bytes after the entries.
func cacheTreeBytes(b []byte, wantDirs map[string]bool) (plumbing.Hash, map[string]plumbing.Hash) {
	for {
		if len(b) < 8 {
			return plumbing.ZeroHash, nil // the checksum, or a truncated index
		}
		sig, size := string(b[:4]), int(binary.BigEndian.Uint32(b[4:]))
		switch sig {
		case "link": // split index: the entries are elsewhere
			return plumbing.ZeroHash, nil
		case "TREE":
			return parseCacheTreeBytes(b[8:], size, wantDirs)
		}
		if len(b)-8 < size {
			return plumbing.ZeroHash, nil
		}
		b = b[8+size:]
	}
}

// parseCacheTreeBytes parses a cache-tree extension of size bytes at the
// start of b: its folders in pre-order, each "<name> NUL <entries> SP
// <subtrees> LF" and, when <entries> is not negative (the folder is valid),
// its tree. The root has an empty name. A malformed extension gives what was
// read before it (the root zero when it was not read).
func parseCacheTreeBytes(b []byte, size int, wantDirs map[string]bool) (root plumbing.Hash, dirs map[string]plumbing.Hash) {
	type open struct {
		path int // the length of its path in buf
		left int // subtrees still to read
	}
	var stack []open
	var buf []byte // the path of the folder read, its parents' paths its prefixes
	off := 0
	for first := true; off < size; first = false {
		nul := bytes.IndexByte(b[off:], 0)
		if nul < 0 {
			return root, dirs
		}
		name := b[off : off+nul]
		off += nul + 1
		lf := bytes.IndexByte(b[off:], '\n')
		if lf < 0 {
			return root, dirs
		}
		line := b[off : off+lf+1]
		off += lf + 1
		sp := bytes.IndexByte(line, ' ')
		if sp < 1 {
			return root, dirs
		}
		valid := line[0] != '-'
		subs, err := strconv.Atoi(string(line[sp+1 : len(line)-1]))
		if err != nil || subs < 0 || subs > size {
			return root, dirs
		}
		var h plumbing.Hash
		if valid {
			if len(b)-off < len(h) {
				return root, dirs
			}
			copy(h[:], b[off:])
			off += len(h)
		}
		if first {
			if len(name) != 0 {
				return root, dirs
			}
			if valid {
				root = h
			}
			if wantDirs == nil {
				return root, dirs // the root was all that was asked for
			}
		} else {
			if len(name) == 0 {
				return root, dirs // only the root has no name
			}
			// the folder's parent: the innermost one with subtrees left
			for len(stack) > 0 && stack[len(stack)-1].left == 0 {
				stack = stack[:len(stack)-1]
			}
			if len(stack) == 0 {
				return root, dirs // more folders than the root announced
			}
			parent := &stack[len(stack)-1]
			parent.left--
			if buf = buf[:parent.path]; len(buf) > 0 {
				buf = append(buf, '/')
			}
			buf = append(buf, name...)
			if valid && wantDirs[string(buf)] {
				if dirs == nil {
					dirs = make(map[string]plumbing.Hash, len(wantDirs))
				}
				dirs[string(buf)] = h
			}
		}
		stack = append(stack, open{len(buf), subs})
	}
	return root, dirs
}

// parseIndexBytes is parseIndex reading into sc (see indexScratch.heads);
// it also returns the bytes after the entries (the extensions and the
// checksum). It parses b in place: an entry is copied only when kept.
func parseIndexBytes(b []byte, want map[string]bool, sec, nsec uint32, sc *indexScratch) (map[string]IndexEntry, []byte) {
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return nil, nil
	}
	be := binary.BigEndian
	version := be.Uint32(b[4:])
	if version != 2 && version != 3 {
		return nil, nil
	}
	n := be.Uint32(b[8:])
	out := make(map[string]IndexEntry, len(want)) // at most one entry per path wanted
	off, dropped := 12, 0
	ws := newWantSet(want)
	for i := uint32(0); i < n; i++ {
		size := sc.entry(b[off:], version, &ws, sec, nsec, out)
		if size == 0 {
			return nil, nil
		}
		off += size
		if sc.mapped && off-dropped >= indexDropEvery {
			// the pages read so far leave the process's memory (a mapped
			// index of 100,000 entries is 12 MiB of it while it is read)
			end := off &^ (os.Getpagesize() - 1)
			dropPages(b[dropped:end])
			dropped = end
		}
	}
	return out, b[off:]
}

// indexDropEvery is how many bytes of a mapped index are parsed between
// two drops of the pages behind.
const indexDropEvery = 1 << 20

// indexScratch is what the entries of one index are read into.
type indexScratch struct {
	// heads, when not nil, takes the blob hash of each wanted stage-0
	// file or symbolic link; noTree is set by an entry that keeps the
	// index from being HEAD's tree (see readIndex).
	heads  map[string]plumbing.Hash
	noTree bool
	// mapped is set when the entries are a read-only file mapping, whose
	// pages are dropped once parsed (dropPages)
	mapped bool
}

// indexEntryFixed is the size of an entry's stat data, mode, hash and flags.
const indexEntryFixed = 62

// entry reads the entry at the start of e, adds it to out when it is
// wanted and can stand for the file on disk, and returns its size (0 when
// it is malformed or cut off).
func (sc *indexScratch) entry(e []byte, version uint32, want *wantSet, sec, nsec uint32, out map[string]IndexEntry) int {
	const fixed = indexEntryFixed
	if len(e) < fixed {
		return 0
	}
	be := binary.BigEndian
	flags := be.Uint16(e[60:])
	head, ext := fixed, uint16(0)
	if flags&0x4000 != 0 { // extended flags follow
		if version < 3 || len(e) < fixed+2 {
			return 0
		}
		ext, head = be.Uint16(e[fixed:]), fixed+2
	}
	nul := bytes.IndexByte(e[head:], 0) // the path, up to its NUL
	if nul < 0 {
		return 0
	}
	name := e[head : head+nul]
	size := (head + nul + 8) &^ 7 // NUL-padded to a multiple of 8
	if size > len(e) {
		return 0
	}
	mode := be.Uint32(e[24:]) & 0o170000
	wanted := want.has(name)
	if sc.heads != nil {
		switch {
		case flags&0x3000 != 0 || ext&0x6000 != 0 || mode == 0o040000:
			sc.noTree = true // a stage; skip-worktree or intent-to-add; a sparse folder
		case (mode == 0o100000 || mode == 0o120000) && wanted:
			var h plumbing.Hash
			copy(h[:], e[40:60])
			sc.heads[string(name)] = h
		}
	}
	// assume-valid or a stage; skip-worktree or intent-to-add; not a
	// regular file (a symbolic link, a submodule, a sparse folder).
	if flags&0xb000 != 0 || ext&0x6000 != 0 || mode != 0o100000 || !wanted {
		return size
	}
	st := IndexStat{
		CtimeSec: be.Uint32(e[0:]), CtimeNsec: be.Uint32(e[4:]),
		MtimeSec: be.Uint32(e[8:]), MtimeNsec: be.Uint32(e[12:]),
		Ino: be.Uint32(e[20:]), UID: be.Uint32(e[28:]), GID: be.Uint32(e[32:]), Size: be.Uint32(e[36:]),
	}
	if st.MtimeSec > sec || (st.MtimeSec == sec && st.MtimeNsec >= nsec) {
		return size // racily clean: the file may have changed after it was staged
	}
	var h plumbing.Hash
	copy(h[:], e[40:60])
	out[string(name)] = IndexEntry{Stat: st, Hash: h}
	return size
}
