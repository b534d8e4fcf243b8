package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Paired comparison (-pair OLD,NEW). A change of a few percent is smaller
// than what a shared 2-core machine drifts between two bench runs (issue
// 25: the same binary's ratio to git status moved by 0.08 from one run to
// the next), so two orchestrate binaries are run alternately on one
// repository, each pair in turn old-first and new-first, and the mean of
// the per-pair differences (new - old) is printed with its standard error,
// for the wall time and the CPU time (user + system) of each run.

// pairResult is the outcome of comparePair.
type pairResult struct {
	Pairs             int
	OldWall, OldCPU   float64 // means over the pairs, seconds
	DiffWall, ErrWall float64 // mean of new - old, and its standard error
	DiffCPU, ErrCPU   float64
}

// meanDiff returns the mean of b[i]-a[i] and its standard error (0 with
// fewer than two pairs).
func meanDiff(a, b []float64) (mean, stderr float64) {
	n := min(len(a), len(b))
	if n == 0 {
		return 0, 0
	}
	var s, s2 float64
	for i := range n {
		d := b[i] - a[i]
		s += d
		s2 += d * d
	}
	mean = s / float64(n)
	if n < 2 {
		return mean, 0
	}
	v := (s2/float64(n) - mean*mean) * float64(n) / float64(n-1)
	return mean, math.Sqrt(max(v, 0) / float64(n))
}

// pairModes are the cache modes -pair-mode takes.
var pairModes = []string{"off", "first", "warm"}

// comparePair runs the binaries of spec ("OLD,NEW") pairs times each on
// the benchgen repository dir, with the cache off, emptied before each run
// (first) or filled by three runs of each binary first (warm), the command
// being command's (orchestrateArgs; the resume of the newest resumable
// workflow), and prints the result to out.
func comparePair(dir, spec, mode, command string, pairs int, out io.Writer) (*pairResult, error) {
	oldBin, newBin, ok := strings.Cut(spec, ",")
	if !ok || oldBin == "" || newBin == "" {
		return nil, fmt.Errorf("-pair %q: want OLD,NEW", spec)
	}
	switch {
	case pairs < 2:
		return nil, fmt.Errorf("-runs %d: at least 2 pairs", pairs)
	case !strings.Contains(","+strings.Join(pairModes, ",")+",", ","+mode+","):
		return nil, fmt.Errorf("-pair-mode %q: want %s", mode, strings.Join(pairModes, ", "))
	}
	args, err := orchestrateArgs(command)
	if err != nil {
		return nil, err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	bins := []string{oldBin, newBin}
	for i, b := range bins {
		if bins[i], err = filepath.Abs(b); err != nil {
			return nil, err
		}
		if _, err := os.Stat(bins[i]); err != nil {
			return nil, fmt.Errorf("orchestrate binary: %w", err)
		}
	}
	env := []string{"NO_COLOR=1"}
	if now := readNow(dir); now != "" {
		env = append(env, "ORCHESTRATE_NOW="+now)
	}
	if args[0] == "resume" {
		id, err := newestWorkflow(dir, append(env, "ORCHESTRATE_CACHE_DIR=off"), bins[0])
		if err != nil {
			return nil, err
		}
		args = append(args, id)
	}
	caches, err := os.MkdirTemp("", "benchrun-pair-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(caches)
	once := func(k int) (wall, cpu float64, err error) {
		cache := "off"
		if mode != "off" {
			cache = filepath.Join(caches, fmt.Sprint(k))
			if mode == "first" {
				if err := os.RemoveAll(cache); err != nil {
					return 0, 0, err
				}
			}
		}
		r, cpuTime, err := timedCPU(dir, append(env, "ORCHESTRATE_CACHE_DIR="+cache), bins[k], args...)
		if err != nil {
			return 0, 0, err
		}
		if r.exit != 0 && r.exit != 17 {
			return 0, 0, fmt.Errorf("%s exited %d:\n%s", bins[k], r.exit, r.stderr)
		}
		return r.wall.Seconds(), cpuTime.Seconds(), nil
	}
	if mode == "warm" {
		for range 3 {
			for k := range bins {
				if _, _, err := once(k); err != nil {
					return nil, err
				}
			}
		}
	}
	var wall, cpu [2][]float64
	for i := range pairs {
		order := []int{0, 1}
		if i%2 == 1 {
			order = []int{1, 0}
		}
		for _, k := range order {
			w, c, err := once(k)
			if err != nil {
				return nil, err
			}
			wall[k], cpu[k] = append(wall[k], w), append(cpu[k], c)
		}
	}
	res := &pairResult{Pairs: pairs}
	for i := range pairs {
		res.OldWall += wall[0][i] / float64(pairs)
		res.OldCPU += cpu[0][i] / float64(pairs)
	}
	res.DiffWall, res.ErrWall = meanDiff(wall[0], wall[1])
	res.DiffCPU, res.ErrCPU = meanDiff(cpu[0], cpu[1])
	fmt.Fprintf(out, "%s, cache %s, %d pairs: old wall %.3f s, cpu %.3f s | new - old: wall %+.4f ± %.4f s, cpu %+.4f ± %.4f s (mean ± standard error)\n",
		strings.Join(append([]string{"orchestrate"}, args...), " "), mode, pairs, res.OldWall, res.OldCPU, res.DiffWall, res.ErrWall, res.DiffCPU, res.ErrCPU)
	return res, nil
}

// timedCPU is timed that also returns the child's CPU time (user and
// system).
func timedCPU(dir string, env []string, name string, args ...string) (run, time.Duration, error) {
	var cpu time.Duration
	r, err := timedWith(dir, env, name, args, func(ru *syscall.Rusage) {
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	})
	return r, cpu, err
}
