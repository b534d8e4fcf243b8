//go:build linux

package gitobj

import (
	"os"
	"syscall"
)

// StatOf is the part of fi that git keeps in an index entry to tell an
// unchanged file without reading it; ok is false when fi has none.
func StatOf(fi os.FileInfo) (s IndexStat, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return s, false
	}
	return IndexStat{
		CtimeSec: uint32(st.Ctim.Sec), CtimeNsec: uint32(st.Ctim.Nsec),
		MtimeSec: uint32(st.Mtim.Sec), MtimeNsec: uint32(st.Mtim.Nsec),
		Ino: uint32(st.Ino), UID: st.Uid, GID: st.Gid, Size: uint32(st.Size),
	}, true
}
