package safefile

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"

	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
)

// EntryBufSize is a good size for the buffer ReadEntries lists into: 32 KiB,
// four times os.File's, so that a folder of 10,000 stories is listed in
// about 13 getdents calls rather than 52.
const EntryBufSize = 32 << 10

// ReadEntries lists the folder d as (*os.File).ReadDir(-1) lists it, in the
// same order and with the same types, but through d's own descriptor (no
// os.File, no poller) into the caller's buffer buf (reused from one folder
// to the next; EntryBufSize is a good size), without a string or a
// DirEntry per entry. fn is called for each entry but "." and "..", with
// its name (valid only during the call: copy what is kept) and its type
// (fs.FileMode type bits, as DirEntry.Type gives them; an entry whose type
// the file system does not say is lstat'ed, and skipped when it has gone
// meanwhile, as ReadDir does). It returns the first error of the listing,
// or of an lstat, as ReadDir would, after calling fn for the entries
// before it. It lists from the descriptor's current offset: list a Dir
// once.
func (d *Dir) ReadEntries(buf []byte, fn func(name []byte, typ fs.FileMode)) error {
	if len(buf) < 1024 {
		buf = make([]byte, EntryBufSize)
	}
	return d.readEntries(buf, fn)
}

// lstatType is what an lstat of name in d says its type is, for an entry
// listed without one; gone reports a name that no longer exists.
func (d *Dir) lstatType(name string) (typ fs.FileMode, gone bool, err error) {
	var st unix.Stat_t
	if err := retry(func() error { return fastsys.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		if err == unix.ENOENT {
			return 0, true, nil
		}
		return 0, false, &os.PathError{Op: "lstat", Path: d.full(name), Err: err}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return fs.ModeSymlink, false, nil
	case unix.S_IFDIR:
		return fs.ModeDir, false, nil
	case unix.S_IFIFO:
		return fs.ModeNamedPipe, false, nil
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice, false, nil
	case unix.S_IFBLK:
		return fs.ModeDevice, false, nil
	case unix.S_IFSOCK:
		return fs.ModeSocket, false, nil
	}
	return 0, false, nil // a regular file, or a type os gives no bit either
}

// Reopen opens d's folder again (openat of "." through d's descriptor):
// the same folder, with a descriptor and an open file of its own, for a
// goroutine that opens and reads many files in it while others do too
// (one open file shared by threads has its reference count bumped by
// each system call on it, from both processors). List it anew with
// ReadEntries. Close it when done.
func (d *Dir) Reopen() (*Dir, error) {
	var fd int
	err := retry(func() (e error) {
		fd, e = fastsys.Openat(d.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		return e
	})
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: d.full("."), Err: err}
	}
	return &Dir{fd: fd, rel: d.rel, root: d.root}, nil
}
