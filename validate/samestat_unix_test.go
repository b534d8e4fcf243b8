//go:build unix

package validate

import (
	"io/fs"
	"os"
	"syscall"
)

// sameStat reports whether a and b are lstats of the same file: os.SameFile,
// or the same device and inode behind Sys and the same name, mode, size and
// time (safefile.Reader.ProbeFast's lstats are made from an fstat, not by
// os.Lstat).
func sameStat(a, b fs.FileInfo) bool {
	if os.SameFile(a, b) {
		return true
	}
	sa, ok := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return ok && ok2 && sa.Dev == sb.Dev && sa.Ino == sb.Ino && a.Name() == b.Name() &&
		a.Mode() == b.Mode() && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
