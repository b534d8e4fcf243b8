package verdict

import (
	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// The file and story lists of a memo kept for a validation that lists
// them (resume and `status --json` with lists: validate.Input.NoLists
// false), under a key of its own (Memo.key): the report of a resume of one
// workflow that names 5,000 files was made afresh on every run, its
// 5,000 probes and the comparison with git, where the memo's read set is
// 5,000 lstats (issue 25's twelfth pass). A list's nil-ness is kept (JSON
// tells "null" from "[]").

// lists writes r's file and story lists.
func (w *writer) lists(r *validate.Report) {
	w.count(r.Files == nil, len(r.Files))
	for _, f := range r.Files {
		w.str(f.Path)
		w.str(f.Phase)
		w.uint(flags(f.Critical, f.Produced))
		w.str(f.State)
		w.count(f.By == nil, len(f.By))
		for _, c := range f.By {
			w.commit(c)
		}
		w.str(f.Detail)
	}
	w.count(r.Stories == nil, len(r.Stories))
	for _, s := range r.Stories {
		w.str(s.ID)
		w.str(s.Path)
		w.str(s.StateStatus)
		w.str(string(s.StoryStatus))
		w.str(s.Verdict)
		w.uint(flags(s.Exists, false))
	}
}

// count writes a list's length plus one, or 0 for a nil list.
func (w *writer) count(isNil bool, n int) {
	if isNil {
		w.uint(0)
		return
	}
	w.uint(uint64(n) + 1)
}

func flags(a, b bool) uint64 {
	var f uint64
	if a {
		f |= 1
	}
	if b {
		f |= 2
	}
	return f
}

// lists reads what writer.lists wrote into rep.
func (r *reader) lists(rep *validate.Report) {
	if n, ok := r.listCount(6); ok { // six fields of at least a byte each
		rep.Files = make([]validate.FileReport, 0, n)
		for range n {
			f := validate.FileReport{Path: r.str(), Phase: r.str()}
			f.Critical, f.Produced = r.flags()
			f.State = r.str()
			if m, ok := r.listCount(6); ok { // a commit's six fields
				f.By = make([]gitrepo.Commit, 0, m)
				for range m {
					f.By = append(f.By, r.commit())
				}
			}
			f.Detail = r.str()
			rep.Files = append(rep.Files, f)
		}
	}
	if n, ok := r.listCount(6); ok {
		rep.Stories = make([]validate.StoryReport, 0, n)
		for range n {
			s := validate.StoryReport{ID: r.str(), Path: r.str(), StateStatus: r.str(),
				StoryStatus: workflow.Status(r.str()), Verdict: r.str()}
			s.Exists, _ = r.flags()
			rep.Stories = append(rep.Stories, s)
		}
	}
}

// listCount reads writer.count's count: ok is false for a nil list, and
// for a count the rest cannot hold at min bytes an item (then bad).
func (r *reader) listCount(min int) (int, bool) {
	n := r.uint()
	if n == 0 || r.bad {
		return 0, false
	}
	if n-1 > uint64(len(r.s)/min) {
		r.bad = true
		return 0, false
	}
	return int(n - 1), true
}

func (r *reader) flags() (a, b bool) {
	f := r.uint()
	if f > 3 {
		r.bad = true
	}
	return f&1 != 0, f&2 != 0
}
