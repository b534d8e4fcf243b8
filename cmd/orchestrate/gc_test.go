package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/hugeheap"
)

// TestGCLimit checks the soft memory limit: the floor for a small live
// heap, room over it for a middling one, room for it again for a large
// one, and a limit that never falls as the live heap grows.
func TestGCLimit(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int64
	}{
		{0, gcLimitFloor},
		{36 << 20, gcLimitFloor},
		{44 << 20, 72 << 20},
		{48 << 20, 76 << 20},
		{60 << 20, 90 << 20},
		{64 << 20, 128 << 20},
		{400 << 20, 800 << 20},
		{1 << 63, gcLimitFloor}, // overflow: never a negative limit
	} {
		if got := gcLimit(tc.live); got != tc.want {
			t.Errorf("gcLimit(%d MiB) = %d MiB, want %d MiB", tc.live>>20, got>>20, tc.want>>20)
		}
	}
	prev := int64(0)
	for live := uint64(0); live < 1<<30; live += 1 << 20 {
		l := gcLimit(live)
		if l < prev {
			t.Fatalf("gcLimit(%d MiB) = %d MiB falls below gcLimit of less (%d MiB)", live>>20, l>>20, prev>>20)
		}
		if l < int64(live)+gcRoomMin {
			t.Fatalf("gcLimit(%d MiB) = %d MiB leaves less than %d MiB of room", live>>20, l>>20, gcRoomMin>>20)
		}
		prev = l
	}
}

// TestGCLimitLeavesMappedTablesTheirRoom: mapped cache tables take their
// size off the limit (they are resident, uncounted by the collector), but
// never leave less than gcRoomMapped over the live heap; none mapped is
// gcLimit.
func TestGCLimitLeavesMappedTablesTheirRoom(t *testing.T) {
	for _, tc := range []struct {
		live   uint64
		mapped int64
		want   int64
	}{
		{0, 0, gcLimitFloor},
		{0, 10 << 20, gcLimitFloor - 10<<20},
		{40 << 20, 10 << 20, gcLimitFloor - 10<<20},
		{44 << 20, 10 << 20, 62 << 20},
		{44 << 20, 40 << 20, 60 << 20}, // the room over the live heap
		{400 << 20, 100 << 20, 700 << 20},
		{1 << 63, 10 << 20, gcLimitFloor}, // overflow: never a negative limit
		{40 << 20, 1 << 62, gcLimitFloor},
	} {
		if got := limitFor(tc.live, tc.mapped); got != tc.want {
			t.Errorf("limitFor(%d MiB, %d MiB mapped) = %d MiB, want %d MiB", tc.live>>20, tc.mapped>>20, got>>20, tc.want>>20)
		}
	}
}

// TestMappedTablesLowerTheLimit: with tuneGC's wiring (no GOGC or
// GOMEMLIMIT), opening a table big enough to be mapped lowers the soft
// memory limit by its size, as limitFor says; the limit (and the hooks
// tuneGC set) are put back after.
func TestMappedTablesLowerTheLimit(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	oldLimit, oldPercent := debug.SetMemoryLimit(-1), debug.SetGCPercent(100)
	debug.SetGCPercent(oldPercent)
	t.Cleanup(func() {
		gcHooksOff.Store(true) // the test process keeps its own limit
		diskcache.OnMapped = nil
		debug.SetMemoryLimit(oldLimit)
		debug.SetGCPercent(oldPercent)
	})
	tuneGC()
	if diskcache.OnMapped == nil {
		t.Fatal("tuneGC left the mapped tables out of the limit")
	}
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	b := diskcache.NewBuilder(20)
	for i := 0; i < 2000; i++ {
		k := sha256.Sum256([]byte(fmt.Sprint(i)))
		b.Add(k[:20], bytes.Repeat([]byte{1}, 200))
	}
	empty, _ := c.Open("t", 20)
	if err := c.Write("t", empty, b); err != nil {
		t.Fatal(err)
	}
	before := diskcache.MappedBytes()
	tab, err := c.Open("t", 20)
	if err != nil || tab.Len() != 2000 {
		t.Fatalf("Open: %v, %d entries", err, tab.Len())
	}
	mapped := diskcache.MappedBytes()
	if mapped <= before {
		t.Fatal("the table was not mapped")
	}
	gcMu.Lock()
	live := gcLive
	gcMu.Unlock()
	if got, want := debug.SetMemoryLimit(-1), limitFor(live, mapped+hugeheap.Held()); got != want || want >= gcLimit(live) {
		t.Fatalf("limit %d MiB with %d MiB mapped, want %d MiB (below %d MiB)", got>>20, mapped>>20, want>>20, gcLimit(live)>>20)
	}
}

// TestHugePagesLowerTheLimit: with setup's wiring, a run that asks for
// huge pages (hugeheap.Prepare, as app/loaded does for a large
// repository) lowers the soft memory limit by their slack, as limitFor
// says; the limit is put back after.
func TestHugePagesLowerTheLimit(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if runtime.GOOS != "linux" || err != nil || bytes.Contains(mode, []byte("[never]")) {
		t.Skipf("no transparent huge pages here (%q, %v)", mode, err)
	}
	oldLimit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		hugeheap.NotifyHeld(nil) // the period's end, 10 s on, leaves the test process's limit be
		debug.SetMemoryLimit(oldLimit)
	})
	hugeheap.NotifyHeld(setLimit)
	if !hugeheap.Allow("", "") {
		t.Fatal("Allow refused an empty GODEBUG and GOMEMLIMIT")
	}
	if beg, end := hugeheap.Prepare(); end <= beg {
		t.Fatal("Prepare asked for nothing")
	}
	gcMu.Lock()
	live := gcLive
	gcMu.Unlock()
	mapped := diskcache.MappedBytes()
	if got, want := debug.SetMemoryLimit(-1), limitFor(live, mapped+hugeheap.Slack); got != want || want >= limitFor(live, mapped) {
		t.Fatalf("limit %d MiB with huge pages asked for, want %d MiB (below %d MiB)", got>>20, want>>20, limitFor(live, mapped)>>20)
	}
}
