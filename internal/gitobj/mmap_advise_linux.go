package gitobj

import "syscall"

// adviseRandom tells the kernel that a mapping is read at random places: no
// read-ahead, so only the pages read count in the process's memory.
func adviseRandom(b []byte) { _ = syscall.Madvise(b, syscall.MADV_RANDOM) }

// dropPages releases the pages of a read-only file mapping from the
// process's memory; they stay in the page cache, and a later read maps them
// again.
func dropPages(b []byte) { _ = syscall.Madvise(b, syscall.MADV_DONTNEED) }
