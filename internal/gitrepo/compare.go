package gitrepo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Compare tells, for each repository-relative slash path (already validated
// as safe), how the file on disk relates to base and to HEAD. The path is
// looked up in base's tree and the file on disk is hashed as a git blob; only
// when the two differ is HEAD's tree consulted, to tell a committed change
// from an uncommitted edit (HeadHash stays empty for unchanged paths). The
// cost follows len(paths): subtrees on the paths are loaded once each; for
// many paths the index is scanned too and, as git does, a file whose stat
// data matches its index entry (and is not racily clean) takes the entry's
// hash instead of being read. A folder counts as absent, both in
// a tree and on disk; content filters (end-of-line conversion, LFS) are not
// applied. The result is in the order of paths.
func (r *Repo) Compare(base Commit, paths []string) ([]PathState, error) {
	out := make([]PathState, 0, len(paths))
	if len(paths) == 0 {
		return out, nil
	}
	baseTree, err := r.treeOf(base.Hash)
	if err != nil {
		return nil, err
	}
	var headTree *pathTree // loaded on first need
	buf := make([]byte, 32<<10)
	known := r.indexEntries(paths)
	for _, p := range paths {
		st := PathState{Path: p}
		be, err := baseTree.blob(p)
		if err != nil {
			return nil, err
		}
		st.BaseHash = hashString(be)
		dh, onDisk, err := r.diskHashKnown(p, buf, known)
		if err != nil {
			return nil, err
		}
		st.DiskHash, st.OnDisk = hashString(dh), onDisk
		st.Changed = st.BaseHash != st.DiskHash
		if st.Changed {
			if headTree == nil {
				if headTree, err = r.headTree(base.Hash, baseTree); err != nil {
					return nil, err
				}
			}
			he, err := headTree.blob(p)
			if err != nil {
				return nil, err
			}
			st.HeadHash = hashString(he)
			st.Committed = st.HeadHash != st.BaseHash
			st.Uncommited = st.DiskHash != st.HeadHash
		}
		out = append(out, st)
	}
	return out, nil
}

// headTree returns the path lookup for HEAD, sharing base's when HEAD is base.
func (r *Repo) headTree(base string, baseTree *pathTree) (*pathTree, error) {
	head, err := r.headObject()
	if err != nil {
		return nil, err
	}
	if head.Hash.String() == base {
		return baseTree, nil
	}
	return newPathTree(r.trees, head.TreeHash), nil
}

// treeOf returns the path lookup for the tree of the commit with the full hex
// hash h.
func (r *Repo) treeOf(h string) (*pathTree, error) {
	c, err := r.commitByHash(h)
	if err != nil {
		return nil, err
	}
	return newPathTree(r.trees, c.TreeHash), nil
}

func (r *Repo) commitByHash(h string) (*object.Commit, error) {
	if len(h) != 2*len(plumbing.ZeroHash) || !isHex(h) {
		return nil, fmt.Errorf("commit %q is not a full hash", h)
	}
	c, err := object.GetCommit(r.objects, plumbing.NewHash(h))
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	return c, nil
}

// diskHash returns the git blob hash of the file at the slash path p in the
// work tree; onDisk is false when there is no file (or a folder) there. A
// symbolic link hashes as its target, as git stores it.
func (r *Repo) diskHash(p string, buf []byte) (h plumbing.Hash, onDisk bool, err error) {
	return r.diskHashKnown(p, buf, nil)
}

// diskHashKnown is diskHash where a regular file whose stat data matches its
// entry in known (see indexEntries) takes the entry's hash unread.
func (r *Repo) diskHashKnown(p string, buf []byte, known map[string]indexEntry) (h plumbing.Hash, onDisk bool, err error) {
	abs := filepath.Join(r.root, filepath.FromSlash(p))
	fi, err := os.Lstat(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return plumbing.ZeroHash, false, nil
		}
		return plumbing.ZeroHash, false, fmt.Errorf("stat %s: %w", p, err)
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(abs)
		if err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("read link %s: %w", p, err)
		}
		return plumbing.ComputeHash(plumbing.BlobObject, []byte(filepath.ToSlash(target))), true, nil
	case fi.Mode().IsRegular():
		if e, ok := known[p]; ok {
			if st, ok := statOf(fi); ok && st == e.stat {
				return e.hash, true, nil
			}
		}
		h, err := hashFile(abs, buf)
		if err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("hash %s: %w", p, err)
		}
		return h, true, nil
	default:
		return plumbing.ZeroHash, false, nil
	}
}

