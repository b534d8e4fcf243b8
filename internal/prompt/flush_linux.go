package prompt

import "golang.org/x/sys/unix"

// flushInput drops the keys typed before a question was asked.
func flushInput(fd int) { _ = unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) }
