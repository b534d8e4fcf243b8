package hugeheap

import (
	"bytes"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on the platforms Go
// runs Linux on that have them in the kernel's default setup (amd64,
// arm64 with 4 KiB pages).
const hugePage = 2 << 20

// hugeHeap asks the kernel to back n bytes of the heap with transparent
// huge pages, and returns the range it asked for (empty when it asked for
// none; none either when the kernel gives no huge pages, thpNever). It
// allocates one block of n bytes, which the runtime maps fresh
// and does not touch, advises the 2 MiB-aligned range inside it
// MADV_HUGEPAGE and lets the block go: the advice belongs to the mapping,
// not the block, so the small objects the runtime places in those pages
// once the block is collected are faulted in 2 MiB at a time. The runtime
// never maps heap memory anew where it has mapped it once, and gives
// pages back with MADV_DONTNEED, which keeps the advice. An advice the
// kernel refuses (no huge pages built in) changes nothing.
func hugeHeap(n int) (beg, end uintptr) {
	if n < hugePage || thpNever(readMode()) {
		return 0, 0
	}
	b := make([]byte, n)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	beg = (p + hugePage - 1) &^ (hugePage - 1)
	end = (p + uintptr(n)) &^ (hugePage - 1)
	if end <= beg || syscall.Madvise(b[beg-p:end-p], syscall.MADV_HUGEPAGE) != nil {
		beg, end = 0, 0
	}
	runtime.KeepAlive(b)
	return beg, end
}

// plainHeap advises the range hugeHeap asked for against huge pages
// (MADV_NOHUGEPAGE): no new fault there takes one, and khugepaged leaves
// it alone. The range holds other objects by now, so it is passed to the
// kernel as numbers, never as a Go pointer.
func plainHeap(beg, end uintptr) {
	if end > beg {
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, beg, end-beg, syscall.MADV_NOHUGEPAGE)
	}
}

// thpMode is the file that says when the kernel gives transparent huge
// pages: "always", "madvise" or "never", the one in force in brackets (a
// variable for the tests).
var thpMode = "/sys/kernel/mm/transparent_hugepage/enabled"

// readMode reads thpMode (nil when it cannot: no huge pages built in,
// and an advice then fails).
func readMode() []byte {
	b, _ := os.ReadFile(thpMode)
	return b
}

// thpNever reports whether thpMode's content says "never": an advice
// would then be taken and change nothing, and the soft limit would be
// lowered for huge pages the process never gets.
func thpNever(mode []byte) bool { return bytes.Contains(mode, []byte("[never]")) }
