//go:build unix

package cachetable

import (
	"os"
	"strconv"
	"syscall"
)

// fileIdentity is fi's device and inode ("" when fi has none): a folder
// removed and created again at the same path most often gets another.
func fileIdentity(fi os.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return strconv.FormatUint(uint64(st.Dev), 10) + ":" + strconv.FormatUint(uint64(st.Ino), 10)
}
