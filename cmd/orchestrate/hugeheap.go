package main

import (
	"os"
	"strings"
)

// Huge pages for the heap. A run's time on a virtual machine is much the
// time the kernel takes to hand the process fresh memory: on the
// Firecracker machine issue 25 was measured on, the first touch of a 4 KiB
// page costs ~15 µs, and a warm status of the bench's specs shape touches
// ~13,000 of them (a third of its CPU). Backed by 2 MiB transparent huge
// pages, the same heap costs ~2,800 page faults, and every bench shape
// runs 20–40 % faster (docs/ARCHITECTURE.md, "Thirteenth pass"). The Go
// runtime leaves the heap to the kernel's default, which is huge pages
// only where a program asks (transparent_hugepage "madvise", the usual
// setting), so orchestrate asks for the first hugeHeapBytes of its heap
// (hugeheap_linux.go). Peak memory grows by at most a few MiB: a huge
// page is backed whole once touched, and the heap is compact.
const hugeHeapBytes = 64 << 20

// hugeHeapWanted reports whether the heap is to ask for huge pages, given
// the GODEBUG and GOMEMLIMIT the process was started with: not when
// GODEBUG says disablethp=1 (the Go runtime's own switch for them, which
// its users know), nor when GOMEMLIMIT sets a memory limit (whoever sets
// one manages the process's memory and gets no rounding up).
func hugeHeapWanted(godebug, gomemlimit string) bool {
	if gomemlimit != "" {
		return false
	}
	thp := true
	for kv := range strings.SplitSeq(godebug, ",") {
		// the last setting wins, as in the runtime
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && k == "disablethp" {
			thp = v != "1"
		}
	}
	return thp
}

// startHeap asks for huge pages for the first hugeHeapBytes of the heap
// unless the process's environment says not to (hugeHeapWanted), and
// returns the range it asked for (hugeHeap).
func startHeap() (beg, end uintptr) {
	if !hugeHeapWanted(os.Getenv("GODEBUG"), os.Getenv("GOMEMLIMIT")) {
		return 0, 0
	}
	return hugeHeap(hugeHeapBytes)
}
