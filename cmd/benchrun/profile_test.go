package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/app/cli"
)

// TestProfileOrchestrate profiles orchestrate's benchmarked command in
// process. It only runs when BENCH_PROFILE_DIR names a repository built by
// benchgen:
//
//	BENCH_PROFILE_DIR=/tmp/orchestrate-bench/files-100000 BENCH_PROFILE_RUNS=20 \
//	  go test ./cmd/benchrun -run TestProfileOrchestrate -count=1 -v
//	go tool pprof -top -cum /tmp/orchestrate-cpu.pprof
//
// It writes a CPU profile (BENCH_PROFILE_OUT, default /tmp/orchestrate-cpu.pprof)
// of BENCH_PROFILE_RUNS runs (default 10), and heap profiles next to it:
// the allocations (.heap), the lock contention (.mutex) and what was in use at the largest live heap a
// collection left (.peak; go tool pprof -sample_index=inuse_space).
// BENCH_PROFILE_CMD=status profiles `orchestrate status` instead of
// `resume --dry-run --json --mode preflight` (the stories and workflows
// shapes of benchgen); BENCH_PROFILE_ID names the workflow to resume,
// BENCH_PROFILE_CACHE=off or first profiles without a cache or with an
// empty one each run.
func TestProfileOrchestrate(t *testing.T) {
	dir := os.Getenv("BENCH_PROFILE_DIR")
	if dir == "" {
		t.Skip("BENCH_PROFILE_DIR is not set")
	}
	out := os.Getenv("BENCH_PROFILE_OUT")
	if out == "" {
		out = filepath.Join(os.TempDir(), "orchestrate-cpu.pprof")
	}
	runs := 10
	if v, err := strconv.Atoi(os.Getenv("BENCH_PROFILE_RUNS")); err == nil && v > 0 {
		runs = v
	}
	if m := readNow(dir); m != "" {
		t.Setenv("ORCHESTRATE_NOW", m)
	}
	t.Setenv("NO_COLOR", "1")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmdArgs, err := orchestrateArgs(os.Getenv("BENCH_PROFILE_CMD"))
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--repo", dir}, cmdArgs...)
	if id := os.Getenv("BENCH_PROFILE_ID"); id != "" {
		args = append(args, id) // the workflow to resume (benchrun: the newest)
	}
	// BENCH_PROFILE_CACHE: "warm" (default: the user's cache folder), "off"
	// (ORCHESTRATE_CACHE_DIR=off) or "first" (a folder emptied before
	// each run, as on a fresh clone)
	cacheDir := ""
	switch os.Getenv("BENCH_PROFILE_CACHE") {
	case "off":
		t.Setenv("ORCHESTRATE_CACHE_DIR", "off")
	case "first":
		cacheDir = filepath.Join(t.TempDir(), "cache")
		t.Setenv("ORCHESTRATE_CACHE_DIR", cacheDir)
	}
	// BENCH_PROFILE_MEMRATE: the heap profiles' sampling rate in bytes
	// (runtime.MemProfileRate; 512 KiB by default, too coarse to tell a
	// few megabytes apart at the peak)
	if v, err := strconv.Atoi(os.Getenv("BENCH_PROFILE_MEMRATE")); err == nil && v > 0 {
		old := runtime.MemProfileRate
		runtime.MemProfileRate = v
		defer func() { runtime.MemProfileRate = old }()
	}
	// the lock contention of the runs (.mutex: go tool pprof -top)
	runtime.SetMutexProfileFraction(5)
	defer runtime.SetMutexProfileFraction(0)
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Fatal(err)
	}
	stop := watchPeakHeap(out + ".peak")
	defer stop()
	for i := 0; i < runs; i++ {
		if cacheDir != "" {
			if err := os.RemoveAll(cacheDir); err != nil {
				t.Fatal(err)
			}
		}
		var stdout, stderr bytes.Buffer
		sys := cli.OSSystem()
		sys.IO.Out, sys.IO.ErrOut, sys.IO.OutTTY, sys.IO.ErrTTY = &stdout, &stderr, false, false
		if code := cli.Main(args, sys); code != 0 && code != 17 {
			pprof.StopCPUProfile()
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
	pprof.StopCPUProfile()
	h, err := os.Create(out + ".heap")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	runtime.GC()
	if err := pprof.Lookup("allocs").WriteTo(h, 0); err != nil {
		t.Fatal(err)
	}
	m, err := os.Create(out + ".mutex")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := pprof.Lookup("mutex").WriteTo(m, 0); err != nil {
		t.Fatal(err)
	}
	t.Logf("CPU profile of %d runs: %s (allocations: %s.heap; in use at the largest live heap seen: %s.peak)", runs, out, out, out)
}

// watchPeakHeap writes, every time a garbage collection leaves more live
// heap than any before (looked at every 20 ms), the heap profile (in use
// at that collection) to path; stop ends the watch.
func watchPeakHeap(path string) (stop func()) {
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		var peak uint64
		var lastGC uint32
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.NumGC == lastGC || ms.HeapAlloc <= peak {
				continue
			}
			lastGC, peak = ms.NumGC, ms.HeapAlloc
			if f, err := os.Create(path); err == nil {
				_ = pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
		}
	}()
	return func() { close(done); <-ended }
}
