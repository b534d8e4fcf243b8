// Command orchestrate resumes interrupted AI-agent development workflows.
// See the README and `orchestrate --help`.
package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"

	"github.com/orchestrate-dev/orchestrate/app/cli"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/hugeheap"
)

func main() {
	setup()
	os.Exit(cli.Main(os.Args[1:], cli.OSSystem()))
}

// setup tunes the process the way a run needs it; the tests' binary runs
// it too when it runs as orchestrate (script_test.go).
func setup() {
	// no heap profile is ever written from this binary (cmd/benchrun
	// profiles in process): sampling one costs its buckets, 1.4 MiB of
	// the peak on the bench's workflows shape
	runtime.MemProfileRate = 0
	tuneGC()
	// huge pages for the heap once a run turns out large (app/loaded);
	// the soft limit counts what they hold
	if hugeheap.Allow(os.Getenv("GODEBUG"), os.Getenv("GOMEMLIMIT")) {
		hugeheap.NotifyHeld(setLimit)
	}
}

// GC pacing. orchestrate is a short-lived process that allocates while it
// parses thousands of small files: collecting garbage a third as often as
// the default saves ~7% of a scan (GOGC 200, measured with make bench).
// At GOGC 200 the heap grows to three times what is live, though: 50 MB
// live after a scan of 20,000 stories made a 150 MB heap. A soft memory
// limit (gcLimitFloor) caps that growth where it costs little, and is
// raised with the live heap (gcLimit) so that a repository whose live heap
// nears it never makes the collector run back to back.
const (
	gcPercent = 200
	// gcLimitFloor is the soft memory limit while the live heap is small.
	// 72 MiB since issue 25's eighteenth pass (68 from its sixth, 76
	// before, 88 before that): about 20–30 MiB of a run's resident memory
	// is not the Go heap (the binary's pages, the mapped pack index and
	// pack pages, the C library), so a limit much over 70 MiB could not
	// keep the process under DESIGN §13's 100 MiB (specs cache off: 100.2
	// MiB at 72 then, 97.7 at 68). Runs hold less now (specs 85 MiB at 68,
	// 88 at 72), and 72 saves the 1,000-workflow shape a collection or two
	// (−14 ± 6 ms of 0.44 s, −30 ms of CPU; 74 and 77 saved less, their
	// heaps faulting more fresh pages in).
	gcLimitFloor = 72 << 20
	// gcRoomMin is the least room for allocation over the live heap the
	// limit leaves, and gcRoomLive the live heap up to which the limit
	// leaves only that, or half the live heap again when that is more;
	// past it the limit is twice the live heap (see gcLimit).
	gcRoomMin  = 28 << 20
	gcRoomLive = 64 << 20
)

// tuneGC sets the garbage collector's pace unless GOGC or GOMEMLIMIT say
// otherwise (the runtime has read them already).
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(gcLimitFloor)
		onGC(raiseLimit)
		diskcache.OnMapped = setLimit
	}
}

// gcLimit is the soft memory limit for a live heap of live bytes, never
// a collector that cannot stop:
//   - the floor while the live heap is small;
//   - up to gcRoomLive, the live heap and gcRoomMin (28 MiB) of room, or
//     half the live heap again when that is more: the memo-writing run of
//     the bench's workflow shapes (a 40–44 MB live heap) came to 103–107
//     MiB under twice the live heap, 94–96 MiB so, for a few more
//     collections of a heap that size (issue 25's sixth pass);
//   - past it, twice the live heap (the pace of GOGC=100): a large live
//     heap is marked at every collection, and 200 workflows with a 70 MB
//     live heap cost no more CPU so than without a limit, and 40 % less
//     memory, where 1.75 times the live heap cost 7 % more CPU.
func gcLimit(live uint64) int64 {
	if live >= 1<<61 {
		return gcLimitFloor // overflow: never a negative limit
	}
	if live >= gcRoomLive {
		return int64(2 * live)
	}
	return int64(max(gcLimitFloor, live+gcRoomMin, live+live/2))
}

// gcRoomMapped is the least room over the live heap the limit leaves
// when mapped tables take their share of it (limitFor).
const gcRoomMapped = 16 << 20

// limitFor is the soft memory limit for a live heap of live bytes while
// mapped bytes are held outside it: the cache tables mapped
// (internal/diskcache's mapread.go) and the huge pages' slack
// (internal/hugeheap), resident memory the collector does not count. It is
// gcLimit less them, never less than gcRoomMapped over the live heap.
// (Read into the heap, the tables were counted: a warm run of 1,000
// workflows after HEAD moved, which writes the verdict memo's table anew,
// came to 104 MiB with them mapped and uncounted, 98 before.)
func limitFor(live uint64, mapped int64) int64 {
	l := gcLimit(live)
	if mapped <= 0 || live >= 1<<61 || mapped >= 1<<61 {
		return l
	}
	return max(l-mapped, int64(live)+gcRoomMapped)
}

// gcLive is the largest live heap a collection left (raiseLimit), under
// gcMu with the limit set from it.
var (
	gcMu   sync.Mutex
	gcLive uint64
)

// raiseLimit sets the soft memory limit from the heap the last collection
// left live (setLimit); a smaller live heap than before never lowers it.
func raiseLimit() {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	gcMu.Lock()
	gcLive = max(gcLive, s[0].Value.Uint64())
	gcMu.Unlock()
	setLimit()
}

// setLimit sets the soft memory limit to limitFor the largest live heap
// seen, the tables mapped now and the huge pages' slack (hugeheap.Held).
func setLimit() {
	gcMu.Lock()
	defer gcMu.Unlock()
	debug.SetMemoryLimit(limitFor(gcLive, diskcache.MappedBytes()+hugeheap.Held()))
}

// onGC calls f after every garbage collection (from the finalizer
// goroutine): a sentinel object's finalizer runs once the collection that
// found it unreachable ends, and sets up the next one.
func onGC(f func()) {
	s := new([64]byte) // not a tiny allocation: its finalizer runs promptly
	runtime.SetFinalizer(s, func(*[64]byte) {
		if gcHooksOff.Load() {
			return
		}
		f()
		onGC(f)
	})
}

// gcHooksOff ends onGC's calls (a test that ran tuneGC in its own
// process sets it).
var gcHooksOff atomic.Bool
