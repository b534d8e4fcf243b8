//go:build linux

package gitrepo

import (
	"os"
	"syscall"
)

// statOf is the part of fi that git keeps in an index entry to tell an
// unchanged file without reading it; ok is false when fi has none.
func statOf(fi os.FileInfo) (s indexStat, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return s, false
	}
	return indexStat{
		ctimeSec: uint32(st.Ctim.Sec), ctimeNsec: uint32(st.Ctim.Nsec),
		mtimeSec: uint32(st.Mtim.Sec), mtimeNsec: uint32(st.Mtim.Nsec),
		ino: uint32(st.Ino), uid: st.Uid, gid: st.Gid, size: uint32(st.Size),
	}, true
}
