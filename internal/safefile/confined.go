package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
)

// Confinement: every path below is opened one component at a time with
// openat(2) and O_NOFOLLOW from a file descriptor of the root folder, so no
// symlink anywhere in the path is followed (not even one that points back
// inside the root), and a file that is not regular — a symlink, a FIFO, a
// device, a folder — is refused before a byte is read or written. Opens are
// non-blocking, so a FIFO fails fast instead of hanging. See
// docs/SECURITY.md.

// Errors a confined operation refuses with, matched with errors.Is. Every
// refusal also matches ErrUnsafe.
var (
	ErrSymlink = errors.New("symlink")
	ErrNotDir  = errors.New("not a folder")
)

// RefusedError is a confined operation refused because of what a path is:
// Path is repository-relative (slash-separated) and What says what it is
// ("is a symlink", "is a FIFO", "is a device", "is a folder", "is not a
// folder"). It matches ErrUnsafe and Kind (ErrSymlink, ErrNotFile or
// ErrNotDir) with errors.Is.
type RefusedError struct {
	Path string
	What string
	Kind error
}

// Error implements error: "refused: <path> is a symlink".
func (e *RefusedError) Error() string { return "refused: " + e.Path + " " + e.What }

// Unwrap lets errors.Is match ErrUnsafe and the kind.
func (e *RefusedError) Unwrap() []error { return []error{ErrUnsafe, e.Kind} }

// describe names what a file of this mode is.
func describe(mode uint32) (string, error) {
	switch mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return "is a symlink", ErrSymlink
	case unix.S_IFIFO:
		return "is a FIFO", ErrNotFile
	case unix.S_IFCHR, unix.S_IFBLK:
		return "is a device", ErrNotFile
	case unix.S_IFSOCK:
		return "is a socket", ErrNotFile
	case unix.S_IFDIR:
		return "is a folder", ErrNotFile
	case unix.S_IFREG:
		return "is a regular file", ErrNotDir
	}
	return "is not a regular file", ErrNotFile
}

// Dir is a folder inside a root, opened without following symlinks. Its
// methods take a single file name (no "/"), so everything they touch stays
// directly inside the folder. Close it when done.
type Dir struct {
	fd   int
	rel  string // the folder, relative to the root ("." for the root)
	root string
}

// retry repeats a system call interrupted by a signal.
func retry(f func() error) error {
	for {
		err := f()
		if err != unix.EINTR {
			return err
		}
	}
}

// OpenDir opens the folder rel (slash-separated, relative; "" or "." is root
// itself) under root, one component at a time without following symlinks.
// With create, missing folders are made (mode 0o755, also without following
// symlinks). A component that is a symlink or not a folder is refused with
// *RefusedError. The root itself is opened normally (it is the caller's
// choice, and may be reached through a symlink).
func OpenDir(root, rel string, create bool) (*Dir, error) {
	return openDir(root, rel, create, 0o755)
}

func openDir(root, rel string, create bool, perm os.FileMode) (*Dir, error) {
	clean := "."
	if rel != "" && rel != "." {
		c, err := cleanRel(rel)
		if err != nil {
			return nil, err
		}
		clean = c
	}
	var fd int
	err := retry(func() (e error) {
		fd, e = unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		return e
	})
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	d := &Dir{fd: fd, rel: ".", root: root}
	if clean == "." {
		return d, nil
	}
	for _, part := range strings.Split(clean, "/") {
		if part == "." || part == "" {
			continue
		}
		next, err := d.sub(part, create, perm)
		d.Close()
		if err != nil {
			return nil, err
		}
		d = next
	}
	return d, nil
}

