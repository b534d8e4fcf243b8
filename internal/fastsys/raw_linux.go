//go:build linux && (amd64 || arm64)

package fastsys

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// errno turns a raw call's error number into its error (nil for 0).
func errno(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// Openat is unix.Openat.
func Openat(dirfd int, path string, flags int, mode uint32) (int, error) {
	if !on.Load() {
		return unix.Openat(dirfd, path, flags, mode)
	}
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return -1, err
	}
	r, _, e := unix.RawSyscall6(unix.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(flags), uintptr(mode), 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

// Openat2 is unix.Openat2.
func Openat2(dirfd int, path string, how *unix.OpenHow) (int, error) {
	if !on.Load() {
		return unix.Openat2(dirfd, path, how)
	}
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return -1, err
	}
	r, _, e := unix.RawSyscall6(unix.SYS_OPENAT2, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(how)), unsafe.Sizeof(*how), 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

// Fstat is unix.Fstat.
func Fstat(fd int, st *unix.Stat_t) error {
	if !on.Load() {
		return unix.Fstat(fd, st)
	}
	_, _, e := unix.RawSyscall(unix.SYS_FSTAT, uintptr(fd), uintptr(unsafe.Pointer(st)), 0)
	return errno(e)
}

// Fstatat is unix.Fstatat.
func Fstatat(dirfd int, path string, st *unix.Stat_t, flags int) error {
	if !on.Load() {
		return unix.Fstatat(dirfd, path, st, flags)
	}
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return err
	}
	_, _, e := unix.RawSyscall6(unix.SYS_NEWFSTATAT, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(st)), uintptr(flags), 0, 0)
	return errno(e)
}

// Read is unix.Read.
func Read(fd int, b []byte) (int, error) {
	if !on.Load() {
		return unix.Read(fd, b)
	}
	return intoBuffer(unix.SYS_READ, fd, b)
}

// intoBuffer is the raw call trap(fd, b, len(b)) that fills b, and the
// count it returns.
func intoBuffer(trap uintptr, fd int, b []byte) (int, error) {
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	r, _, e := unix.RawSyscall(trap, uintptr(fd), uintptr(p), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// Close is unix.Close.
func Close(fd int) error {
	if !on.Load() {
		return unix.Close(fd)
	}
	_, _, e := unix.RawSyscall(unix.SYS_CLOSE, uintptr(fd), 0, 0)
	return errno(e)
}

// Faccessat2 is unix.Faccessat2.
func Faccessat2(dirfd int, path string, mode uint32, flags int) error {
	if !on.Load() {
		return unix.Faccessat2(dirfd, path, mode, flags)
	}
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return err
	}
	_, _, e := unix.RawSyscall6(unix.SYS_FACCESSAT2, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(mode), uintptr(flags), 0, 0)
	return errno(e)
}

// Getdents is unix.Getdents.
func Getdents(fd int, buf []byte) (int, error) {
	if !on.Load() {
		return unix.Getdents(fd, buf)
	}
	return intoBuffer(unix.SYS_GETDENTS64, fd, buf)
}

// Lstat is os.Lstat: the same fs.FileInfo (FileInfo) and the same
// *fs.PathError.
func Lstat(path string) (fs.FileInfo, error) {
	if !on.Load() {
		return os.Lstat(path)
	}
	st := new(syscall.Stat_t)
	var err error
	for {
		// syscall.Stat_t and unix.Stat_t are both the kernel's struct stat
		// (TestStatTypesAlike)
		if err = Fstatat(unix.AT_FDCWD, path, (*unix.Stat_t)(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW); err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return FileInfo(filepath.Base(path), st), nil
}
