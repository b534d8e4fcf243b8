// Package gitmemo answers each git question of a run of validations once:
// validate's Git behind a Memo that keeps the interruption commit of a
// recorded hash and time, the state of a path against a base commit, the
// commits since a base that touched a path, the commit that removed a path,
// and asks the questions every resumable workflow of the run shares in one
// go (the index read once, one history walk, one batch of last changes).
// What it needs of the run is the small Run interface; validate owns the
// run and hands a Memo its Git.
package gitmemo

import (
	"io/fs"
	"sync"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Git is what validation needs of git; *gitrepo.Repo satisfies it.
type Git interface {
	// Shallow reports whether the repository is a shallow clone.
	Shallow() bool
	// InterruptionCommit returns the recorded commit when it exists, else the
	// newest first-parent commit at or before at; gitrepo.ErrNoCommit when
	// there is none.
	InterruptionCommit(recorded string, at time.Time) (gitrepo.Commit, error)
	// Compare compares paths between base, HEAD and the working tree.
	Compare(base gitrepo.Commit, paths []string) ([]gitrepo.PathState, error)
	// CommitsTouching returns, per path, up to limit first-parent commits
	// since base that changed it, newest first.
	CommitsTouching(base gitrepo.Commit, paths []string, limit int) (map[string][]gitrepo.Commit, error)
	// ReadAt returns the content of path in commit c.
	ReadAt(c gitrepo.Commit, path string) ([]byte, error)
}

// HistoryCutter is implemented by a Git (*gitrepo.Repo does) that can tell
// where its history is cut short (see gitrepo.Repo.HistoryCut) and whether
// it is a partial clone (gitrepo.Repo.Promisor).
type HistoryCutter interface {
	HistoryCut(rev string) bool
	Promisor() string
}

// Remover is implemented by a Git (*gitrepo.Repo does) that can name the
// commit that removed a path; validation uses it to say why a referenced
// file is missing.
type Remover interface {
	Removal(path string) (gitrepo.Removal, bool)
}

// OwnershipGit is implemented by a Git (*gitrepo.Repo does) that can tell
// which files a commit changed and who last changed a path at a commit:
// what the progress rule needs to tell the workflow's own commits from
// someone else's. Without it no commit is the workflow's own.
type OwnershipGit interface {
	// ChangedPaths is gitrepo.Repo.ChangedPaths.
	ChangedPaths(c gitrepo.Commit, max int) ([]string, bool, error)
	// LastChangeAt is gitrepo.Repo.LastChangeAt.
	LastChangeAt(c gitrepo.Commit, paths []string, maxCommits int) map[string]gitrepo.Commit
}

// Run is what a Memo needs of the run of validations it answers for
// (validate.Run): its candidates and what its integrity checks learnt.
// The candidates must not change while the Memo is used.
type Run interface {
	// Candidates is every candidate of the run, in the order the run
	// validates them.
	Candidates() []*workflow.Candidate
	// Resumable is how many of the candidates are resumable (each may be
	// validated).
	Resumable() int
	// RefPaths is every path the resumable candidates reference, cleaned
	// lexically, each once: which index entries to read.
	RefPaths() []string
	// Lstat is the lstat an integrity check of the run made of the file at
	// the cleaned path clean, if any (gitrepo.CompareOptions.Lstat), and
	// forgets it.
	Lstat(clean string) (fs.FileInfo, bool)
}

// Memo is a Git that answers each question once per Run: the
// interruption commit of a recorded hash and time, the state of a path
// against a base commit, the commits since a base that touched a path, and
// the commit that removed a path. Validations of one command ask the same
// questions for the files and stories their workflows share. ReadAt is
// asked each time (old story contents are read once per validation anyway),
// with c.mu held like every question to the underlying Git but Compare's
// (see compare).
type Memo struct {
	Git
	mu      sync.Mutex
	shallow *bool
	bases   map[baseKey]baseAnswer
	// states are Compare's answers by base commit and path, for the bases
	// several validations ask about; a base's are dropped once each of its
	// validations has asked (statesLeft counts those still to ask).
	states     map[string]map[string]gitrepo.PathState
	statesLeft map[string]int
	// flying is the paths of those bases being compared without c.mu,
	// by base and path (see compareShared).
	flying   map[string]map[string]*flight
	commits  map[pathKey][]gitrepo.Commit // nil: no commit touched the path
	removals map[string]removalAnswer
	cuts     map[string]bool           // HistoryCut's answers by rev
	changed  map[pathKey]changedAnswer // ChangedPaths' answers by commit and bound
	promisor *string
	// last is what prefetchLast learnt: who last changed each record path
	// at each interruption commit (see lastChangeAt); lastTried is set
	// once it was asked.
	last      map[pathKey]lastAnswer
	lastTried bool
	// lastReady, once the batch is asked, is closed when c.last holds its
	// answers (the first asker gathers the paths without c.mu)
	lastReady chan struct{}
	// baseUses counts the run's resumable candidates by interruption
	// commit (see countBases); nil when not counted.
	baseUses     map[string]int
	basesCounted bool

	run      Run // the run's candidates and lstats; nil when there is none
	compares int // Compare calls that asked the underlying Git
	compared int // and the paths they asked about
	idx      *gitrepo.Index
	idxDone  bool
	// idxReady, when not nil, is closed once the index read at the first
	// Compare (see indexEarly) is in idxRead.
	idxReady chan struct{}
	idxRead  *gitrepo.Index
	// hist is the run's one walk for every resumable candidate (see
	// history); histTried is set once it was tried.
	hist      *gitrepo.History
	histTried bool
}

// optionsComparer is a Git (*gitrepo.Repo) that can take what the run
// knows already: the integrity checks' lstats, and the index read once for
// every workflow's Compare.
type optionsComparer interface {
	CompareWith(base gitrepo.Commit, paths []string, o gitrepo.CompareOptions) ([]gitrepo.PathState, error)
	IndexFor(paths []string, expected int) *gitrepo.Index
}

type baseKey struct {
	recorded string
	at       int64
	zero     bool
}

type baseAnswer struct {
	c   gitrepo.Commit
	err error
}

// pathKey is a path against a base commit (and, for commits, a limit).
type pathKey struct {
	base, path string
	limit      int
}

type removalAnswer struct {
	r     gitrepo.Removal
	found bool
}

// New returns g answered through a Memo for run (nil: a Memo that asks
// nothing ahead, knowing no candidate).
func New(g Git, run Run) *Memo {
	return &Memo{Git: g, run: run, bases: map[baseKey]baseAnswer{}, states: map[string]map[string]gitrepo.PathState{},
		commits: map[pathKey][]gitrepo.Commit{}, removals: map[string]removalAnswer{}}
}

// Walked is the run's History once walked (see history), nil before or
// when there is none.
func (c *Memo) Walked() *gitrepo.History {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hist
}

// Shallow is the underlying answer, asked once.
func (c *Memo) Shallow() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shallow == nil {
		s := c.Git.Shallow()
		c.shallow = &s
	}
	return *c.shallow
}

