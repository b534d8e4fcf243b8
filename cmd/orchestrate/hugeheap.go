package main

import (
	"math"
	"os"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"
)

// Huge pages for the heap. A run's time on a virtual machine is much the
// time the kernel takes to hand the process fresh memory: on the
// Firecracker machine issue 25 was measured on, a warm status of the
// bench's specs shape took ~13,000 page faults of 4 KiB, a third of its
// CPU. Backed by 2 MiB transparent huge pages, the same heap costs ~3,000
// faults, and every bench shape runs 10–40 % faster (docs/ARCHITECTURE.md,
// "Thirteenth pass"). The Go runtime leaves the heap to the kernel's
// default, which is huge pages only where a program asks
// (transparent_hugepage "madvise", the usual setting), so orchestrate
// asks for the first hugeHeapBytes of its heap (hugeheap_linux.go).
//
// A huge page is resident whole once touched, so a heap backed by them
// holds more memory than one of small pages with the same objects: the
// soft memory limit counts hugeHeapSlack as held outside the heap while
// they are asked for (setLimit). 64 MiB of huge pages without it took the
// workflows1000 shape's cache-off run to 113–124 MiB in half its runs
// (94–95 before); 48 MiB and an 8 MiB slack keep every shape at or under
// its old peak (at most 94 MiB) and keep most of the time won.
const (
	hugeHeapBytes = 48 << 20
	hugeHeapSlack = 8 << 20
	// hugeHeapFor is how long the heap's pages are asked to be huge. A
	// long-lived process (orchestrate mcp, a resume waiting on its agent)
	// gives memory back as it idles, a few pages at a time, and the
	// kernel's khugepaged would make huge pages of what is left, resident
	// again, in a region advised for them: past this, the region is
	// advised against them (plainHeap), and the pages already huge stay
	// as they are until freed.
	hugeHeapFor = 10 * time.Second
)

// hugeHeapEnd is the timer that ends the huge pages' period (startHeap).
var hugeHeapEnd *time.Timer

// hugeHeld is the memory the soft limit counts as held outside the heap
// for huge pages (hugeHeapSlack while they are asked for, else 0).
var hugeHeld atomic.Int64

// hugeHeapWanted reports whether the heap is to ask for huge pages, given
// the GODEBUG and GOMEMLIMIT the process was started with: not when
// GODEBUG says disablethp=1 (the Go runtime's own switch for them, which
// its users know), nor when GOMEMLIMIT sets a memory limit (whoever sets
// one manages the process's memory, and tuneGC leaves it be).
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
// unless the process's environment says not to (hugeHeapWanted), lowers
// the soft memory limit by hugeHeapSlack while it does, and returns the
// range it asked for (hugeHeap). It runs after tuneGC.
func startHeap() (beg, end uintptr) {
	if !hugeHeapWanted(os.Getenv("GODEBUG"), os.Getenv("GOMEMLIMIT")) {
		return 0, 0
	}
	// the block is past the collector's goal: a collection that began
	// while the block was held would keep it, and the run's first
	// allocations would go past the advised pages until the next one. With
	// the collector off while it is held, the first collection after
	// finds it unreachable and frees it.
	percent, limit := debug.SetGCPercent(-1), debug.SetMemoryLimit(math.MaxInt64)
	beg, end = hugeHeap(hugeHeapBytes)
	debug.SetMemoryLimit(limit)
	debug.SetGCPercent(percent)
	if end > beg {
		hugeHeld.Store(hugeHeapSlack)
		setLimit()
		hugeHeapEnd = time.AfterFunc(hugeHeapFor, func() { endHugeHeap(beg, end) })
	}
	return beg, end
}

// endHugeHeap ends the period of huge pages startHeap began on [beg, end):
// the range is advised against them (plainHeap) and the soft limit
// counts no slack for them.
func endHugeHeap(beg, end uintptr) {
	plainHeap(beg, end)
	hugeHeld.Store(0)
	setLimit()
}
