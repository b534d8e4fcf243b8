//go:build linux

package cachetable

import (
	"strconv"

	"golang.org/x/sys/unix"
)

// birthTime is when the file at path was created (seconds.nanoseconds),
// "" where the file system does not say: a folder removed and created
// again at the same path, even with the same inode, has another.
func birthTime(path string) string {
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME, &st); err != nil || st.Mask&unix.STATX_BTIME == 0 {
		return ""
	}
	return strconv.FormatInt(st.Btime.Sec, 10) + "." + strconv.FormatUint(uint64(st.Btime.Nsec), 10)
}