// sub opens the folder name inside d.
func (d *Dir) sub(name string, create bool, perm os.FileMode) (*Dir, error) {
	rel := d.join(name)
	for attempt := 0; ; attempt++ {
		var fd int
		err := retry(func() (e error) {
			fd, e = fastsys.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
			return e
		})
		if err == nil {
			return &Dir{fd: fd, rel: rel, root: d.root}, nil
		}
		if err == unix.ENOENT && create && attempt == 0 {
			merr := retry(func() error { return unix.Mkdirat(d.fd, name, uint32(perm.Perm())) })
			if merr != nil && merr != unix.EEXIST {
				return nil, &os.PathError{Op: "mkdir", Path: d.full(name), Err: merr}
			}
			continue
		}
		if err == unix.ENOENT {
			return nil, &os.PathError{Op: "open", Path: d.full(name), Err: os.ErrNotExist}
		}
		if refused := d.classify(name, ErrNotDir); refused != nil {
			return nil, refused
		}
		return nil, &os.PathError{Op: "open", Path: d.full(name), Err: err}
	}
}

// classify explains why name in d could not be opened as wanted (want is
// ErrNotDir for a folder, ErrNotFile for a regular file): nil when lstat
// cannot tell or finds what was wanted.
func (d *Dir) classify(name string, want error) error {
	var st unix.Stat_t
	if err := retry(func() error { return fastsys.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return nil
	}
	what, kind := describe(uint32(st.Mode))
	if st.Mode&unix.S_IFMT == unix.S_IFDIR && want == ErrNotDir {
		return nil
	}
	if st.Mode&unix.S_IFMT == unix.S_IFREG && want == ErrNotFile {
		return nil
	}
	return &RefusedError{Path: d.join(name), What: what, Kind: kind}
}

func (d *Dir) join(name string) string {
	if d.rel == "." {
		return name
	}
	return d.rel + "/" + name
}

func (d *Dir) full(name string) string {
	return filepath.Join(d.root, filepath.FromSlash(d.join(name)))
}

// Path is the full path of name inside d, for messages.
func (d *Dir) Path(name string) string { return d.full(name) }

// Rel is the folder's path relative to the root ("." for the root).
func (d *Dir) Rel() string { return d.rel }

// Close closes the folder.
func (d *Dir) Close() error {
	if d == nil || d.fd < 0 {
		return nil
	}
	err := fastsys.Close(d.fd)
	d.fd = -1
	return err
}

// Lock takes an exclusive advisory lock (flock) on the folder itself and
// returns the function that releases it. The kernel releases it when the
// process dies, so a kill never leaves it held.
func (d *Dir) Lock() (unlock func(), err error) {
	if err := retry(func() error { return unix.Flock(d.fd, unix.LOCK_EX) }); err != nil {
		return nil, &os.PathError{Op: "flock", Path: filepath.Join(d.root, filepath.FromSlash(d.rel)), Err: err}
	}
	return func() { _ = unix.Flock(d.fd, unix.LOCK_UN) }, nil
}

// Sync fsyncs the folder so that entries created, renamed or removed in it
// are durable. File systems that cannot sync a folder are not an error.
func (d *Dir) Sync() error {
	err := retry(func() error { return unix.Fsync(d.fd) })
	if err == nil || err == unix.EINVAL || err == unix.ENOTSUP {
		return nil
	}
	return &os.PathError{Op: "sync", Path: filepath.Join(d.root, filepath.FromSlash(d.rel)), Err: err}
}

func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("%w: %q is not a file name", ErrUnsafe, name)
	}
	return nil
}

