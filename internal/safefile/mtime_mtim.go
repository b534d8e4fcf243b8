//go:build linux || openbsd || dragonfly || solaris || illumos || aix

package safefile

import (
	"syscall"
	"time"
)

// statMtime is the modification time fstat gave, in UTC.
func statMtime(st *syscall.Stat_t) time.Time {
	return time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec)).UTC()
}
