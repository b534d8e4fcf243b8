package validate

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// probe is what the file system said of one referenced path, as written:
// the safety check's answer and, for a safe path, the stat and open check
// integrity judges it by. Probes are gathered before integrity's
// sequential pass, on a few workers when there are many paths, so the
// findings, their order and the reports are the ones of one path after the
// other.
type probe struct {
	clean string      // the cleaned path; "" when unsafe
	lstat fs.FileInfo // the safety check's lstat when it stands for a stat
	err   error       // the safety check's error (unsafe path)
	fi    fs.FileInfo // the stat judged (lstat, else a stat); nil when it failed
	open  error       // the stat's, not-a-file or open check's error
}

// Probing on workers: below minParallelProbes paths one goroutine is as
// fast; probeChunk paths are taken at a time (neighbours share folders,
// whose checks one worker then makes and the next finds cached).
var (
	minParallelProbes = 64
	maxProbeWorkers   = 4
	probeChunk        = 32
)

// probePath checks rel as integrity does: safe, then stat'ed (the safety
// check's lstat when it stands for one) and checked to open.
func (v *validator) probePath(rel string) probe {
	clean, lstat, err := v.checkPathStat(rel)
	p := probe{clean: clean, lstat: lstat, err: err}
	if err != nil {
		return p
	}
	full := filepath.Join(v.in.Root, filepath.FromSlash(clean))
	fi := lstat
	if fi == nil {
		fi, err = os.Stat(full)
	}
	if err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		// A FIFO or device could block or misbehave when opened: never open it.
		err = fmt.Errorf("%w: %s", safefile.ErrNotFile, clean)
	}
	if err == nil {
		err = canOpen(full)
	}
	p.fi, p.open = fi, err
	return p
}

// probeAll probes every path of refs, in parallel when there are many,
// taking the answers the Run gathered already.
func (v *validator) probeAll(refs []workflow.RefFile) []probe {
	out := make([]probe, len(refs))
	var todo []int
	r := v.in.Run
	if r != nil && r.root == v.in.Root {
		r.prefetch(v)
		r.probeMu.Lock()
		for i, rf := range refs {
			if p, ok := r.probed[rf.Path]; ok {
				out[i] = p
			} else {
				todo = append(todo, i)
			}
		}
		r.probeMu.Unlock()
	} else {
		todo = make([]int, len(refs))
		for i := range todo {
			todo[i] = i
		}
	}
	parallel(len(todo), func(k int) {
		i := todo[k]
		out[i] = v.probePath(refs[i].Path)
	})
	return out
}

// prefetch, from the second validation of the run on (status validates
// every resumable workflow; resume only one), probes at once, on a few
// workers, the referenced paths of every resumable candidate not probed
// yet, for the validations to come. A candidate with more distinct paths
// than the cap is left to its own validation (which probes only the
// capped ones).
func (r *Run) prefetch(v *validator) {
	r.probeMu.Lock()
	defer r.probeMu.Unlock()
	r.validations++
	if r.validations != 2 || r.resumable() < 3 {
		return
	}
	seen := map[string]bool{}
	var paths []string
	for _, c := range r.sorted {
		if !c.Resumable {
			continue
		}
		distinct := map[string]bool{}
		for _, rf := range c.Files {
			distinct[rf.Path] = true
		}
		if len(distinct) > v.cfg.MaxRefFiles {
			continue
		}
		for _, rf := range c.Files {
			if !seen[rf.Path] {
				seen[rf.Path] = true
				paths = append(paths, rf.Path)
			}
		}
	}
	got := make([]probe, len(paths))
	parallel(len(paths), func(i int) { got[i] = v.probePath(paths[i]) })
	for i, p := range paths {
		r.probed[p] = got[i]
	}
	r.prefetched += len(paths)
}

// parallel calls fn(0) … fn(n-1), on up to maxProbeWorkers goroutines
// (no more than the processors) when n is at least minParallelProbes, each
// taking probeChunk indexes at a time; it returns when every call has.
func parallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), maxProbeWorkers, (n+probeChunk-1)/probeChunk)
	if n < minParallelProbes || workers < 2 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	work := func() {
		for {
			end := int(next.Add(int64(probeChunk)))
			start := end - probeChunk
			if start >= n {
				return
			}
			for i := start; i < min(end, n); i++ {
				fn(i)
			}
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work() // the caller is a worker too
	wg.Wait()
}
