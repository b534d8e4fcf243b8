package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"

	git "github.com/go-git/go-git/v5"
)

// childReport is what the -go-git-status child prints.
type childReport struct {
	StatusSeconds float64 `json:"status_seconds"` // Worktree.Status() alone
	Entries       int     `json:"entries"`        // paths not unmodified
	AllocMiB      float64 `json:"alloc_mib"`      // bytes allocated during Status()
	HeapPeakMiB   float64 `json:"heap_peak_mib"`  // highest live heap seen (sampled every 5 ms)
}

// goGitStatusChild runs go-git's Worktree.Status() on the repository at dir
// — what a tool that asked go-git "what changed?" would pay — and prints the
// figures as JSON. It runs in a process of its own so that its peak RSS can
// be read like the other commands'. Only the benchmark does this: orchestrate
// never calls Worktree.Status() (see docs/ARCHITECTURE.md, validate).
func goGitStatusChild(dir string, w io.Writer) error {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return err
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	stop := make(chan struct{})
	var peak uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // sample the live heap while Status() runs
		defer wg.Done()
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	start := time.Now()
	st, err := wt.Status()
	d := time.Since(start)
	close(stop)
	wg.Wait()
	if err != nil {
		return fmt.Errorf("go-git Status(): %w", err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	n := 0
	for _, s := range st {
		if s.Staging != git.Unmodified || s.Worktree != git.Unmodified {
			n++
		}
	}
	return json.NewEncoder(w).Encode(childReport{
		StatusSeconds: d.Seconds(),
		Entries:       n,
		AllocMiB:      float64(after.TotalAlloc-before.TotalAlloc) / (1 << 20),
		HeapPeakMiB:   float64(peak) / (1 << 20),
	})
}
