//go:build unix

package gitrepo

import (
	"syscall"

	"github.com/go-git/go-billy/v5"
)

// mapFile maps the first size bytes of f read-only into memory, so that a
// pack index costs no heap and only the pages a look-up touches are read;
// files that cannot be mapped are read whole instead.
func mapFile(f billy.File, size int64) ([]byte, func() error, error) {
	fd, ok := f.(interface{ Fd() uintptr })
	if !ok || size <= 0 || int64(int(size)) != size {
		return readWhole(f, size)
	}
	b, err := syscall.Mmap(int(fd.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return readWhole(f, size)
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}
