package validate

import (
	"io/fs"
	"sort"
	"sync"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
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
	root   string
	sorted []workflow.Candidate // every candidate, sorted by id (stable)
	paths  *safefile.Reader

	gitOnce  sync.Once
	gitFor   Git       // the Git whose answers gitCache keeps
	gitCache *gitCache // see git
}

// NewRun returns the shared state of the validations of candidates (every
// discovered one, the validated ones included) in the repository at root.
func NewRun(root string, candidates []workflow.Candidate) *Run {
	sorted := append([]workflow.Candidate(nil), candidates...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	return &Run{root: root, sorted: sorted, paths: safefile.NewReader(root)}
}

// others is every candidate but the validated one, sorted by id: the Run's
// list (otherWorkflows skips the candidate itself), else Input.Others
// sorted here.
func (v *validator) others() []workflow.Candidate {
	if r := v.in.Run; r != nil {
		return r.sorted
	}
	others := append([]workflow.Candidate(nil), v.in.Others...)
	sort.SliceStable(others, func(i, j int) bool { return others[i].ID < others[j].ID })
	return others
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
