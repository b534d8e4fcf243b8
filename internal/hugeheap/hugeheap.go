// Package hugeheap backs the next Bytes of the heap with transparent
// huge pages once a run is known to be large (Prepare), and tells the
// process's memory limit what that holds (Held, NotifyHeld).
//
// A run's time on a virtual machine is much the time the kernel takes to
// map memory: on the machine issue 25 was measured on, a page fault of 4
// KiB costs ~19 µs however often the page was used before, and a warm
// status of the bench's specs shape took ~13,000 of them, a third of its
// CPU. Backed by 2 MiB pages, the same heap takes ~3,000 faults, and every
// bench shape runs 10–40 % faster (docs/ARCHITECTURE.md, "Thirteenth
// pass"). The Go runtime leaves the heap to the kernel's default, which is
// huge pages only where a program asks (transparent_hugepage "madvise",
// the usual setting), so the process asks, for the next Bytes it grows by.
//
// Not for every run: asking costs a collection and a first 2 MiB fault,
// ~5 ms, a sixth of a run in a small repository. The caller that learns
// a run is large (app/loaded: a git index of 2 MiB or more, ~15,000
// tracked files) calls Prepare before the run's work allocates.
package hugeheap

import (
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// Bytes is the size of the heap asked to be huge pages.
	Bytes = 48 << 20
	// Slack is what a heap of huge pages holds over the same objects in
	// small pages, for the soft memory limit (Held): a huge page is
	// resident whole once touched. 64 MiB of huge pages without it took
	// the workflows1000 shape's cache-off run to 113–124 MiB in half its
	// runs (94–95 before); 48 MiB and an 8 MiB slack keep every shape at
	// or under its old peak and keep most of the time won.
	Slack = 8 << 20
	// For is how long the heap's pages are asked to be huge. A long-lived
	// process (orchestrate mcp, a resume waiting on its agent) gives
	// memory back as it idles, a few pages at a time, and the kernel's
	// khugepaged would make huge pages of what is left, resident again, in
	// a region advised for them: past For, the region is advised against
	// them (plainHeap), and the pages already huge stay as they are until
	// freed.
	For = 10 * time.Second
)

var (
	onHeld  atomic.Pointer[func()] // NotifyHeld's f
	allowed atomic.Bool            // Allow said yes
	held    atomic.Int64           // Held
	once    sync.Once              // Prepare's work, once a process
	ended   *time.Timer            // the timer ending the period (Prepare)
)

// Allow lets Prepare ask for huge pages, given the GODEBUG and GOMEMLIMIT
// the process was started with (Wanted), and reports whether it does.
func Allow(godebug, gomemlimit string) bool {
	ok := Wanted(godebug, gomemlimit)
	allowed.Store(ok)
	return ok
}

// Wanted reports whether the heap is to ask for huge pages, given GODEBUG
// and GOMEMLIMIT: not when GODEBUG says disablethp=1 (the Go runtime's own
// switch for them, which its users know), nor when GOMEMLIMIT sets a
// memory limit (whoever sets one manages the process's memory).
func Wanted(godebug, gomemlimit string) bool {
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

// NotifyHeld has f called each time Held changes (cmd/orchestrate: the
// soft limit); nil calls nothing. It may be called while the period's
// end runs.
func NotifyHeld(f func()) {
	if f == nil {
		onHeld.Store(nil)
		return
	}
	onHeld.Store(&f)
}

// Held is the memory the soft limit is to count as held outside the heap
// for huge pages: Slack while they are asked for, else 0.
func Held() int64 { return held.Load() }

// Prepare asks for huge pages for the next Bytes of the heap, once a
// process and only when Allow said yes, for For; it returns the range it
// asked for (empty when it asked for none). It blocks for one collection.
func Prepare() (beg, end uintptr) {
	if !allowed.Load() {
		return 0, 0
	}
	once.Do(func() { beg, end = prepare(Bytes) })
	return beg, end
}

// prepare asks for huge pages for n bytes of the heap (hugeHeap), sets
// Held, and starts the timer that ends the period.
func prepare(n int) (beg, end uintptr) {
	// the block is past the collector's goal: a collection that began
	// while the block was held would keep it, and the run's allocations
	// would go past the advised pages until the next one. With the
	// collector off while it is held, and a collection after, the block is
	// free before the caller goes on (a small heap: ~1 ms). Without an
	// advice taken there is nothing to wait for: the next collection, due
	// at once, frees the block if one was made.
	percent, limit := debug.SetGCPercent(-1), debug.SetMemoryLimit(math.MaxInt64)
	beg, end = hugeHeap(n)
	debug.SetMemoryLimit(limit)
	debug.SetGCPercent(percent)
	if end > beg {
		runtime.GC()
		setHeld(Slack)
		ended = time.AfterFunc(For, func() { finish(beg, end) })
	}
	return beg, end
}

// finish ends the period of huge pages prepare began on [beg, end): the
// range is advised against them (plainHeap) and Held is 0.
func finish(beg, end uintptr) {
	plainHeap(beg, end)
	setHeld(0)
}

// setHeld sets Held and tells NotifyHeld's function.
func setHeld(n int64) {
	held.Store(n)
	if f := onHeld.Load(); f != nil {
		(*f)()
	}
}
