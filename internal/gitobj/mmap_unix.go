//go:build unix

package gitobj

import (
	"errors"
	"os"
	"syscall"
)

// mmapFile maps the first size bytes of f read-only into memory; it fails
// when f is not an operating-system file or cannot be mapped. Git never
// rewrites a pack or its index in place (a repack writes new files), so the
// mapping stays valid while it is held.
func mmapFile(f any, size int64) ([]byte, func() error, error) {
	fd, ok := f.(interface{ Fd() uintptr })
	if !ok || size <= 0 || int64(int(size)) != size {
		return nil, nil, errors.New("file cannot be mapped")
	}
	b, err := syscall.Mmap(int(fd.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}

// sameFile reports whether a and b describe the same file; go-billy wraps
// the file information, so the device and inode are compared.
func sameFile(a, b os.FileInfo) bool {
	if os.SameFile(a, b) {
		return true
	}
	sa, ok := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return ok && ok2 && sa.Dev == sb.Dev && sa.Ino == sb.Ino
}
