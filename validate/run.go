package validate

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/validate/gitmemo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Run is what the validations of one command share (status validates every
// resumable workflow): every discovered candidate sorted by id once, for
// the other-workflow conflicts, and one path checker that resolves each
// folder once for all the referenced files below it, and the answers of
// the first Git it is given (the path states against a base commit, the
// commits that touched a path, …) so each is looked up once per run. Make one per command
// with NewRun and pass it in every Input; like safefile.Reader, it assumes
// the tree does not change while it is used. A Run is safe for concurrent
// use.
type Run struct {
	root string
	// sorted is every candidate, sorted by id (stable): pointers into the
	// caller's slice, which a copy of would cost ~550 bytes a candidate
	// (11 MB at 20,000 stories).
	sorted []*workflow.Candidate
	paths  *safefile.Reader
	// rivals is what otherWorkflows weighs of sorted, listed once.
	rivalsOnce sync.Once
	rivals     []rival
	// byStory indexes rivals by normalised story id (see rivalsSharing),
	// made with rivals.
	byStory map[string][]int

	gitOnce  sync.Once
	gitFor   Git           // the Git whose answers gitCache keeps
	gitCache *gitmemo.Memo // see git

	// seen is what the integrity checks learnt of the cleaned paths they
	// checked, for the later questions about the same paths (Compare's
	// lstat, the plan's existence checks); see record.
	mu   sync.Mutex
	seen map[string]*seenPath

	// order is every candidate in the caller's order (the order status
	// validates them in), for prefetch.
	order []*workflow.Candidate
	// probed is what the file system said of the paths the run's
	// candidates reference, as written, gathered by prefetch for the
	// validations to come and by each validation, kept for the run (up to
	// maxKeptProbes: one per distinct path); validations counts the
	// validations that asked (validated their ids), prefetched the paths
	// probed ahead, prefetchDone is closed when the prefetch has ended.
	probeMu      sync.Mutex
	probed       map[string]*probe // shared, never changed once made
	validations  int
	validated    map[string]bool
	prefetched   int
	prefetchDone chan struct{}

	// clauses are the "changed by ..." texts the run's validations made
	// (see validator.clause), by what they say: one string for the 200
	// workflows whose files the same commits changed, made once.
	clauseMu sync.Mutex
	clauses  map[string][2]string // the clause and the report's detail

	// atBase is what the validations read of files at base commits (a
	// story's sections, a rewrite), once per run.
	atBase atBase
}

// seenPath is what an integrity check found at a path: it exists (a
// file or folder that could be opened) and, when the check made one that
// stands for it, its lstat.
type seenPath struct {
	exists bool
	lstat  fs.FileInfo
}

// NewRun returns the shared state of the validations of candidates (every
// discovered one, the validated ones included) in the repository at root.
//
// The Run keeps pointers into candidates: the caller must not change them
// while the Run is used.
func NewRun(root string, candidates []workflow.Candidate) *Run {
	sorted := sortedByID(candidates)
	order := make([]*workflow.Candidate, len(candidates))
	for i := range candidates {
		order[i] = &candidates[i]
	}
	return &Run{root: root, sorted: sorted, order: order, paths: safefile.NewReader(root), seen: map[string]*seenPath{},
		probed: map[string]*probe{}, validated: map[string]bool{}}
}

// Exists reports whether a validation of this run found a file or folder
// at the cleaned, safe repository-relative path clean (one that could be
// opened). False means only "not known": ask safefile. Like the rest of the
// Run, it assumes the tree does not change while the command runs.
func (r *Run) Exists(clean string) bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := r.seen[clean]
	return sp != nil && sp.exists
}

// lstat returns the lstat an integrity check of this run made of the file
// at the cleaned path clean, if any (gitrepo.CompareOptions.Lstat), and
// forgets it: Compare asks right after the check that made it, once per
// path and base, so a run does not keep every file's stat to the end.
func (r *Run) lstat(clean string) (fs.FileInfo, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := r.seen[clean]
	if sp == nil || sp.lstat == nil {
		return nil, false
	}
	fi := sp.lstat
	sp.lstat = nil
	return fi, true
}

// record keeps what the integrity checks of files found, for the run's
// later questions about the same paths (for the validated repository).
func (v *validator) record(files []*refFile) {
	r := v.in.Run
	if r == nil || r.root != v.in.Root {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range files {
		if !f.safe || f.probe == nil {
			continue
		}
		stat := f.probe.lstat
		if !f.exists && stat == nil {
			continue
		}
		sp := f.probe.seen // the path's record, when its probe has it
		if sp == nil {
			if sp = r.seen[f.clean]; sp == nil {
				sp = &seenPath{}
				r.seen[f.clean] = sp
			}
			f.probe.seen = sp
		}
		sp.exists = sp.exists || f.exists
		if stat != nil {
			sp.lstat = stat
		}
	}
}

// resumable is how many of the run's candidates are resumable (each may be
// validated).
func (r *Run) resumable() int {
	n := 0
	for _, c := range r.sorted {
		if c.Resumable {
			n++
		}
	}
	return n
}

// refPaths is every path the run's resumable candidates reference, cleaned
// lexically as the integrity check cleans them, each once (the union: 200
// workflows of 300 references to 4,000 files give 4,000 paths, and the
// index's look-up tables are sized by them). Candidates that are not
// resumable are never validated by the run that reads the index once
// (status): 20,000 stories, most of them done, had it keep 50,000 entries. It only says which index entries to
// read (see gitmemo.Memo's compare): a path that is not safe, or is missing
// here, costs nothing but a hashed file.
func (r *Run) refPaths() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range r.sorted {
		if !c.Resumable {
			continue // never validated in a run that reads the index once (status)
		}
		for _, rf := range c.Files {
			if clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(rf.Path))); clean != "." && !seen[clean] {
				seen[clean] = true
				out = append(out, clean)
			}
		}
	}
	return out
}

// others is every candidate but the validated one, sorted by id: the Run's
// list (otherWorkflows skips the candidate itself), else Input.Others
// sorted here.
func (v *validator) others() []*workflow.Candidate {
	if r := v.in.Run; r != nil {
		return r.sorted
	}
	return sortedByID(v.in.Others)
}

// sortedByID returns pointers to the candidates, sorted by id (stable).
func sortedByID(candidates []workflow.Candidate) []*workflow.Candidate {
	out := make([]*workflow.Candidate, len(candidates))
	for i := range candidates {
		out[i] = &candidates[i]
	}
	byID := func(a, b *workflow.Candidate) int { return strings.Compare(a.ID, b.ID) }
	if !slices.IsSortedFunc(out, byID) { // discovery lists them mostly sorted
		slices.SortStableFunc(out, byID)
	}
	return out
}

// checkPath is safefile.CheckPath, with the Run's folder cache when there
// is one for this repository.
func (v *validator) checkPath(rel string) (string, error) {
	if r := v.in.Run; r != nil && r.root == v.in.Root {
		return r.paths.CheckPath(rel)
	}
	return safefile.CheckPath(v.in.Root, rel)
}

// checkPathStat is checkPath that also returns the path's lstat when the
// check made one and it stands for a stat (see safefile.Reader.CheckPathStat);
// nil when the caller must stat.
func (v *validator) checkPathStat(rel string) (string, fs.FileInfo, error) {
	if r := v.in.Run; r != nil && r.root == v.in.Root {
		return r.paths.CheckPathStat(rel)
	}
	clean, err := safefile.CheckPath(v.in.Root, rel)
	return clean, nil, err
}
