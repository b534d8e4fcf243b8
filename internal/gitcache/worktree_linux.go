//go:build linux

package gitcache

import (
	"io/fs"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// FileStatOf is the stat data of fi a work-tree hash key holds; ok is false
// when the system gave none.
func FileStatOf(fi fs.FileInfo) (FileStat, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return FileStat{}, false
	}
	return FileStat{
		Dev: uint64(st.Dev), Ino: st.Ino, Mode: st.Mode, Size: st.Size,
		Mtime: time.Unix(st.Mtim.Unix()), Ctime: time.Unix(st.Ctim.Unix()),
	}, true
}

// folderStats lstats paths below one folder through a descriptor of it
// (FolderKeyOf): a path relative to it, "" the folder itself, is
// fstatat'ed without following a symbolic link, and without the kernel
// walking the folder's own path again for each of its files.
type folderStats struct{ fd int }

// openFolderStats opens folder abs (not a symbolic link); ok is false when
// it cannot be opened as a folder.
func openFolderStats(abs string) (folderStats, bool) {
	fd, err := unix.Open(abs, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return folderStats{}, false
	}
	return folderStats{fd: fd}, true
}

func (f folderStats) close() { unix.Close(f.fd) }

// stat is the stat data of rel below the folder, and whether it is a
// folder; ok is false when it cannot be had.
func (f folderStats) stat(rel string) (st FileStat, dir, ok bool) {
	var s unix.Stat_t
	var err error
	if rel == "" {
		err = unix.Fstat(f.fd, &s)
	} else {
		err = unix.Fstatat(f.fd, rel, &s, unix.AT_SYMLINK_NOFOLLOW)
	}
	if err != nil {
		return FileStat{}, false, false
	}
	return FileStat{
		Dev: uint64(s.Dev), Ino: s.Ino, Mode: s.Mode, Size: s.Size,
		Mtime: time.Unix(s.Mtim.Unix()), Ctime: time.Unix(s.Ctim.Unix()),
	}, s.Mode&unix.S_IFMT == unix.S_IFDIR, true
}
