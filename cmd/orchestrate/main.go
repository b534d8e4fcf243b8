// Command orchestrate resumes interrupted AI-agent development workflows.
// See the README and `orchestrate --help`.
package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"

	"github.com/orchestrate-dev/orchestrate/app/cli"
)

func main() {
	// no heap profile is ever written from this binary (cmd/benchrun
	// profiles in process): sampling one costs its buckets, 1.4 MiB of
	// the peak on the bench's workflows shape
	runtime.MemProfileRate = 0
	tuneGC()
	os.Exit(cli.Main(os.Args[1:], cli.OSSystem()))
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
	// 76 MiB, not 88, since issue 25's fifth pass: with the live heap of
	// the workflow shapes down to 30–40 MB it keeps their cache-off and
	// first runs under 100 MiB (102 → 96 MiB on 200 × 300, 109 → 98 on
	// 1,000 × 50) for one or two more collections (~+3 % CPU, within the
	// noise of `make bench`); 72 MiB cost more, for 2–3 MiB less.
	gcLimitFloor = 76 << 20
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
	}
}

// gcLimit is the soft memory limit for a live heap of live bytes: the
// floor, or room for the live heap again when that is more (at worst the
// pace of GOGC=100, never a collector that cannot stop: 200 workflows with
// a 70 MB live heap cost no more CPU than without a limit, and 40 % less
// memory, where 1.75 times the live heap cost 7 % more CPU).
func gcLimit(live uint64) int64 {
	if l := 2 * live; l > gcLimitFloor && l < 1<<62 {
		return int64(l)
	}
	return gcLimitFloor
}

// raiseLimit raises the soft memory limit to gcLimit of the heap the last
// collection left live; it never lowers it.
func raiseLimit() {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	if l := gcLimit(s[0].Value.Uint64()); l > debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(l)
	}
}

// onGC calls f after every garbage collection (from the finalizer
// goroutine): a sentinel object's finalizer runs once the collection that
// found it unreachable ends, and sets up the next one.
func onGC(f func()) {
	s := new([64]byte) // not a tiny allocation: its finalizer runs promptly
	runtime.SetFinalizer(s, func(*[64]byte) {
		f()
		onGC(f)
	})
}
