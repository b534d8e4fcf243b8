package hugeheap

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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

// TestPrepareHoldsTheSlackUntilTheEnd: prepare leaves the heap mapping
// advised for huge pages, Held at Slack (NotifyHeld told), until finish
// advises the range against them and Held is 0 again.
func TestPrepareHoldsTheSlackUntilTheEnd(t *testing.T) {
	needHugePages(t)
	calls := 0
	NotifyHeld(func() { calls++ })
	t.Cleanup(func() {
		if ended != nil {
			ended.Stop()
		}
		NotifyHeld(nil)
		held.Store(0)
	})
	beg, end := prepare(8 << 20)
	if beg == 0 || end-beg < 2*hugePage {
		t.Fatalf("prepare(8 MiB) advised [%#x, %#x), want at least two huge pages", beg, end)
	}
	ended.Stop()
	if flags := vmFlags(t, end-1); !hasFlag(flags, "hg") {
		t.Errorf("the heap mapping at %#x has VmFlags %q, want hg", end-1, flags)
	}
	if Held() != Slack || calls != 1 {
		t.Errorf("after prepare Held() = %d (NotifyHeld's function told %d times), want %d (once)", Held(), calls, Slack)
	}
	finish(beg, end)
	if flags := vmFlags(t, end-1); hasFlag(flags, "hg") || !hasFlag(flags, "nh") {
		t.Errorf("after the period the heap mapping at %#x has VmFlags %q, want nh and no hg", end-1, flags)
	}
	if Held() != 0 || calls != 2 {
		t.Errorf("after the period Held() = %d (NotifyHeld's function told %d times), want 0 (twice)", Held(), calls)
	}
}

// TestThpNever reads the kernel's setting as it writes it, the mode in
// force in brackets.
func TestThpNever(t *testing.T) {
	for _, tc := range []struct {
		mode string
		want bool
	}{
		{"always [madvise] never\n", false},
		{"[always] madvise never\n", false},
		{"always madvise [never]\n", true},
		{"", false},
	} {
		if got := thpNever([]byte(tc.mode)); got != tc.want {
			t.Errorf("thpNever(%q) = %v, want %v", tc.mode, got, tc.want)
		}
	}
}

// TestNeverAsksNothing: where the kernel's setting is never, hugeHeap
// asks for nothing (and so prepare holds no slack).
func TestNeverAsksNothing(t *testing.T) {
	old := thpMode
	t.Cleanup(func() { thpMode = old })
	thpMode = filepath.Join(t.TempDir(), "enabled")
	if err := os.WriteFile(thpMode, []byte("always madvise [never]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if beg, end := hugeHeap(8 << 20); beg != 0 || end != 0 {
		t.Errorf("with huge pages set to never hugeHeap asked for [%#x, %#x)", beg, end)
	}
}

// needHugePages skips a test where the kernel has no transparent huge
// pages to give.
func needHugePages(t *testing.T) {
	t.Helper()
	mode, err := os.ReadFile(thpMode)
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
