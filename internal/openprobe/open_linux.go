package openprobe

import (
	"io/fs"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
)

// CanOpen tells whether the file or folder at full can be opened for
// reading, as os.Open would (same answer, same *fs.PathError), in one
// system call that opens nothing: faccessat2(R_OK, AT_EACCESS) runs the
// kernel's own permission check for the effective user, as open(2) does,
// following a final symlink as open(2) does. Nothing is opened, so a FIFO
// or device is never opened here either. Where faccessat2 is missing
// (Linux before 5.8, or a seccomp filter refusing it) it opens the file
// (openProbe): the C library's fallback, which guesses from permission
// bits, would miss ACLs and capabilities.
func CanOpen(full string) error {
	if !noAccess2.Load() {
		err := access2(full)
		switch err {
		case nil:
			return nil
		case syscall.ENOSYS:
			noAccess2.Store(true)
		case syscall.EPERM:
			// a seccomp filter's answer (a read check never says EPERM
			// itself): open it to learn the truth
		default:
			return &fs.PathError{Op: "open", Path: full, Err: err}
		}
	}
	return openProbe(full)
}

// noAccess2 is set once faccessat2 said ENOSYS: the kernel has none.
var noAccess2 atomic.Bool

// access2 is faccessat2(AT_FDCWD, path, R_OK, AT_EACCESS), retried on EINTR,
// returning the bare errno (a variable so that a test can play a kernel
// without it).
var access2 = func(path string) error {
	for {
		err := fastsys.Faccessat2(unix.AT_FDCWD, path, unix.R_OK, unix.AT_EACCESS)
		if err != syscall.EINTR {
			return err
		}
	}
}
