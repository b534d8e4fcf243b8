//go:build unix && !linux

package fastsys

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// Outside Linux every call is the ordinary one.

// Openat is unix.Openat.
func Openat(dirfd int, path string, flags int, mode uint32) (int, error) {
	return unix.Openat(dirfd, path, flags, mode)
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

// Lstat is os.Lstat.
func Lstat(path string) (fs.FileInfo, error) { return os.Lstat(path) }
