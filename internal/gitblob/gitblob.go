// Package gitblob hashes a work-tree file as git would store it, for
// gitrepo's Compare and dating: the git blob hash of the file's content, a
// symbolic link hashing as its target, a regular file whose stat data
// matches its index entry taking the entry's hash unread (as git does), a
// file larger than any object read never equal to a blob (TooLarge). It
// reads nothing but the file at the path asked, opened so that a FIFO put
// there cannot block (gitobj.OpenGitFile).
package gitblob

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sys/unix"

	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// Hash returns the git blob hash of the file at the slash path p in the
// work tree at root; onDisk is false when there is no file (or a folder)
// there. A symbolic link hashes as its target, as git stores it; a
// regular file whose stat data matches its entry in known (the index
// entries read) takes the entry's hash unread. fi is the file's lstat when
// the caller has it (nil: it is made here); *buf is made when a file is
// read and is nil.
func Hash(root, p string, buf *[]byte, known map[string]gitobj.IndexEntry, fi fs.FileInfo) (h plumbing.Hash, onDisk bool, err error) {
	abs := filepath.Join(root, filepath.FromSlash(p))
	if fi == nil {
		if fi, err = fastsys.Lstat(abs); err != nil {
			if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				return plumbing.ZeroHash, false, nil
			}
			return plumbing.ZeroHash, false, fmt.Errorf("stat %s: %w", p, err)
		}
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
			if st, ok := gitobj.StatOf(fi); ok && st == e.Stat {
				return e.Hash, true, nil
			}
		}
		if fi.Size() > gitobj.MaxPackedObject {
			// no blob this large is ever read from the repository
			// (ErrObjectTooLarge), so the file cannot be shown equal to one:
			// it is "changed", without reading gigabytes of a file a hostile
			// checkout made sparse (docs/SECURITY.md, counts)
			return TooLarge, true, nil
		}
		if *buf == nil {
			*buf = make([]byte, 32<<10)
		}
		h, err := hashFile(abs, *buf)
		if err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("hash %s: %w", p, err)
		}
		return h, true, nil
	default:
		return plumbing.ZeroHash, false, nil
	}
}

// TooLarge stands for a work-tree file larger than any object read
// (gitobj.MaxPackedObject): it is no blob's hash, so such a file always
// reads as changed.
var TooLarge = plumbing.NewHash("ffffffffffffffffffffffffffffffffffffffff")

// hashFile streams the file at abs through a git blob hasher, using buf.
func hashFile(abs string, buf []byte) (_ plumbing.Hash, err error) {
	if h, ok := hashFD(abs, buf); ok {
		return h, nil
	}
	// non-blocking: a file replaced by a FIFO since it was seen is refused
	// (openGitFile checks it is regular) instead of hanging the open
	f, fi, err := gitobj.OpenGitFile(abs, 0)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
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

// hashFD is hashFile through internal/fastsys's calls on a bare
// descriptor (no *os.File, whose poller registration fails for a regular
// file: one epoll_ctl more), opened the same non-blocking way; ok false
// for anything but a regular file read whole at the size its fstat gave,
// which hashFile then reads its own way and so reports as it always did.
func hashFD(abs string, buf []byte) (h plumbing.Hash, ok bool) {
	fd, err := fastsys.Openat(unix.AT_FDCWD, abs, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return plumbing.ZeroHash, false
	}
	defer fastsys.Close(fd)
	var st unix.Stat_t
	if err := fastsys.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return plumbing.ZeroHash, false
	}
	size := int64(st.Size)
	hs := plumbing.NewHasher(plumbing.BlobObject, size)
	var n int64
	for {
		m, err := fastsys.Read(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return plumbing.ZeroHash, false
		}
		if m == 0 {
			break
		}
		hs.Write(buf[:m])
		if n += int64(m); n > size {
			return plumbing.ZeroHash, false // grew while read
		}
	}
	if n != size {
		return plumbing.ZeroHash, false
	}
	return hs.Sum(), true
}