// OpenFile opens the file name directly inside d with flag (os.O_* flags)
// and perm (for a new file), never following a symlink, without blocking on
// a FIFO, and refusing anything but a regular file with *RefusedError.
func (d *Dir) OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	var fd int
	err := retry(func() (e error) {
		fd, e = unix.Openat(d.fd, name, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(perm.Perm()))
		return e
	})
	if err != nil {
		if err == unix.ENOENT {
			return nil, &os.PathError{Op: "open", Path: d.full(name), Err: os.ErrNotExist}
		}
		if err == unix.EEXIST {
			return nil, &os.PathError{Op: "open", Path: d.full(name), Err: os.ErrExist}
		}
		if refused := d.classify(name, ErrNotFile); refused != nil {
			return nil, refused
		}
		return nil, &os.PathError{Op: "open", Path: d.full(name), Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "stat", Path: d.full(name), Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		what, kind := describe(uint32(st.Mode))
		if kind == ErrNotDir {
			kind = ErrNotFile
		}
		return nil, &RefusedError{Path: d.join(name), What: what, Kind: kind}
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "fcntl", Path: d.full(name), Err: err}
	}
	return os.NewFile(uintptr(fd), d.full(name)), nil
}

// Lstat reports what name directly inside d is, without following a
// symlink. A missing name gives an error matching fs.ErrNotExist.
func (d *Dir) Lstat(name string) (os.FileMode, int64, error) {
	if err := checkName(name); err != nil {
		return 0, 0, err
	}
	var st unix.Stat_t
	if err := retry(func() error { return fastsys.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		if err == unix.ENOENT {
			err = os.ErrNotExist
		}
		return 0, 0, &os.PathError{Op: "lstat", Path: d.full(name), Err: err}
	}
	return os.FileMode(st.Mode&0o777) | fastsys.TypeOf(uint32(st.Mode)), st.Size, nil
}

// Rename renames oldName in d to newName in nd (renameat(2): neither name is
// followed if it is a symlink; the entry itself moves).
func (d *Dir) Rename(oldName string, nd *Dir, newName string) error {
	if err := checkName(oldName); err != nil {
		return err
	}
	if err := checkName(newName); err != nil {
		return err
	}
	err := retry(func() error { return unix.Renameat(d.fd, oldName, nd.fd, newName) })
	if err != nil {
		if err == unix.ENOENT {
			err = os.ErrNotExist
		}
		return &os.LinkError{Op: "rename", Old: d.full(oldName), New: nd.full(newName), Err: err}
	}
	return nil
}

// Link makes newName in nd a hard link to oldName in d, without following a
// symlink; it fails with an error matching fs.ErrExist when newName exists.
func (d *Dir) Link(oldName string, nd *Dir, newName string) error {
	if err := checkName(oldName); err != nil {
		return err
	}
	if err := checkName(newName); err != nil {
		return err
	}
	err := retry(func() error { return unix.Linkat(d.fd, oldName, nd.fd, newName, 0) })
	if err != nil {
		switch err {
		case unix.EEXIST:
			err = os.ErrExist
		case unix.ENOENT:
			err = os.ErrNotExist
		}
		return &os.LinkError{Op: "link", Old: d.full(oldName), New: nd.full(newName), Err: err}
	}
	return nil
}

// Remove removes the file name directly inside d (a symlink is removed
// itself, never its target). A missing name gives an error matching
// fs.ErrNotExist.
func (d *Dir) Remove(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	err := retry(func() error { return unix.Unlinkat(d.fd, name, 0) })
	if err != nil {
		if err == unix.ENOENT {
			err = os.ErrNotExist
		}
		return &os.PathError{Op: "remove", Path: d.full(name), Err: err}
	}
	return nil
}

// ReadFile reads the regular file name directly inside d, refusing one
// larger than max bytes (checked by fstat before reading, and by a limited
// read in case it grows); max <= 0 means no limit.
func (d *Dir) ReadFile(name string, max int64) ([]byte, error) {
	f, err := d.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readBounded(f, d.join(name), max)
}

func readBounded(f *os.File, rel string, max int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if max > 0 && fi.Size() > max {
		return nil, fmt.Errorf("%w: %s is %d bytes (limit %d)", ErrTooLarge, rel, fi.Size(), max)
	}
	var r io.Reader = f
	if max > 0 {
		r = io.LimitReader(f, max+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	if max > 0 && int64(len(data)) > max {
		return nil, fmt.Errorf("%w: %s grew past %d bytes while reading", ErrTooLarge, rel, max)
	}
	return data, nil
}

// splitParent cleans rel and splits it into its folder and file name.
func splitParent(rel string) (dir, name string, err error) {
	clean, err := cleanRel(rel)
	if err != nil {
		return "", "", err
	}
	if clean == "." {
		return "", "", fmt.Errorf("%w: %q names no file", ErrUnsafe, rel)
	}
	i := strings.LastIndexByte(clean, '/')
	if i < 0 {
		return ".", clean, nil
	}
	return clean[:i], clean[i+1:], nil
}

// OpenParent opens the folder holding rel (creating missing folders when
// create is set) and returns it with rel's file name, for a caller that
// needs several operations in one confined folder (a temporary file and a
// rename, say).
func OpenParent(root, rel string, create bool) (*Dir, string, error) {
	dir, name, err := splitParent(rel)
	if err != nil {
		return nil, "", err
	}
	d, err := OpenDir(root, dir, create)
	if err != nil {
		return nil, "", err
	}
	return d, name, nil
}

// OpenConfined opens root/rel (rel slash-separated and relative) with flag
// and perm, following no symlink anywhere in the path: every component is
// opened with openat and O_NOFOLLOW from a descriptor of root. Missing
// parent folders are created (0o755) when flag has os.O_CREATE. It refuses
// absolute, ".." and escaping paths (ErrUnsafe), and a component or final
// file that is a symlink, FIFO, device, socket or folder (*RefusedError).
// The open is non-blocking, so a FIFO cannot hang it; the returned file is
// switched back to blocking mode.
func OpenConfined(root, rel string, flag int, perm os.FileMode) (*os.File, error) {
	d, name, err := OpenParent(root, rel, flag&os.O_CREATE != 0)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.OpenFile(name, flag, perm)
}

// ReadConfined reads root/rel as OpenConfined opens it, refusing a file over
// max bytes (checked by fstat before reading, and by a limited read in case
// it grows); max <= 0 means no limit.
func ReadConfined(root, rel string, max int64) ([]byte, error) {
	f, err := OpenConfined(root, rel, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	clean, _ := cleanRel(rel)
	return readBounded(f, clean, max)
}

// MkdirAllConfined creates the folder root/rel and its missing parents
// (mode 0o755), following no symlink: an existing component that is a
// symlink or not a folder is refused with *RefusedError.
func MkdirAllConfined(root, rel string) error {
	d, err := OpenDir(root, rel, true)
	if err != nil {
		return err
	}
	return d.Close()
}

// MkdirAllConfinedPerm is MkdirAllConfined creating missing folders with
// perm (0o700 for a private folder, say).
func MkdirAllConfinedPerm(root, rel string, perm os.FileMode) error {
	d, err := openDir(root, rel, true, perm)
	if err != nil {
		return err
	}
	return d.Close()
}

// RenameConfined renames root/oldRel to root/newRel, both reached without
// following symlinks (the folder of newRel must exist). Neither final name
// is followed: a symlink is moved as itself.
func RenameConfined(root, oldRel, newRel string) error {
	od, oname, err := OpenParent(root, oldRel, false)
	if err != nil {
		return err
	}
	defer od.Close()
	nd, nname, err := OpenParent(root, newRel, false)
	if err != nil {
		return err
	}
	defer nd.Close()
	if err := od.Rename(oname, nd, nname); err != nil {
		return err
	}
	_ = nd.Sync()
	if od.rel != nd.rel {
		_ = od.Sync()
	}
	return nil
}

// RemoveConfined removes root/rel, reached without following symlinks (a
// final symlink is removed itself). A missing file gives an error matching
// fs.ErrNotExist.
func RemoveConfined(root, rel string) error {
	d, name, err := OpenParent(root, rel, false)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Remove(name); err != nil {
		return err
	}
	_ = d.Sync()
	return nil
}