// InterruptionCommit is the underlying answer, asked once per recorded hash
// and time.
func (c *Memo) InterruptionCommit(recorded string, at time.Time) (gitrepo.Commit, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.interruptionCommit(recorded, at)
}

// Compare asks the underlying Git only about the paths not compared with
// base yet, and returns the states in the order of paths. Errors are not
// remembered.
//
// The underlying *gitrepo.Repo answers without c.mu held (see compare), so
// that the Compares of two validations run side by side; a path of a shared
// base that another validation is asking about at the moment is waited for
// (see flight), not asked again. The answers do not depend on who asks
// first: each state is the Repo's answer for its base and path.
func (c *Memo) Compare(base gitrepo.Commit, paths []string) ([]gitrepo.PathState, error) {
	if base.Hash == "" {
		return c.Git.Compare(base, paths)
	}
	c.mu.Lock()
	if c.countBases(); c.baseUses != nil && c.baseUses[base.Hash] <= 1 {
		// no other workflow of the run asks about this base: its answers
		// are not kept (200 workflows of 300 files, each its own base,
		// kept 60,000 states to the end of the run), and the answer, one
		// state per path in the order of paths, is Compare's own
		c.mu.Unlock()
		return c.compare(base, paths)
	}
	defer c.mu.Unlock()
	return c.compareShared(base, paths)
}

// flight is a Compare of some paths of a shared base being asked without
// c.mu: done is closed once its answers are in c.states (or it failed:
// the paths are then asked again by whoever needs them).
type flight struct {
	done chan struct{}
}

