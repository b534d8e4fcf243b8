package validate

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/validate/gitmemo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Whose change is it (DESIGN §13). A workflow's own progress since its
// interruption is work in progress, never a conflict:
//
//   - its own files are its record (the state file and the other sources
//     describing it, its story files, its tasks file) and its work (the
//     files its story File List, its tasks or its completed phases name);
//     the other referenced files (inputs: a PRD, an architecture, a
//     context file) are what it depends on;
//   - an uncommitted edit of one of its own files is its progress;
//   - a commit since the interruption is its own when its author is one of
//     the workflow's authors — who last changed its record files at or
//     before the interruption commit, matched by e-mail (by name when a
//     commit has none) — and every file it changed is one of the
//     workflow's own; a commit by anyone else, or one that also changed
//     another file, is someone else's change;
//   - whatever changed it, a file rewritten wholesale (fewer than a quarter
//     of its lines kept) and a story whose Acceptance Criteria or Scope
//     text changed are conflicts; a deleted file is integrity's finding.
//
// The interruption time is then the last activity on the workflow's own
// files: the latest of the state's time, the own commits' times and the
// modification times of its files' uncommitted edits.

// ownCommitLimit is how many commits per path are looked at to tell
// whether all of them are the workflow's own: a path changed by more
// commits since the interruption is not vouched for.
const ownCommitLimit = 20

// maxOwnChangedPaths bounds the files read of one commit's change: a
// bigger commit is not the workflow's own progress.
const maxOwnChangedPaths = 200

// rewriteMinLines is the number of distinct non-blank lines a file must
// have held for a rewrite to be told from an edit.
const rewriteMinLines = 8

// OwnershipGit is implemented by a Git (*gitrepo.Repo does) that can tell
// which files a commit changed and who last changed a path at a commit
// (see gitmemo.OwnershipGit). Without it no commit is the workflow's own.
type OwnershipGit = gitmemo.OwnershipGit

// ownership is what the validator knows of the workflow's own files and
// authors, made on first use.
type ownership struct {
	built bool
	// record is the record files (state, sources, stories, tasks file);
	// the work files (File List, tasks, phases) are marked refFile.own.
	record  map[string]bool
	authors map[string]bool // identities (see identity)
	asked   bool            // authors looked up
	// verdicts are the commits judged, by hash: "" for the workflow's own,
	// else why not.
	verdicts map[string]string
}

// recordFroms are the RefFile.From values of a workflow's record files.
var recordFroms = map[string]bool{
	"story": true, "ledger": true, "tasks-file": true, "state": true, "plan": true,
	"summary": true, "qa-gate": true, "tech-spec": true,
}

// workFroms are the RefFile.From values of the files a workflow's own work
// names (besides "task …" and "subtask …", and any produced output).
var workFroms = map[string]bool{
	"file-list": true, "files_to_modify": true, "files_modified": true, "files": true,
	"uncommitted_files": true,
}

// ownFiles builds the workflow's own file sets.
func (v *validator) ownFiles() *ownership {
	o := &v.own
	if o.built {
		return o
	}
	o.built = true
	o.record, o.verdicts = map[string]bool{}, map[string]string{}
	addClean := func(m map[string]bool, p string) {
		if p == "" || strings.ContainsRune(p, 0) {
			return
		}
		c := path.Clean(filepath.ToSlash(p))
		if c != "." && !strings.HasPrefix(c, "../") && c != ".." && !path.IsAbs(c) {
			m[c] = true
		}
	}
	addClean(o.record, v.c.Source.Path)
	for _, e := range v.c.Evidence {
		addClean(o.record, e.Path)
	}
	for _, s := range v.stories {
		if s.path != "" {
			o.record[s.path] = true
		}
	}
	// recordFroms' and workFroms' answers for the last From (mostly one)
	lastFrom, fromRecord, fromWork, looked := "", false, false, false
	for _, f := range v.files {
		if !f.safe {
			continue
		}
		rf := f.ref
		if !looked || rf.From != lastFrom {
			lastFrom, fromRecord, fromWork, looked = rf.From, recordFroms[rf.From], workFroms[rf.From], true
		}
		switch {
		case fromRecord || (rf.From == "feature" && path.Base(f.clean) == "tasks.md"):
			o.record[f.clean] = true
			f.own = true
		case fromWork || rf.Produced || strings.HasPrefix(rf.From, "task ") || strings.HasPrefix(rf.From, "subtask "):
			f.own = true
		}
	}
	// a referenced file that is a record file otherwise named is own too
	for p := range o.record {
		if f := v.byPath[p]; f != nil {
			f.own = true
		}
	}
	return o
}

// isOwn reports whether the clean path p is one of the workflow's own files.
func (v *validator) isOwn(p string) bool {
	o := v.ownFiles()
	if o.record[p] {
		return true
	}
	f := v.byPath[p]
	return f != nil && f.own
}

