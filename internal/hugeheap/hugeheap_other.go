//go:build !linux

package hugeheap

// hugeHeap does nothing where the kernel takes no advice on huge pages
// (see the Linux version).
func hugeHeap(n int) (beg, end uintptr) { return 0, 0 }

// plainHeap does nothing here (see the Linux version).
func plainHeap(beg, end uintptr) {}
