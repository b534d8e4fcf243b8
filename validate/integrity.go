package validate

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/validate/gitmemo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// refFile is one referenced file as validation sees it.
type refFile struct {
	ref    *workflow.RefFile // the candidate's (never written through), or a merge
	clean  string            // cleaned repository-relative path; "" when unsafe
	safe   bool
	exists bool
	isDir  bool // a folder: checked for existence only
	own    bool // one of the workflow's own files (set by ownFiles; see isOwn)
	// conflict is set when the file changed in a way that invalidates the
	// phase that needs it (ChangedPhases).
	conflict bool
	// probe is what the file system said of the path (see probeAll),
	// shared with the Run.
	probe *probe
	// story is the involved story whose file this is, if any: its changes are
	// judged by section (conflict b), not as a plain file (conflict c).
	story *storyState
	ch    change // the change since the interruption (gitDrift); unknown when not compared
	// state, by and detail are the file report's (see report).
	state, detail string
	by            []gitrepo.Commit
}

// mtime is the file's modification time (its probe's; zero when missing).
func (f *refFile) mtime() time.Time {
	if !f.exists || f.probe == nil || f.probe.fi == nil {
		return time.Time{}
	}
	return f.probe.fi.ModTime()
}

// report is the file's FileReport.
func (f *refFile) report() FileReport {
	p := f.clean
	if !f.safe {
		p = f.ref.Path
	}
	return FileReport{Path: display(p), Phase: display(f.ref.Phase), Critical: f.ref.Critical, Produced: f.ref.Produced,
		State: f.state, By: f.by, Detail: f.detail}
}

// mergeRef keeps the more critical of two references to one path, filling
// fields the kept one lacks from the other.
func mergeRef(a, b workflow.RefFile) workflow.RefFile {
	keep, other := a, b
	if b.Critical && !a.Critical {
		keep, other = b, a
	}
	keep.Phase = cmp.Or(keep.Phase, other.Phase)
	keep.Hash = cmp.Or(keep.Hash, other.Hash)
	keep.From = cmp.Or(keep.From, other.From)
	return keep
}

// integrity checks that every referenced file is safe, exists and can be
// opened. Unsafe paths are never stat'ed or read. The references are
// de-duplicated on the path as written (before the cap), then on the
// cleaned path; a list within the cap, all safe, whose cleaned paths differ
// has no repeat as written either, so it is tried as it is first (the long
// way at a repeat; the probes are the Run's).
func (v *validator) integrity() {
	if r := v.in.Run; r != nil && r.root == v.in.Root {
		r.prefetch(v.c.ID, v.cfg.MaxRefFiles)
	}
	n := len(v.c.Files)
	if n <= v.cfg.MaxRefFiles && tryDistinct {
		refs := v.c.Files[:n:n]
		if v.placeFiles(refs, v.probeAll(refs), true) {
			v.checkFiles()
			return
		}
	}
	uniq := v.uniqueRefs()
	v.placeFiles(uniq, v.probeAll(uniq), false)
	v.checkFiles()
}

// tryDistinct: integrity tries a list as it is first (off in a test).
var tryDistinct = true

// uniqueRefs is the candidate's references de-duplicated on the path as
// written, capped at MaxRefFiles (critical ones first; too-many-refs).
func (v *validator) uniqueRefs() []workflow.RefFile {
	seen := make(map[string]int, len(v.c.Files))
	var uniq []workflow.RefFile
	copied := false
	for j, rf := range v.c.Files {
		if i, ok := seen[rf.Path]; ok {
			if !copied {
				copied = true
				// the first repeat: copy what came before it (without a
				// repeat, uniq is the candidate's own list, not copied)
				uniq = append(make([]workflow.RefFile, 0, len(v.c.Files)), v.c.Files[:j]...)
			}
			uniq[i] = mergeRef(uniq[i], rf)
			continue
		}
		seen[rf.Path] = len(seen)
		if copied {
			uniq = append(uniq, rf)
		}
	}
	if !copied {
		uniq = v.c.Files[:len(v.c.Files):len(v.c.Files)]
	}
	if max := v.cfg.MaxRefFiles; len(uniq) > max {
		// Keep the critical references first, then the others in order
		// (in a copy: uniq may be the candidate's own list).
		uniq = slices.Clone(uniq)
		sort.SliceStable(uniq, func(i, j int) bool { return uniq[i].Critical && !uniq[j].Critical })
		v.add(workflow.CheckIntegrity, workflow.Warning, "too-many-refs", v.c.Source.Path, "",
			fmt.Sprintf("%s references %d files; only %d were checked (max_ref_files)", display(v.c.ID), len(uniq), max))
		uniq = uniq[:max]
	}
	return uniq
}

