package main

import (
	"bufio"
	"bytes"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

// TestHugeHeapAdvisesTheHeap checks that hugeHeap leaves the heap mapping
// it allocated in advised MADV_HUGEPAGE ("hg" in the mapping's VmFlags),
// that plainHeap advises it against them after ("nh"), and that a block
// too small for one huge page asks for nothing.
func TestHugeHeapAdvisesTheHeap(t *testing.T) {
	needHugePages(t)
	if beg, end := hugeHeap(hugePage - 1); beg != 0 || end != 0 {
		t.Errorf("hugeHeap(2 MiB - 1) advised [%#x, %#x), want nothing", beg, end)
	}
	beg, end := hugeHeap(8 << 20)
	if beg == 0 || end-beg < 2*hugePage || beg%hugePage != 0 || end%hugePage != 0 {
		t.Fatalf("hugeHeap(8 MiB) advised [%#x, %#x), want at least two aligned huge pages", beg, end)
	}
	if flags := vmFlags(t, beg); !hasFlag(flags, "hg") {
		t.Errorf("the heap mapping at %#x has VmFlags %q, want hg (MADV_HUGEPAGE)", beg, flags)
	}
	plainHeap(beg, end)
	if flags := vmFlags(t, beg); hasFlag(flags, "hg") || !hasFlag(flags, "nh") {
		t.Errorf("after plainHeap the heap mapping at %#x has VmFlags %q, want nh and no hg", beg, flags)
	}
}

// TestStartHeapFollowsTheEnvironment: main's start asks for huge pages
// for the heap, in an advised mapping, and lowers the soft memory limit
// by their slack until the period ends (endHugeHeap), unless GODEBUG's
// disablethp=1 or a GOMEMLIMIT says not to.
func TestStartHeapFollowsTheEnvironment(t *testing.T) {
	needHugePages(t)
	oldLimit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		if hugeHeapEnd != nil {
			hugeHeapEnd.Stop()
		}
		hugeHeld.Store(0)
		debug.SetMemoryLimit(oldLimit) // the test process keeps its own limit
	})
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GODEBUG", "")
	beg, end := startHeap()
	if end-beg < hugeHeapBytes-hugePage {
		t.Fatalf("startHeap advised [%#x, %#x), want about %d MiB", beg, end, hugeHeapBytes>>20)
	}
	hugeHeapEnd.Stop()
	if flags := vmFlags(t, end-1); !hasFlag(flags, "hg") {
		t.Errorf("the heap mapping at %#x has VmFlags %q, want hg", end-1, flags)
	}
	gcMu.Lock()
	live := gcLive
	gcMu.Unlock()
	mapped := diskcache.MappedBytes()
	if got, want := debug.SetMemoryLimit(-1), limitFor(live, mapped+hugeHeapSlack); got != want || want >= limitFor(live, mapped) {
		t.Errorf("with huge pages the limit is %d MiB, want %d MiB (below %d MiB)", got>>20, want>>20, limitFor(live, mapped)>>20)
	}
	endHugeHeap(beg, end)
	if flags := vmFlags(t, end-1); hasFlag(flags, "hg") {
		t.Errorf("after the period the heap mapping at %#x has VmFlags %q, want no hg", end-1, flags)
	}
	if got, want := debug.SetMemoryLimit(-1), limitFor(live, mapped); got != want {
		t.Errorf("after the period the limit is %d MiB, want %d MiB", got>>20, want>>20)
	}
	for _, env := range [][2]string{{"GODEBUG", "disablethp=1"}, {"GOMEMLIMIT", "1GiB"}} {
		t.Run(env[0], func(t *testing.T) {
			t.Setenv(env[0], env[1])
			if beg, end := startHeap(); beg != 0 || end != 0 || hugeHeld.Load() != 0 {
				t.Errorf("with %s=%s startHeap advised [%#x, %#x), slack %d, want nothing", env[0], env[1], beg, end, hugeHeld.Load())
			}
		})
	}
}

// needHugePages skips a test where the kernel has no transparent huge
// pages to give.
func needHugePages(t *testing.T) {
	t.Helper()
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || bytes.Contains(mode, []byte("[never]")) {
		t.Skipf("no transparent huge pages here (%q, %v)", mode, err)
	}
}

// hasFlag reports whether a VmFlags value holds flag.
func hasFlag(flags, flag string) bool {
	return strings.Contains(" "+flags+" ", " "+flag+" ")
}

// vmFlags returns the VmFlags of the mapping of /proc/self/smaps that
// holds addr; the test fails when none does.
func vmFlags(t *testing.T, addr uintptr) string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok {
			if in {
				return strings.TrimSpace(rest)
			}
			continue
		}
		span, _, _ := strings.Cut(line, " ")
		lo, hi, ok := strings.Cut(span, "-")
		if !ok {
			continue // a field line ("Size:  8 kB")
		}
		l, err1 := strconv.ParseUint(lo, 16, 64)
		h, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		in = uint64(addr) >= l && uint64(addr) < h
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading /proc/self/smaps: %v", err)
	}
	t.Fatalf("no mapping holds %#x in /proc/self/smaps", addr)
	return ""
}
