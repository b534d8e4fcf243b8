package hugeheap

import (
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
// none). It allocates one block of n bytes, which the runtime maps fresh
// and does not touch, advises the 2 MiB-aligned range inside it
// MADV_HUGEPAGE and lets the block go: the advice belongs to the mapping,
// not the block, so the small objects the runtime places in those pages
// once the block is collected are faulted in 2 MiB at a time. The runtime
// never maps heap memory anew where it has mapped it once, and gives
// pages back with MADV_DONTNEED, which keeps the advice. An advice the
// kernel refuses (no huge pages built in) changes nothing.
func hugeHeap(n int) (beg, end uintptr) {
	if n < hugePage {
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
