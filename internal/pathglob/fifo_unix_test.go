//go:build unix

package pathglob

import "syscall"

// mkfifo makes a FIFO at p, for the walks' "not a regular file" case.
func mkfifo(p string) error { return syscall.Mkfifo(p, 0o644) }
