package safefile

import (
	"io/fs"
	"path"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
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
		fd, err = fastsys.Openat2(root, clean, &how)
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
	defer fastsys.Close(fd)
	st := new(syscall.Stat_t)                                                     // os.Lstat's type, behind Sys
	if err := fastsys.Fstat(fd, (*unix.Stat_t)(unsafe.Pointer(st))); err != nil { // the kernel's struct stat both (TestStatTypesAlike)
		return "", nil, false
	}
	info := fastsys.FileInfo(path.Base(clean), st)
	mode := st.Mode & syscall.S_IFMT
	switch mode {
	case syscall.S_IFLNK:
		return "", nil, false
	case syscall.S_IFREG, syscall.S_IFDIR:
		for {
			err = fastsys.Faccessat2(fd, "", unix.R_OK, unix.AT_EACCESS|unix.AT_EMPTY_PATH)
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