// identity is how a commit's author is matched against the workflow's
// authors: the e-mail, else (a commit without one) the name,
// case-insensitively.
func identity(c gitrepo.Commit) string {
	if e := strings.TrimSpace(c.Email); e != "" {
		return "email:" + strings.ToLower(e)
	}
	if n := strings.TrimSpace(c.Author); n != "" {
		return "name:" + strings.ToLower(n)
	}
	return ""
}

// ownAuthors looks up, once, who last changed the workflow's record files
// at or before base.
func (v *validator) ownAuthors(base gitrepo.Commit) map[string]bool {
	o := v.ownFiles()
	if o.asked {
		return o.authors
	}
	o.asked = true
	o.authors = map[string]bool{}
	og, ok := v.in.Git.(OwnershipGit)
	if !ok || base.Hash == "" {
		return o.authors
	}
	paths := make([]string, 0, len(o.record))
	for p := range o.record {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, c := range v.lastChangeAt(og, base, paths, 2000) {
		// both, so that a commit without an e-mail is matched by name
		if e := strings.TrimSpace(c.Email); e != "" {
			o.authors["email:"+strings.ToLower(e)] = true
		}
		if n := strings.TrimSpace(c.Author); n != "" {
			o.authors["name:"+strings.ToLower(n)] = true
		}
	}
	return o.authors
}

// commitNotOwn says why commit c is not the workflow's own progress; ""
// when it is.
func (v *validator) commitNotOwn(base, c gitrepo.Commit) string {
	o := v.ownFiles()
	if why, ok := o.verdicts[c.Hash]; ok {
		return why
	}
	why := v.judgeCommit(base, c)
	o.verdicts[c.Hash] = why
	return why
}

func (v *validator) judgeCommit(base, c gitrepo.Commit) string {
	authors := v.ownAuthors(base)
	og, ok := v.in.Git.(OwnershipGit)
	if !ok || len(authors) == 0 {
		return "the workflow's authors are unknown"
	}
	if !authors[identity(c)] {
		return "by another author"
	}
	paths, more, err := v.changedPaths(og, c)
	if err != nil {
		return "its changes cannot be read"
	}
	if more {
		return "it changed too many files"
	}
	for _, p := range paths {
		if !v.isOwn(p) {
			return "it also changed " + display(p)
		}
	}
	return ""
}

// ownFirstPaths is how many of a commit's changed files are read first
// (see changedPaths): most commits judged are someone else's, and one of
// their first files says so.
const ownFirstPaths = 4

// firstChanger is a Git (gitmemo.Memo is) that lists the first files a
// commit changed without the rest (see gitrepo.Repo.ChangedPathsFirst).
type firstChanger interface {
	ChangedPathsFirst(c gitrepo.Commit, max, first int) (paths []string, more, full bool, err error)
}

// changedPaths is og.ChangedPaths(c, maxOwnChangedPaths) as judgeCommit
// reads it: when the first ownFirstPaths files of the answer name a file
// not the workflow's own, those files, more not set (the rest is not read:
// the commit is not the workflow's own whatever it holds, and the first
// file not its own is the same), else the whole answer.
func (v *validator) changedPaths(og OwnershipGit, c gitrepo.Commit) (paths []string, more bool, err error) {
	fc, ok := v.in.Git.(firstChanger)
	if !ok {
		return og.ChangedPaths(c, maxOwnChangedPaths)
	}
	paths, more, full, err := fc.ChangedPathsFirst(c, maxOwnChangedPaths, ownFirstPaths)
	if full {
		return paths, more, err
	}
	for _, p := range paths {
		if !v.isOwn(p) {
			return paths, false, nil
		}
	}
	return og.ChangedPaths(c, maxOwnChangedPaths)
}

// judge tells whether the change ch of the clean path p, made by the
// commits by (all of them, up to ownCommitLimit), is the workflow's own
// progress; when it is not, others are the commits that are not its own
// (all of by when none is known to be).
func (v *validator) judge(base gitrepo.Commit, p string, ch change, by []gitrepo.Commit) (progress bool, others []gitrepo.Commit) {
	if !ch.changed || ch.deleted {
		return false, by
	}
	return v.judgeOwn(base, v.isOwn(p), ch, by)
}

// judgeOwn is judge for a path whose ownership (isOwn) is known already.
func (v *validator) judgeOwn(base gitrepo.Commit, own bool, ch change, by []gitrepo.Commit) (progress bool, others []gitrepo.Commit) {
	if !ch.changed || ch.deleted || !own {
		return false, by
	}
	if !ch.committed {
		return true, nil
	}
	if len(by) == 0 || len(by) >= ownCommitLimit {
		return false, by
	}
	// others is by itself (no copy) unless one of them is the workflow's
	kept := 0
	for i, c := range by {
		if v.commitNotOwn(base, c) == "" {
			if others == nil {
				others = append(make([]gitrepo.Commit, 0, len(by)-1), by[:i]...)
			}
			continue
		}
		kept++
		if others != nil {
			others = append(others, c)
		}
	}
	switch {
	case kept == 0:
		return true, nil
	case others == nil:
		return false, by // every one of them
	}
	return false, others
}

// progressText says what the workflow's own change was: its commits and/or
// an uncommitted edit (with its modification time).
func progressText(ch change, by []gitrepo.Commit, mtime time.Time) string {
	var parts []string
	if ch.committed && len(by) > 0 {
		noun := "commit "
		if len(by) > 1 {
			noun = "commits "
		}
		parts = append(parts, noun+describeCommits(shown(by)))
	}
	if ch.uncommitted || !ch.committed {
		s := "an uncommitted edit"
		if !mtime.IsZero() {
			s += " (modified " + stamp(mtime) + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " and ")
}

// shown is the commits a message names: at most commitLimit.
func shown(by []gitrepo.Commit) []gitrepo.Commit {
	if len(by) > commitLimit {
		return by[:commitLimit]
	}
	return by
}

// activity moves the interruption time to the workflow's own change ch of
// a file (its own commits' times, its uncommitted edit's modification
// time) when that is later; never past now.
func (v *validator) activity(ch change, by []gitrepo.Commit, mtime time.Time) {
	latest := time.Time{}
	if ch.committed {
		for _, c := range by {
			if c.When.After(latest) {
				latest = c.When
			}
		}
	}
	if ch.uncommitted || !ch.committed {
		if mtime.After(latest) {
			latest = mtime
		}
	}
	if latest.IsZero() {
		return
	}
	if latest.After(v.rep.Activity) { // before now keeps it
		v.rep.Activity = latest
	}
	if !v.in.Now.IsZero() && latest.After(v.in.Now) {
		latest = v.in.Now
	}
	latest = latest.UTC().Truncate(time.Second)
	if latest.After(v.rep.InterruptedAt) {
		v.rep.InterruptedAt = latest
	}
}

// rewrittenSince reports whether the file at the clean path p was
// rewritten wholesale since base: it held at least rewriteMinLines distinct
// non-blank lines there and fewer than a quarter of them are left.
func (v *validator) rewrittenSince(base gitrepo.Commit, p string) bool {
	old, err := v.in.Git.ReadAt(base, p)
	if err != nil || int64(len(old)) > v.cfg.MaxFileSize {
		return false
	}
	before := lineSet(old)
	if len(before) < rewriteMinLines {
		return false
	}
	cur, err := safefile.Read(v.in.Root, p, v.cfg.MaxFileSize)
	if err != nil {
		return false
	}
	after := lineSet(cur)
	kept := 0
	for l := range before {
		if after[l] {
			kept++
		}
	}
	return kept*4 < len(before)
}

// lineSet is the distinct non-blank lines of data, trimmed.
func lineSet(data []byte) map[string]bool {
	out := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	// the buffer grows as the scanner needs it (to 1 MiB): a small file
	// does not take 64 KiB
	sc.Buffer(make([]byte, 0, min(64<<10, len(data)+1)), 1<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out[l] = true
		}
	}
	return out
}

// fileProgress reports the workflow's own change of a referenced file (not
// a story): work in progress, or a conflict when it rewrote the file
// wholesale. It reports false when the change is not the workflow's own
// (the caller reports the conflict, naming others).
func (v *validator) fileProgress(base gitrepo.Commit, f *refFile, ch change, by []gitrepo.Commit) (handled bool, others []gitrepo.Commit) {
	if !ch.changed || ch.deleted {
		return false, by
	}
	v.ownFiles() // sets f.own: isOwn(f.clean) without a look-up
	prog, others := v.judgeOwn(base, f.own, ch, by)
	if !prog {
		return false, others
	}
	rf, p := *f.ref, f.clean
	f.state = FileChangedUncommitted
	if ch.committed {
		f.state = FileChangedCommitted
		f.by = shown(by)
	}
	what := progressText(ch, by, f.mtime())
	if !ch.added && v.rewritten(base, p) {
		f.conflict = true
		f.detail = "rewritten wholesale by " + what
		v.add(workflow.CheckConflict, workflow.Blocking, "file-rewritten", p, rf.Phase,
			fmt.Sprintf("%s was rewritten wholesale since the interruption (fewer than a quarter of its lines are left) by %s%s", p, what, phaseNote(rf)))
		return true, nil
	}
	v.activity(ch, by, f.mtime())
	f.detail = "work in progress: " + what
	v.add(workflow.CheckConflict, workflow.Info, "progress", p, rf.Phase,
		fmt.Sprintf("%s has the workflow's own work in progress since the interruption: %s%s", p, what, phaseNote(rf)))
	return true, nil
}