// hashFile streams the file at abs through a git blob hasher, using buf.
func hashFile(abs string, buf []byte) (_ plumbing.Hash, err error) {
	f, err := os.Open(abs)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	h := plumbing.NewHasher(plumbing.BlobObject, fi.Size())
	// Hide the file's WriterTo, which would bring its own buffer.
	n, err := io.CopyBuffer(h, struct{ io.Reader }{f}, buf)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if n != fi.Size() {
		return plumbing.ZeroHash, fmt.Errorf("file changed while hashing (%d of %d bytes)", n, fi.Size())
	}
	return h.Sum(), nil
}

// indexStat is the stat data git keeps in an index entry and compares with
// the file on disk, each field truncated to 32 bits as git stores it.
type indexStat struct {
	ctimeSec, ctimeNsec, mtimeSec, mtimeNsec uint32
	ino, uid, gid, size                      uint32
}

// indexEntry is what Compare takes from one index entry.
type indexEntry struct {
	stat indexStat
	hash plumbing.Hash
}

const (
	// minIndexPaths is the fewest paths for which Compare scans the index:
	// below it, hashing the files costs less than reading the index.
	minIndexPaths = 64
	// indexBytesPerPath bounds the size of the index worth scanning: at most
	// this many bytes per path compared (a scanned entry costs far less than
	// a hashed file).
	indexBytesPerPath = 4096
)

// indexEntries returns the index entries of paths that can stand for the
// file on disk: regular files at stage 0, neither assume-valid,
// skip-worktree nor intent-to-add, and not racily clean (modified no earlier
// than the index was written). It returns nil — every file is then hashed —
// for few paths, a large index, an index it cannot read, or a version other
// than 2 and 3.
func (r *Repo) indexEntries(paths []string) map[string]indexEntry {
	if len(paths) < minIndexPaths || r.storage == nil {
		return nil
	}
	fs := r.storage.Filesystem()
	fi, err := fs.Lstat("index")
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > int64(len(paths))*indexBytesPerPath {
		return nil
	}
	f, err := fs.Open("index")
	if err != nil {
		return nil
	}
	defer f.Close()
	b, unmap, err := mapFile(f, fi.Size())
	if err != nil {
		return nil
	}
	if unmap != nil {
		defer unmap()
	}
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	mt := fi.ModTime()
	return parseIndex(b, want, uint32(mt.Unix()), uint32(mt.Nanosecond()))
}

// parseIndex reads the entries of a version 2 or 3 git index b whose paths
// are in want, keeping those indexEntries describes; the index was last
// written at (sec, nsec). A malformed index gives nil.
func parseIndex(b []byte, want map[string]bool, sec, nsec uint32) map[string]indexEntry {
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return nil
	}
	be := binary.BigEndian
	version := be.Uint32(b[4:])
	if version != 2 && version != 3 {
		return nil
	}
	n := be.Uint32(b[8:])
	out := make(map[string]indexEntry)
	off := 12
	for i := uint32(0); i < n; i++ {
		const fixed = 62 // stat data, mode, hash and flags
		if len(b)-off < fixed {
			return nil
		}
		e := b[off:]
		flags := be.Uint16(e[60:])
		head, ext := fixed, uint16(0)
		if flags&0x4000 != 0 { // extended flags follow
			if version < 3 || len(e) < fixed+2 {
				return nil
			}
			ext, head = be.Uint16(e[fixed:]), fixed+2
		}
		nul := bytes.IndexByte(e[head:], 0)
		if nul < 0 {
			return nil
		}
		name := e[head : head+nul]
		size := (head + nul + 8) &^ 7 // NUL-padded to a multiple of 8
		if size > len(e) {
			return nil
		}
		off += size
		// assume-valid or a stage; skip-worktree or intent-to-add; not a
		// regular file (a symbolic link, a submodule, a sparse folder).
		if flags&0xb000 != 0 || ext&0x6000 != 0 || be.Uint32(e[24:])&0o170000 != 0o100000 || !want[string(name)] {
			continue
		}
		st := indexStat{
			ctimeSec: be.Uint32(e[0:]), ctimeNsec: be.Uint32(e[4:]),
			mtimeSec: be.Uint32(e[8:]), mtimeNsec: be.Uint32(e[12:]),
			ino: be.Uint32(e[20:]), uid: be.Uint32(e[28:]), gid: be.Uint32(e[32:]), size: be.Uint32(e[36:]),
		}
		if st.mtimeSec > sec || (st.mtimeSec == sec && st.mtimeNsec >= nsec) {
			continue // racily clean: the file may have changed after it was staged
		}
		var h plumbing.Hash
		copy(h[:], e[40:60])
		out[string(name)] = indexEntry{stat: st, hash: h}
	}
	return out
}
