package safefile

import (
	"os"

	"golang.org/x/sys/unix"
)

// Stat is the stat of d's folder itself, taken through its descriptor
// (fstat: no path resolved, no link followed): what a cache of the
// folder's listing is keyed on (a folder's modification and change times
// move whenever an entry is added, removed or renamed in it).
func (d *Dir) Stat() (FileStat, error) {
	var st unix.Stat_t
	if err := retry(func() error { return unix.Fstat(d.fd, &st) }); err != nil {
		return FileStat{}, &os.PathError{Op: "fstat", Path: d.full("."), Err: err}
	}
	return fileStat(&st), nil
}

// IsDir reports whether the stat is a folder's.
func (s FileStat) IsDir() bool { return s.Mode&unix.S_IFMT == unix.S_IFDIR }

// IsSymlink reports whether the stat is a symlink's (a no-follow stat).
func (s FileStat) IsSymlink() bool { return s.Mode&unix.S_IFMT == unix.S_IFLNK }
