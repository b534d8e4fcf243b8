//go:build linux

package command

import "golang.org/x/sys/unix"

// cldStopped is siginfo's si_code for a child stopped by a signal (Linux's
// CLD_STOPPED).
const cldStopped = 5

// jobControl reports that a stopped command can be noticed here (see
// childStopped).
const jobControl = true

// childStopped reports whether process pid has stopped (Ctrl-Z at the
// terminal its group has the foreground of, or any stop signal), taking
// that report: the command's Wait does not ask for stops, so nothing else
// would.
func childStopped(pid int) bool {
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, pid, &info, unix.WSTOPPED|unix.WNOHANG, nil); err != nil {
		return false
	}
	return info.Signo == int32(unix.SIGCHLD) && info.Code == cldStopped
}
