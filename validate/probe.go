package validate

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/orchestrate-dev/orchestrate/internal/openprobe"
	"github.com/orchestrate-dev/orchestrate/internal/par"
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
	// seen is the Run's record of the path once made (under the Run's mu
	// only; the rest of a probe never changes once made).
	seen *seenPath
	// ready, for a probe the Run shares before it is made (claimed by a
	// validation or the prefetch), is closed once it is made, or once its
	// maker gave up (failed: the waiter probes the path itself); nil for
	// a probe made before it was shared.
	ready  chan struct{}
	failed bool
}

// make makes the claimed probe p with f, then closes its ready; when f
// panics, p is given up (failed: its waiters probe the path themselves)
// and the panic goes on.
func (p *probe) make(f func() probe) {
	made := false
	defer func() {
		p.failed = !made
		close(p.ready)
	}()
	p.set(f())
	made = true
}

// set makes p the probe got, leaving its sharing fields alone (a waiter
// reads ready meanwhile).
func (p *probe) set(got probe) {
	p.clean, p.lstat, p.err, p.fi, p.open = got.clean, got.lstat, got.err, got.fi, got.open
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
	if r := v.in.Run; r != nil && r.root == v.in.Root {
		return probeFn(r.root, r.paths, rel)
	}
	return probePath(v.in.Root, v.checkPathStat, rel)
}

// probeFn is probeWith (a variable for the tests that count the probes).
var probeFn = probeWith

// probeWith is probePath with the Reader's checks, taking its fast way
// (safefile.Reader.ProbeFast: no symlink on the way, an existing path)
// when it answers: the same probe, in fewer system calls.
func probeWith(root string, paths *safefile.Reader, rel string) probe {
	if clean, fi, ok := paths.ProbeFast(rel); ok {
		p := probe{clean: clean, lstat: fi, fi: fi}
		if !fi.Mode().IsRegular() && !fi.IsDir() {
			p.open = fmt.Errorf("%w: %s", safefile.ErrNotFile, clean)
		}
		return p
	}
	return probePath(root, paths.CheckPathStat, rel)
}

// probePath is the probe of rel in the repository at root, check being its
// safety check (safefile.Reader.CheckPathStat).
func probePath(root string, check func(rel string) (string, fs.FileInfo, error), rel string) probe {
	clean, lstat, err := check(rel)
	p := probe{clean: clean, lstat: lstat, err: err}
	if err != nil {
		return p
	}
	full := filepath.Join(root, filepath.FromSlash(clean))
	fi := lstat
	if fi == nil {
		fi, err = os.Stat(full)
	}
	if err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		// A FIFO or device could block or misbehave when opened: never open it.
		err = fmt.Errorf("%w: %s", safefile.ErrNotFile, clean)
	}
	if err == nil {
		err = openprobe.CanOpen(full)
	}
	p.fi, p.open = fi, err
	return p
}

// probeAll probes every path of refs, in parallel when there are many,
// taking the answers the Run gathered already (its prefetch, the other
// validations), and keeping its own for the run's other validations.
// The probes are shared with the Run. A path another validation or the
// prefetch is probing (claimed, not made yet) is waited for, not probed
// again: every distinct path is probed once per run (up to maxKeptProbes),
// however the validations and the prefetch interleave.
func (v *validator) probeAll(refs []workflow.RefFile) []*probe {
	out := make([]*probe, len(refs))
	r := v.in.Run
	if r == nil || r.root != v.in.Root {
		fresh := make([]probe, len(refs))
		parallel(len(refs), func(i int) {
			fresh[i] = v.probePath(refs[i].Path)
			out[i] = &fresh[i]
		})
		return out
	}
	var todo, borrowed []int
	r.probeMu.Lock()
	n := 0
	for _, rf := range refs {
		if _, ok := r.probed[rf.Path]; !ok {
			n++ // at most the paths to claim (a path twice counts twice)
		}
	}
	fresh := make([]probe, n)
	for i, rf := range refs {
		if p, ok := r.probed[rf.Path]; ok {
			out[i] = p // made, or being made by another (or by this one: a repeat)
			if p.ready != nil {
				borrowed = append(borrowed, i)
			}
			continue
		}
		p := &fresh[len(todo)]
		p.ready = make(chan struct{})
		if len(r.probed) < maxKeptProbes {
			// every path is probed once per run: the workflows of a
			// status that share files (200 x 300 references of 4,000
			// files) share the probes, as many as the distinct paths
			r.probed[rf.Path] = p
		}
		out[i] = p
		todo = append(todo, i)
	}
	r.probeMu.Unlock()
	parallel(len(todo), func(k int) {
		i := todo[k]
		out[i].make(func() probe { return v.probePath(refs[i].Path) })
	})
	for _, i := range borrowed {
		p := out[i]
		<-p.ready
		if p.failed {
			own := v.probePath(refs[i].Path)
			out[i] = &own
		}
	}
	return out
}

