//go:build unix

package openprobe

import (
	"io/fs"
	"syscall"
)

// openProbe tells whether the file or folder at full can be opened for
// reading, as os.Open would, by opening it, with two system calls: os.Open also registers
// the file with the runtime's poller (a third, failing call for a regular
// file) and allocates an *os.File. O_NONBLOCK: something swapped for a FIFO
// since it was stat'ed opens at once instead of hanging. The error is
// os.Open's (*fs.PathError).
func openProbe(full string) error {
	for {
		fd, err := syscall.Open(full, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "open", Path: full, Err: err}
		}
		syscall.Close(fd) // as os.Open's caller did: only the open tells
		return nil
	}
}
