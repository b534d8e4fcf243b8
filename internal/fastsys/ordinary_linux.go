//go:build linux && !(amd64 || arm64)

package fastsys

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// Where the raw calls are not written for (a Linux architecture other than
// amd64 and arm64, whose stat calls differ), every call is the ordinary one.

// Openat is unix.Openat.
func Openat(dirfd int, path string, flags int, mode uint32) (int, error) {
	return unix.Openat(dirfd, path, flags, mode)
}

// Openat2 is unix.Openat2.
func Openat2(dirfd int, path string, how *unix.OpenHow) (int, error) {
	return unix.Openat2(dirfd, path, how)
}

// Fstat is unix.Fstat.
func Fstat(fd int, st *unix.Stat_t) error { return unix.Fstat(fd, st) }

// Fstatat is unix.Fstatat.
func Fstatat(dirfd int, path string, st *unix.Stat_t, flags int) error {
	return unix.Fstatat(dirfd, path, st, flags)
}

// Read is unix.Read.
func Read(fd int, b []byte) (int, error) { return unix.Read(fd, b) }

// Close is unix.Close.
func Close(fd int) error { return unix.Close(fd) }

// Faccessat2 is unix.Faccessat2.
func Faccessat2(dirfd int, path string, mode uint32, flags int) error {
	return unix.Faccessat2(dirfd, path, mode, flags)
}

// Getdents is unix.Getdents.
func Getdents(fd int, buf []byte) (int, error) { return unix.Getdents(fd, buf) }

// Lstat is os.Lstat.
func Lstat(path string) (fs.FileInfo, error) { return os.Lstat(path) }
