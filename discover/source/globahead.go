package source

import (
	"slices"
	"strings"
	"sync"
)

// globAhead holds the globs a scan expands ahead of the sources that use
// them (PrefetchGlobs), by key (globKey).
type globAhead struct {
	mu    sync.Mutex
	calls map[string]*globCall
	done  chan struct{} // closed when the prefetching goroutine has ended
}

// globCall is one glob expanded ahead: ready closes once out is set.
type globCall struct {
	ready chan struct{}
	out   []string
}

func globKey(patterns []string, dirs bool) string {
	k := strings.Join(patterns, "\x00")
	if dirs {
		return "d\x00" + k
	}
	return "f\x00" + k
}

// PrefetchGlobs starts expanding the state-file sources' globs of the
// configuration (epic, workflow state, progress, work session, tasks, QA
// loop, spec folders), one after the other, on a goroutine: discover's Scan
// calls it before the story source runs, so listing those folders overlaps
// with reading the stories, and a glob two sources use (the workflow-state
// files: the epic and workflow-state sources) is expanded once. Until
// EndPrefetch, Glob of one of these pattern lists waits for the prefetched
// answer instead of walking again; the answer is what Glob would have
// returned when the walk ran.
func (r *Repo) PrefetchGlobs() {
	s := r.Config.Sources
	type job struct {
		patterns []string
		dirs     bool
	}
	jobs := []job{{s.Spec, true}, {s.WorkflowState, false}, {s.Epic, false}, {s.Progress, false},
		{s.WorkSession, false}, {s.Tasks, false}, {s.QALoop, false}, {s.QALoopIndex, false}}
	a := &globAhead{calls: map[string]*globCall{}, done: make(chan struct{})}
	var todo []job
	var calls []*globCall
	for _, j := range jobs {
		k := globKey(j.patterns, j.dirs)
		if len(j.patterns) == 0 || a.calls[k] != nil {
			continue
		}
		c := &globCall{ready: make(chan struct{})}
		a.calls[k] = c
		todo = append(todo, j)
		calls = append(calls, c)
	}
	r.ahead = a
	go func() {
		defer close(a.done)
		for i, j := range todo {
			calls[i].out = r.glob(j.patterns, j.dirs)
			close(calls[i].ready)
		}
	}()
}

// PrefetchGlobs and EndPrefetch are called by the goroutine that runs the
// sources, before and after them; Glob may be called from any goroutine in
// between.

// EndPrefetch waits for the prefetching goroutine (PrefetchGlobs) to end and
// forgets its answers: a later Glob walks the folders as they are then.
func (r *Repo) EndPrefetch() {
	a := r.ahead
	r.ahead = nil
	if a != nil {
		<-a.done
	}
}

// prefetched returns the prefetched answer of a glob (a copy), waiting for
// it; ok is false when it was not prefetched.
func (r *Repo) prefetched(patterns []string, dirs bool) ([]string, bool) {
	a := r.ahead
	if a == nil {
		return nil, false
	}
	a.mu.Lock()
	c := a.calls[globKey(patterns, dirs)]
	a.mu.Unlock()
	if c == nil {
		return nil, false
	}
	<-c.ready
	return slices.Clone(c.out), true
}
