package safefile

import (
	"io/fs"
	"path"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// probeRoot is the Reader's root folder, opened once (O_PATH) for ProbeFast's
// look-ups below it; closed when the Reader is collected.
type probeRoot struct {
	once sync.Once
	fd   int // -1 when the root could not be opened
}

// noProbeFast is set once the kernel refused openat2 or faccessat2 on an
// O_PATH descriptor as unknown (ENOSYS, EINVAL) or filtered (EPERM): every
// later probe takes CheckPathStat's way at once.
var noProbeFast atomic.Bool

// rootFD is the Reader's root, opened on first use; -1 when it cannot be.
func (r *Reader) rootFD() int {
	r.probe.once.Do(func() {
		r.probe.fd = -1
		fd, err := unix.Open(r.root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return
		}
		r.probe.fd = fd
		runtime.AddCleanup(r, func(fd int) { unix.Close(fd) }, fd)
	})
	return r.probe.fd
}

// ProbeFast answers, for a path it can answer in a few system calls, what
// CheckPathStat followed by a stat and openprobe.CanOpen answer: ok is true
// when rel is a safe path, cleaned to clean, naming something that exists
// with no symlink anywhere on the way from the root (the last element
// included), fi being its lstat (an *syscall.Stat_t behind Sys, as os.Lstat
// gives), and, for a regular file or a folder, readable (the kernel's own
// read-permission check for the effective user, as CanOpen asks). Anything
// else (a symlink on the way or at the end, a missing element, a path
// refused, a refused read, a kernel without openat2 or faccessat2) gives ok
// false: the caller takes CheckPathStat's way, which says why. So does a
// path directly in the root or in a folder the Reader knows already (one
// ProbeFast or CheckPathStat walked): there CheckPathStat's one lstat and
// CanOpen's one call cost less than openat2, fstat, faccessat2 and close.
//
// One openat2(RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH) from the root's descriptor walks the
// path in the kernel and refuses any symlink or escape on the way, where
// CheckPathStat lstats each folder not seen before and the path; the stat
// and the read check are then made on the descriptor (O_PATH: nothing is
// opened for reading, so a FIFO or device is never opened), so a folder
// swapped for a link after the walk cannot redirect them.
func (r *Reader) ProbeFast(rel string) (clean string, fi fs.FileInfo, ok bool) {
	if noProbeFast.Load() {
		return "", nil, false
	}
	clean, err := cleanRel(rel)
	if err != nil || clean == "." {
		return "", nil, false
	}
	last := strings.LastIndexByte(clean, '/')
	if last < 0 {
		return "", nil, false // in the root: CheckPathStat's lstat is all
	}
	folder := clean[:last]
	if _, ok := r.dirs.Load(folder); ok {
		return "", nil, false // a known folder: CheckPathStat's one lstat is less
	}
	root := r.rootFD()
	if root < 0 {
		return "", nil, false
	}
	defer runtime.KeepAlive(r) // the root's descriptor stays open meanwhile
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_BENEATH}
	var fd int
	for {
		fd, err = unix.Openat2(root, clean, &how)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		if err == unix.ENOSYS || err == unix.EPERM {
			noProbeFast.Store(true)
		}
		return "", nil, false
	}
	defer unix.Close(fd)
	st := new(syscall.Stat_t)
	if err := syscall.Fstat(fd, st); err != nil {
		return "", nil, false
	}
	info := &statInfo{name: path.Base(clean), st: st}
	mode := st.Mode & syscall.S_IFMT
	switch mode {
	case syscall.S_IFLNK:
		return "", nil, false
	case syscall.S_IFREG, syscall.S_IFDIR:
		for {
			err = unix.Faccessat2(fd, "", unix.R_OK, unix.AT_EACCESS|unix.AT_EMPTY_PATH)
			if err != unix.EINTR {
				break
			}
		}
		if err != nil {
			if err == unix.ENOSYS || err == unix.EINVAL || err == unix.EPERM {
				noProbeFast.Store(true)
			}
			return "", nil, false // refused (or unknown): CanOpen says how
		}
	}
	// the walk found no symlink to the folder: CheckPathStat's cache may
	// say so, as its own walk would
	r.dirs.Store(folder, true)
	return clean, info, true
}

// statInfo is an fs.FileInfo made from an fstat as os.Lstat makes its own:
// the same name, size, mode bits, modification time and *syscall.Stat_t.
type statInfo struct {
	name string
	st   *syscall.Stat_t
}

// Name is the path's last element.
func (s *statInfo) Name() string { return s.name }

// Size is st_size.
func (s *statInfo) Size() int64 { return s.st.Size }

// ModTime is st_mtim, in local time as os gives it.
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }

// IsDir reports a folder.
func (s *statInfo) IsDir() bool { return s.Mode().IsDir() }

// Sys is the *syscall.Stat_t.
func (s *statInfo) Sys() any { return s.st }

// Mode is st_mode as os maps it.
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if s.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
