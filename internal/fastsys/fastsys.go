// Package fastsys makes the short file-system calls of a scan (open,
// fstat, fstatat, read, close, the access check, folder listings) as raw
// system calls while a command allows it (Allow), and as Go's ordinary
// calls otherwise.
//
// Why: a call through Go's scheduler (syscall.Syscall) marks its processor
// as in a system call; when every processor is busy, the scheduler's
// monitor takes a processor back from a call that spans one of its 20 µs
// ticks and wakes another thread to run it, and the caller waits for a
// processor again when its call returns: two context switches and futex
// calls for a call that took microseconds. A cache-off `status` of 20,000
// stories makes ~90,000 such calls on two processors, and the hand-overs
// cost ~95 ms of CPU (3,900 context switches against 700 with raw calls;
// docs/ARCHITECTURE.md, "Seventeenth pass").
//
// The cost of a raw call: while it runs, its processor runs nothing else,
// and a stop of the world (each collection has two) waits for it to return.
// On a local file system with the page cache warm these calls take
// microseconds; on a file system that stops answering (an NFS server gone,
// a FUSE daemon hung) the whole process waits with the call, where with
// ordinary calls only the calling goroutine would. So the calls are raw only
// while nothing needs the process to go on meanwhile: the command layer
// allows them for `status` and `resume` (Allow), and whatever installs a
// signal handler holds them off first (Hold: a shared lock to release on
// Ctrl-C, the MCP server, whose tools run those commands in process, an
// agent's command running): a handler is a goroutine, which needs a
// processor to run (docs/SECURITY.md, "Raw system calls"). Without a
// handler, Ctrl-C ends the process from the signal itself, raw call or not.
//
// Every function here has the signature and errors of its golang.org/x/sys/unix
// namesake (a bare syscall.Errno; EINTR is the caller's to retry, as there).
package fastsys

import (
	"sync"
	"sync/atomic"
)

var (
	on    atomic.Bool // whether the calls are raw
	mu    sync.Mutex  // orders Allow after Hold
	holds int         // the Holds not released, under mu
)

// Allow makes the calls raw from now on, until Forbid or Hold; nothing
// while a Hold is not released.
func Allow() {
	mu.Lock()
	defer mu.Unlock()
	if holds == 0 {
		on.Store(true)
	}
}

// Forbid makes the calls ordinary ones from now on, until Allow.
func Forbid() { on.Store(false) }

// Hold makes the calls ordinary ones, and Allow do nothing, until release
// is called (more than once is once): call it before installing a signal
// handler, or starting anything else that must run while a file-system
// call waits. The calls stay ordinary after release, until Allow.
func Hold() (release func()) {
	mu.Lock()
	holds++
	on.Store(false)
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			holds--
			mu.Unlock()
		})
	}
}

// Allowed reports whether the calls are raw now.
func Allowed() bool { return on.Load() }
