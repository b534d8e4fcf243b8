//go:build linux

package gitrepo

import (
	"io/fs"
	"syscall"
	"time"
)

// keyStatOf is the stat data of fi a work-tree hash key holds; ok is false
// when the system gave none.
func keyStatOf(fi fs.FileInfo) (fileKeyStat, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKeyStat{}, false
	}
	return fileKeyStat{
		dev: uint64(st.Dev), ino: st.Ino, mode: st.Mode, size: st.Size,
		mtime: time.Unix(st.Mtim.Unix()), ctime: time.Unix(st.Ctim.Unix()),
	}, true
}