// placeFiles makes the files of the references uniq from their probes,
// de-duplicated on the cleaned path, in v.files and v.byPath. With distinct
// set it gives up (false, nothing made) at an unsafe path or a cleaned path
// met twice: the long way's merges and findings are then needed.
func (v *validator) placeFiles(uniq []workflow.RefFile, probes []*probe, distinct bool) bool {
	if len(v.byPath) == 0 {
		v.byPath = make(map[string]*refFile, len(uniq))
	}
	if v.files == nil {
		v.files = make([]*refFile, 0, len(uniq))
	}
	// the files' states, in one allocation (at most one per reference: the
	// pointers taken below stay valid)
	states := make([]refFile, 0, len(uniq))
	newFile := func(f refFile) *refFile {
		states = append(states, f)
		return &states[len(states)-1]
	}
	for i, rf := range uniq {
		clean, err := probes[i].clean, probes[i].err
		f := v.byPath[clean]
		if distinct && (err != nil || f != nil) {
			clear(v.byPath)
			v.files = v.files[:0]
			return false
		}
		if err != nil {
			f := newFile(refFile{ref: &uniq[i]})
			f.state, f.detail = FileUnsafe, err.Error()
			v.add(workflow.CheckIntegrity, workflow.Blocking, "unsafe-path", display(rf.Path), rf.Phase,
				fmt.Sprintf("unsafe referenced path, not read: %s%s", strings.TrimPrefix(err.Error(), safefile.ErrUnsafe.Error()+": "), phaseNote(rf)))
			v.files = append(v.files, f)
			continue
		}
		if f != nil {
			m := mergeRef(*f.ref, rf)
			f.ref = &m
			continue
		}
		f = newFile(refFile{ref: &uniq[i], clean: clean, safe: true, probe: probes[i]})
		v.byPath[clean] = f
		v.files = append(v.files, f)
	}
	byDisplay := func(a, b *refFile) int { return strings.Compare(a.displayPath(), b.displayPath()) }
	if !slices.IsSortedFunc(v.files, byDisplay) { // references are mostly listed sorted
		slices.SortStableFunc(v.files, byDisplay)
	}
	return true
}

// checkFiles judges every safe file, and keeps what it found for the Run.
func (v *validator) checkFiles() {
	for _, f := range v.files {
		if f.safe {
			v.checkFile(f)
		}
	}
	v.record(v.files)
}

func (f *refFile) displayPath() string {
	if f.safe {
		return f.clean
	}
	return display(f.ref.Path)
}

// checkFile judges one safe referenced file by its probe (stat and open
// check).
func (v *validator) checkFile(f *refFile) {
	rf := *f.ref
	f.state = FileUnknown
	fi, err := f.probe.fi, f.probe.open
	switch {
	case err == nil:
		f.exists = true
		if fi.IsDir() {
			f.isDir = true
			f.detail = "a folder: not compared"
		}
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		f.state = FileMissing
		if v.missingStoryPaths[f.clean] {
			return // consistency reports the story as missing
		}
		gone := v.goneBy(f)
		carried := v.carriedByState(rf)
		switch {
		case rf.Critical && carried != "":
			v.add(workflow.CheckIntegrity, workflow.Warning, "missing-file", f.clean, rf.Phase,
				fmt.Sprintf("%s is missing%s%s; %s, so the workflow can resume without it", f.clean, gone, phaseNote(rf), carried))
		case rf.Critical:
			v.add(workflow.CheckIntegrity, workflow.Blocking, "missing-critical", f.clean, rf.Phase,
				fmt.Sprintf("critical file %s is missing%s%s", f.clean, gone, phaseNote(rf)))
		default:
			v.add(workflow.CheckIntegrity, workflow.Warning, "missing-file", f.clean, rf.Phase,
				fmt.Sprintf("referenced file %s is missing%s%s", f.clean, gone, phaseNote(rf)))
		}
	default:
		f.detail = "unreadable: " + err.Error()
		sev := workflow.Warning
		if rf.Critical {
			sev = workflow.Blocking
		}
		v.add(workflow.CheckIntegrity, sev, "unreadable", f.clean, rf.Phase,
			fmt.Sprintf("cannot read %s: %v%s", f.clean, cause(err), phaseNote(rf)))
	}
}

// cause strips the operation and path from an *fs.PathError (the message
// names the path already).
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Remover is implemented by a Git (*gitrepo.Repo does) that can name the
// commit that removed a path (see gitmemo.Remover).
type Remover = gitmemo.Remover

// maxRemovalLookups bounds the history walks one validation spends naming
// the commits that removed missing files.
const maxRemovalLookups = 8

// goneBy is ", deleted by a1b2c3d (Jane, …) "subject"" (or "moved to X by",
// or "moved into the submodule X by") for a missing file a commit removed,
// "" when unknown. It also fills the file report's By and Detail.
func (v *validator) goneBy(f *refFile) string {
	rm, ok := v.in.Git.(Remover)
	if !ok || v.in.Git == nil || v.removalLookups >= maxRemovalLookups {
		return ""
	}
	v.removalLookups++
	r, found := rm.Removal(f.clean)
	if !found {
		return ""
	}
	what := "deleted"
	switch {
	case r.Submodule != "":
		what = "moved into the submodule " + display(r.Submodule)
	case r.MovedTo != "":
		what = "moved to " + display(r.MovedTo)
	}
	by := describeCommits([]gitrepo.Commit{r.Commit})
	if r.Commit.Subject != "" {
		by += fmt.Sprintf(" %q", display(r.Commit.Subject))
	}
	f.by = []gitrepo.Commit{r.Commit}
	f.detail = what + " by " + by
	return ", " + what + " by " + by
}

// carriedByState says why a critical reference that is gone is not needed
// to resume — the saved state itself carries what the next step needs — or
// returns "" when the next step really cannot run without it. Today: an
// epic's execution plan, when the state lists its waves and their stories.
func (v *validator) carriedByState(rf workflow.RefFile) string {
	e := v.c.Epic
	if e == nil || rf.Produced || strings.TrimSpace(e.PlanPath) == "" || rf.Path != e.PlanPath {
		return ""
	}
	waves, stories := 0, 0
	for _, w := range e.Waves {
		n := 0
		for _, s := range w.Stories {
			if strings.TrimSpace(s.ID) != "" {
				n++
			}
		}
		if n > 0 {
			waves++
			stories += n
		}
	}
	if stories == 0 {
		return ""
	}
	return fmt.Sprintf("the saved state lists every wave and story of the execution plan (%s, %s)",
		plural(waves, "wave"), plural(stories, "story"))
}

// plural is "1 wave", "3 waves", "2 stories".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
