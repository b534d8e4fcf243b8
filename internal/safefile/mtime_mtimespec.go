//go:build darwin || ios || freebsd || netbsd

package safefile

import (
	"syscall"
	"time"
)

// statMtime is the modification time fstat gave, in UTC.
func statMtime(st *syscall.Stat_t) time.Time {
	return time.Unix(int64(st.Mtimespec.Sec), int64(st.Mtimespec.Nsec)).UTC()
}
