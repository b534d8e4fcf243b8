//go:build unix

package fastsys

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// TypeOf is the fs.FileMode type bits of a stat's st_mode, as os maps
// them (none for a regular file).
func TypeOf(mode uint32) fs.FileMode {
	switch mode & unix.S_IFMT {
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFSOCK:
		return fs.ModeSocket
	}
	return 0
}