// compareShared is Compare for a base several validations ask about: the
// answers are kept in c.states until each of them has asked. c.mu is held,
// and released while the underlying Git is asked or another validation's
// flight is waited for.
func (c *Memo) compareShared(base gitrepo.Commit, paths []string) ([]gitrepo.PathState, error) {
	for {
		states := c.statesOf(base.Hash)
		var missing []string
		var mine *flight
		var waits []*flight
		for _, p := range paths {
			if _, ok := states[p]; ok {
				continue
			}
			if f := c.flying[base.Hash][p]; f != nil {
				if f != mine {
					waits = append(waits, f)
				}
				continue
			}
			if mine == nil {
				mine = &flight{done: make(chan struct{})}
			}
			c.fly(base.Hash, p, mine)
			missing = append(missing, p)
		}
		if len(missing) == 0 && len(waits) == 0 {
			return c.sharedAnswer(base.Hash, states, paths), nil
		}
		if mine != nil {
			c.mu.Unlock()
			got, err := c.compare(base, missing)
			c.mu.Lock()
			for _, p := range missing {
				delete(c.flying[base.Hash], p)
			}
			if len(c.flying[base.Hash]) == 0 {
				delete(c.flying, base.Hash)
			}
			if err == nil {
				states := c.statesOf(base.Hash)
				for _, ps := range got {
					states[ps.Path] = ps
				}
			}
			close(mine.done) // before waiting for others: two validations may wait for each other's
			if err != nil {
				return nil, err
			}
		}
		if len(waits) > 0 {
			c.mu.Unlock()
			for _, f := range waits {
				<-f.done
			}
			c.mu.Lock()
		}
	}
}

// statesOf returns the states kept for base, made when there are none.
// c.mu is held.
func (c *Memo) statesOf(base string) map[string]gitrepo.PathState {
	states := c.states[base]
	if states == nil {
		states = map[string]gitrepo.PathState{}
		c.states[base] = states
		if c.statesLeft == nil {
			c.statesLeft = map[string]int{}
		}
		c.statesLeft[base] = c.baseUses[base]
	}
	return states
}

// fly records that f asks about path p of base. c.mu is held.
func (c *Memo) fly(base, p string, f *flight) {
	if c.flying == nil {
		c.flying = map[string]map[string]*flight{}
	}
	m := c.flying[base]
	if m == nil {
		m = map[string]*flight{}
		c.flying[base] = m
	}
	m[p] = f
}

// sharedAnswer is the states of paths kept for base, in the order of
// paths, counting the question: after the last of the base's validations,
// its states are dropped. c.mu is held.
func (c *Memo) sharedAnswer(base string, states map[string]gitrepo.PathState, paths []string) []gitrepo.PathState {
	out := make([]gitrepo.PathState, 0, len(paths))
	for _, p := range paths {
		if ps, ok := states[p]; ok {
			out = append(out, ps)
		}
	}
	if c.baseUses != nil {
		// each validation asks once (gitDrift): after the last of this
		// base's, its answers are not kept to the end of the run (a later
		// question would be asked again, with the same answer)
		if c.statesLeft[base]--; c.statesLeft[base] <= 0 && len(c.flying[base]) == 0 {
			delete(c.states, base)
			delete(c.statesLeft, base)
		}
	}
	return out
}

// countBases counts, once, how many of the run's resumable candidates
// have each interruption commit (baseUses), when the run validates
// several with a Git that takes the run's index (*gitrepo.Repo); the
// answers are those the validations ask for anyway. c.mu is held.
func (c *Memo) countBases() {
	if c.basesCounted || c.run == nil {
		return
	}
	c.basesCounted = true
	if _, ok := c.Git.(optionsComparer); !ok || c.run.Resumable() < 2 {
		return
	}
	uses := map[string]int{}
	for _, cand := range c.run.Candidates() {
		if !cand.Resumable || (cand.UpdatedAt.IsZero() && cand.Commit == "") {
			continue
		}
		if base, err := c.interruptionCommit(cand.Commit, cand.UpdatedAt); err == nil && base.Hash != "" {
			uses[base.Hash]++
		}
	}
	c.baseUses = uses
}

// compare asks the underlying Git, with what the run knows when it can
// take it. From the second call on (a second workflow, with its own base
// commit), the index is read once for every path the run's workflows
// reference instead of once per call — when the calls to come, estimated
// from those so far and the number of resumable workflows, compare enough
// paths for it to pay. A single call (resume validates one workflow) reads
// it as Compare always did.
//
// c.mu is not held: compare takes it for the run's bookkeeping and the
// run's index and History, and a *gitrepo.Repo's CompareWith takes it
// (CompareOptions.Serial) only while it reads what the Repo keeps between
// calls; every other question to the Repo is asked with c.mu held. Any
// other Git is asked with c.mu held.
func (c *Memo) compare(base gitrepo.Commit, paths []string) ([]gitrepo.PathState, error) {
	c.mu.Lock()
	oc, ok := c.Git.(optionsComparer)
	if !ok || c.run == nil {
		defer c.mu.Unlock()
		return c.Git.Compare(base, paths)
	}
	c.compares++
	c.compared += len(paths)
	if c.compares == 1 {
		c.indexEarly(c.compared * c.run.Resumable())
	}
	if c.compares > 1 && !c.idxDone {
		c.idxDone = true
		c.idx = oc.IndexFor(c.run.RefPaths(), c.compared/c.compares*c.run.Resumable())
	}
	hist := c.history()
	if ready := c.idxReady; ready != nil {
		select {
		case <-ready:
		default:
			c.mu.Unlock()
			<-ready
			c.mu.Lock()
		}
		c.idx = c.idxRead
	}
	o := gitrepo.CompareOptions{Lstat: c.run.Lstat, Index: c.idx, History: hist, Serial: &c.mu}
	c.mu.Unlock()
	return oc.CompareWith(base, paths, o)
}

