package gitrepo

import (
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
// cost follows len(paths): subtrees on the paths are loaded once each, and
// nothing else of the repository is read. A folder counts as absent, both in
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
	for _, p := range paths {
		st := PathState{Path: p}
		be, err := baseTree.blob(p)
		if err != nil {
			return nil, err
		}
		st.BaseHash = hashString(be)
		dh, onDisk, err := r.diskHash(p, buf)
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
