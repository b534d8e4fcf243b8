package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestHugeHeapAdvisesTheHeap checks that hugeHeap leaves the heap mapping
// it allocated in advised MADV_HUGEPAGE ("hg" in the mapping's VmFlags),
// and that a block too small for one huge page asks for nothing.
func TestHugeHeapAdvisesTheHeap(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || bytes.Contains(mode, []byte("[never]")) {
		t.Skipf("no transparent huge pages here (%q, %v)", mode, err)
	}
	if beg, end := hugeHeap(hugePage - 1); beg != 0 || end != 0 {
		t.Errorf("hugeHeap(2 MiB - 1) advised [%#x, %#x), want nothing", beg, end)
	}
	beg, end := hugeHeap(8 << 20)
	if beg == 0 || end-beg < 2*hugePage || beg%hugePage != 0 || end%hugePage != 0 {
		t.Fatalf("hugeHeap(8 MiB) advised [%#x, %#x), want at least two aligned huge pages", beg, end)
	}
	flags, ok := vmFlags(t, beg)
	if !ok {
		t.Fatalf("no mapping holds %#x in /proc/self/smaps", beg)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the heap mapping at %#x has VmFlags %q, want hg (MADV_HUGEPAGE)", beg, flags)
	}
}

// TestStartHeapFollowsTheEnvironment: main's start asks for huge pages
// for the heap, in an advised mapping, unless GODEBUG's disablethp=1 or a
// GOMEMLIMIT says not to.
func TestStartHeapFollowsTheEnvironment(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || bytes.Contains(mode, []byte("[never]")) {
		t.Skipf("no transparent huge pages here (%q, %v)", mode, err)
	}
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GODEBUG", "")
	beg, end := startHeap()
	if end-beg < hugeHeapBytes-hugePage {
		t.Fatalf("startHeap advised [%#x, %#x), want about %d MiB", beg, end, hugeHeapBytes>>20)
	}
	if flags, _ := vmFlags(t, end-1); !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the heap mapping at %#x has VmFlags %q, want hg", end-1, flags)
	}
	for _, env := range [][2]string{{"GODEBUG", "disablethp=1"}, {"GOMEMLIMIT", "1GiB"}} {
		t.Run(env[0], func(t *testing.T) {
			t.Setenv(env[0], env[1])
			if beg, end := startHeap(); beg != 0 || end != 0 {
				t.Errorf("with %s=%s startHeap advised [%#x, %#x), want nothing", env[0], env[1], beg, end)
			}
		})
	}
}

// vmFlags returns the VmFlags of the mapping of /proc/self/smaps that
// holds addr.
func vmFlags(t *testing.T, addr uintptr) (string, bool) {
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
				return strings.TrimSpace(rest), true
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
	return "", false
}