// indexLater is a Git (*gitrepo.Repo is) that can read the index on
// another goroutine (see gitrepo.Repo.IndexLater).
type indexLater interface {
	IndexLater() func(paths []string, expected int) *gitrepo.Index
}

// indexEarly starts, at the run's first Compare (or Prepare), reading the
// index for every path the run's resumable candidates reference on a
// goroutine of its own, while the run's History is walked (see history):
// IndexFor's answer, ready in c.idxRead once c.idxReady is closed, for the
// run's Compares. expected is the estimate of the paths to compare (the
// first Compare's paths times the resumable candidates; IndexFor's, from
// the second call on, is the mean of the calls so far); it decides only
// whether the index is read. Nothing is started for a Git that cannot read
// it apart, or with fewer than two resumable candidates. c.mu is held.
func (c *Memo) indexEarly(expected int) {
	il, ok := c.Git.(indexLater)
	if c.idxDone || !ok || c.run.Resumable() < 2 {
		return
	}
	c.idxDone = true
	read, run := il.IndexLater(), c.run
	ready := make(chan struct{})
	c.idxReady = ready
	go func() {
		defer close(ready)
		c.idxRead = read(run.RefPaths(), expected) // the run's candidates are read only
	}()
}

// CommitsTouching asks the underlying Git only about the paths not asked
// about with base and limit yet. A returned list may be shared with other
// callers: it is read only, and its capacity is its length (an append
// copies it). Errors are not remembered.
func (c *Memo) CommitsTouching(base gitrepo.Commit, paths []string, limit int) (map[string][]gitrepo.Commit, error) {
	if base.Hash == "" {
		return c.Git.CommitsTouching(base, paths, limit)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.countBases(); c.baseUses != nil && c.baseUses[base.Hash] <= 1 {
		return c.commitsOnce(base, paths, limit) // no other workflow asks: nothing kept
	}
	var missing []string
	for _, p := range paths {
		if _, ok := c.commits[pathKey{base.Hash, p, limit}]; !ok {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		known, rest := c.commitsFromHistory(base, missing, limit)
		got := map[string][]gitrepo.Commit{}
		if len(rest) > 0 {
			var err error
			if got, err = c.Git.CommitsTouching(base, rest, limit); err != nil {
				return nil, err
			}
		}
		for _, p := range missing {
			cs, ok := known[p]
			if !ok {
				cs = got[p]
			}
			c.commits[pathKey{base.Hash, p, limit}] = cs
		}
	}
	out := make(map[string][]gitrepo.Commit, len(paths))
	for _, p := range paths {
		if cs := c.commits[pathKey{base.Hash, p, limit}]; len(cs) > 0 {
			out[p] = cs[:len(cs):len(cs)]
		}
	}
	return out, nil
}

// ReadAt is the underlying answer, asked with c.mu held: validations run
// concurrently and a *gitrepo.Repo is not safe for concurrent use (its
// look-up of the commit's tree reads and fills the Repo's commit links).
//
// Once the run's History is walked, a file it knows at a commit it covers
// (a story or a referenced file at a workflow's interruption commit) is
// read by its entry there (gitrepo.History.ReadAt: the same answer),
// without a look-up by path in the commit's tree, and without c.mu: a
// walked History is only read, and its read of the blob goes through what
// is safe for concurrent use (the pack reader, the object table, the
// verifier), so 1,000 workflows' stories are read side by side.
func (c *Memo) ReadAt(cm gitrepo.Commit, path string) ([]byte, error) {
	c.mu.Lock()
	h := c.hist
	c.mu.Unlock()
	if h != nil {
		if data, ok, err := h.ReadAt(cm, path); ok {
			return data, err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.Git.ReadAt(cm, path)
}

// Removal is the underlying Git's answer (when it is a Remover), asked once
// per path.
func (c *Memo) Removal(path string) (gitrepo.Removal, bool) {
	rm, ok := c.Git.(Remover)
	if !ok {
		return gitrepo.Removal{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.removals[path]; ok {
		return a.r, a.found
	}
	r, found := rm.Removal(path)
	c.removals[path] = removalAnswer{r, found}
	return r, found
}

// HistoryCut is the underlying Git's answer (when it is a HistoryCutter),
// asked once per rev.
func (c *Memo) HistoryCut(rev string) bool {
	hc, ok := c.Git.(HistoryCutter)
	if !ok {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.cuts[rev]; ok {
		return a
	}
	if c.cuts == nil {
		c.cuts = map[string]bool{}
	}
	a := hc.HistoryCut(rev)
	c.cuts[rev] = a
	return a
}

// Promisor is the underlying Git's answer (when it is a HistoryCutter),
// asked once.
func (c *Memo) Promisor() string {
	hc, ok := c.Git.(HistoryCutter)
	if !ok {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.promisor == nil {
		p := hc.Promisor()
		c.promisor = &p
	}
	return *c.promisor
}

// changedAnswer is one ChangedPaths answer.
type changedAnswer struct {
	paths []string
	more  bool
	err   error
}

// ChangedPaths is the underlying Git's answer (when it is an
// OwnershipGit), asked once per commit and bound.
func (c *Memo) ChangedPaths(cm gitrepo.Commit, max int) ([]string, bool, error) {
	og, ok := c.Git.(OwnershipGit)
	if !ok {
		return nil, false, errNoOwnership
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.changedFull(og, cm, max)
	return a.paths, a.more, a.err
}

// firstChanger is a Git (*gitrepo.Repo is) that can list the first files
// a commit changed without the rest (see gitrepo.Repo.ChangedPathsFirst).
type firstChanger interface {
	ChangedPathsFirst(c gitrepo.Commit, max, first int) (paths []string, more, full bool, err error)
}

// ChangedPathsFirst is gitrepo.Repo.ChangedPathsFirst: the first files
// commit cm changed (ChangedPaths(cm, first)), full when that is
// ChangedPaths(cm, max)'s answer as well, else the first paths of that
// answer, more following. Each answer is asked once per commit and
// bounds, and a full one is ChangedPaths(cm, max)'s for the run. A Git
// that cannot list the first files alone is asked ChangedPaths(cm, max).
func (c *Memo) ChangedPathsFirst(cm gitrepo.Commit, max, first int) (paths []string, more, full bool, err error) {
	og, ok := c.Git.(OwnershipGit)
	if !ok {
		return nil, false, true, errNoOwnership
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.changed[pathKey{base: cm.Hash, limit: max}]; ok {
		return a.paths, a.more, true, a.err
	}
	fc, ok := c.Git.(firstChanger)
	if !ok {
		a := c.changedFull(og, cm, max)
		return a.paths, a.more, true, a.err
	}
	k := pathKey{base: cm.Hash, path: "\x00first", limit: first} // no path is "\x00first"
	if a, ok := c.changed[k]; ok {
		return a.paths, a.more, false, a.err
	}
	if c.changed == nil {
		c.changed = map[pathKey]changedAnswer{}
	}
	paths, more, full, err = fc.ChangedPathsFirst(cm, max, first)
	if full {
		c.changed[pathKey{base: cm.Hash, limit: max}] = changedAnswer{paths, more, err}
	} else {
		c.changed[k] = changedAnswer{paths, more, err}
	}
	return paths, more, full, err
}

// changedFull is ChangedPaths(cm, max), asked once; a Git that lists the
// first files alone is asked through ChangedPathsFirst (first >= max: the
// full answer, replacing in its table a cut one of the run). c.mu is held.
func (c *Memo) changedFull(og OwnershipGit, cm gitrepo.Commit, max int) changedAnswer {
	k := pathKey{base: cm.Hash, limit: max}
	if a, ok := c.changed[k]; ok {
		return a
	}
	if c.changed == nil {
		c.changed = map[pathKey]changedAnswer{}
	}
	var a changedAnswer
	if fc, ok := c.Git.(firstChanger); ok {
		a.paths, a.more, _, a.err = fc.ChangedPathsFirst(cm, max, max)
	} else {
		a.paths, a.more, a.err = og.ChangedPaths(cm, max)
	}
	c.changed[k] = a
	return a
}

// LastChangeAt is the underlying Git's answer (when it is an
// OwnershipGit), asked through the cache's lock.
func (c *Memo) LastChangeAt(cm gitrepo.Commit, paths []string, maxCommits int) map[string]gitrepo.Commit {
	og, ok := c.Git.(OwnershipGit)
	if !ok {
		return map[string]gitrepo.Commit{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return og.LastChangeAt(cm, paths, maxCommits)
}
