package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/cli"
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
// of BENCH_PROFILE_RUNS runs (default 10), and a heap profile next to it.
// BENCH_PROFILE_CMD=status profiles `orchestrate status` instead of
// `resume --dry-run --json --mode preflight` (the stories and workflows
// shapes of benchgen).
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
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < runs; i++ {
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
	t.Logf("CPU profile of %d runs: %s (allocations: %s.heap)", runs, out, out)
}
