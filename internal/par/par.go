// Package par runs independent calls on a few goroutines: the per-file
// work of a scan or a validation (stats, opens, decodes) that is mostly
// system calls, where two cores halve the wall time.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Options bound a For: at most Workers goroutines (and no more than the
// processors), each claiming Chunk consecutive indexes at a time; fewer
// than Min calls run on the caller's goroutine alone.
type Options struct {
	Workers, Chunk, Min int
}

// For calls fn(0) … fn(n-1) and returns when every call has. The caller's
// goroutine is one of the workers. Each call must touch only what belongs
// to its index.
func For(n int, o Options, fn func(i int)) {
	chunk := max(o.Chunk, 1)
	workers := min(runtime.GOMAXPROCS(0), max(o.Workers, 1), (n+chunk-1)/chunk)
	if n < o.Min || workers < 2 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	work := func() {
		for {
			end := int(next.Add(int64(chunk)))
			start := end - chunk
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
	work()
	wg.Wait()
}
