//go:build linux

package gitcache

import (
	"io/fs"
	"syscall"
	"time"
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

// statKeys is set where FileStatOf gives stat data (a folder's key too).
const statKeys = true