// maxKeptProbes bounds the probes a Run keeps (a few hundred bytes each):
// past it, a path referenced again is probed again.
const maxKeptProbes = 1 << 15

// prefetch, at the second validation of the run (status validates every
// resumable workflow; resume only one) when there are three or more
// resumable candidates, starts probing on one goroutine, in the
// candidates' order, the referenced paths of every resumable candidate not
// validated yet, for the validations to come: the probes, file system
// calls, overlap the validations' git work. A candidate with more distinct
// paths than the cap is left to its own validation (which probes only the
// capped ones). A validation that comes before its paths are probed probes
// them itself: the same answers, as the Run assumes the tree does not
// change while it is used.
func (r *Run) prefetch(id string, limit int) {
	r.probeMu.Lock()
	defer r.probeMu.Unlock()
	r.validations++
	r.validated[id] = true
	if r.validations != 2 || r.resumable() < 3 {
		return
	}
	var todo []*workflow.Candidate
	for _, c := range r.order {
		if c.Resumable && !r.validated[c.ID] {
			todo = append(todo, c)
		}
	}
	done := make(chan struct{})
	r.prefetchDone = done
	go func() {
		defer close(done)
		var claimed []*probe // claimed by the prefetch, not made yet
		defer func() {
			// a probe that panics here panics again, as before, when the
			// validation that needs it probes the path itself: the
			// paths claimed and not probed are given up
			// (failed, for their waiters to probe them themselves)
			_ = recover()
			for _, q := range claimed {
				q.failed = true
				close(q.ready)
			}
		}()
		seen := map[string]bool{}
		var paths []string
		for _, c := range todo {
			if len(c.Files) > limit { // else its distinct paths are within the cap
				distinct := make(map[string]bool, len(c.Files))
				for _, rf := range c.Files {
					distinct[rf.Path] = true
				}
				if len(distinct) > limit {
					continue
				}
			}
			paths = paths[:0]
			for _, rf := range c.Files {
				if !seen[rf.Path] {
					seen[rf.Path] = true
					paths = append(paths, rf.Path)
				}
			}
			// claim the paths nobody probed or is probing, in a new array
			// for each candidate: the Run keeps pointers into it
			r.probeMu.Lock()
			n := 0
			for _, p := range paths {
				if _, ok := r.probed[p]; !ok {
					n++
				}
			}
			got := make([]probe, n)
			mine := make([]string, 0, n)
			for _, p := range paths {
				if _, ok := r.probed[p]; ok || len(r.probed) >= maxKeptProbes {
					continue // probed, being probed, or not to be kept
				}
				q := &got[len(mine)]
				q.ready = make(chan struct{})
				r.probed[p] = q
				claimed = append(claimed, q)
				mine = append(mine, p)
			}
			r.prefetched += len(paths)
			r.probeMu.Unlock()
			for k, p := range mine {
				got[k].set(probeFn(r.root, r.paths, p))
				claimed = claimed[1:]
				close(got[k].ready)
			}
		}
	}()
}

// waitPrefetch returns once the Run's prefetch, if one started, has ended.
func (r *Run) waitPrefetch() {
	r.probeMu.Lock()
	done := r.prefetchDone
	r.probeMu.Unlock()
	if done != nil {
		<-done
	}
}

// parallel calls fn(0) … fn(n-1), on up to maxProbeWorkers goroutines
// (no more than the processors) when n is at least minParallelProbes, each
// taking probeChunk indexes at a time; it returns when every call has.
func parallel(n int, fn func(i int)) {
	par.For(n, par.Options{Workers: maxProbeWorkers, Chunk: probeChunk, Min: minParallelProbes}, fn)
}
