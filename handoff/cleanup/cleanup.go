// Package cleanup sets one workflow aside (`orchestrate cleanup`): it plans
// the cleanup (PlanCleanupAmong), checks its paths (CheckCleanup) and
// carries it out (Cleanup) under the workflow's lock (handoff.Acquire), all
// or nothing: on any failure every change made is undone.
//
// What it may change, and only inside the repository, never through a
// symlink (internal/safefile): it moves the workflow's own state file and
// its .bak twin under .orchestrate/archive/<time>-<id>/ (only for a source
// kind known to own its file alone, ownsStateFile), and rewrites the status
// value on the Status line of the workflow's stories that are in progress
// or in review to Ready, every other byte kept. The only thing it ever
// removes is an empty archive folder it made itself, when undoing a failed
// cleanup.
//
// What it never does: delete a file, or move or rewrite a file another
// workflow reads. A framework's shared file (Taskmaster's tasks.json, a BMAD
// v6 sprint ledger, a spec-kit tasks.md, GSD's .planning files, the QA loops
// index, any kind not known to own its file) or a state file another
// workflow also reads refuses the whole cleanup (CleanupRefusal, saying what
// to do instead in the framework's own terms); a story another workflow
// reads, or one a BMAD v6 workflow tracks, is left as it is (Skipped).
package cleanup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/bmad6"
	"github.com/orchestrate-dev/orchestrate/discover/taskmaster"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/atomicfile"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// StoryReset is one story status a cleanup resets: the raw status text on
// line Line of the story file at Path becomes To.
type StoryReset struct {
	ID, Path, From, To string
	Line               int
	Raw                string
}

// StorySkip is a story a cleanup leaves as it is although it is in a
// transitional status, and why (another workflow reads it).
type StorySkip struct {
	ID, Path, Why string
}

// CleanupRefusal is a cleanup refused as a whole because the files it would
// move or rewrite are not the workflow's alone: Reason says which file and
// why, Instead what to do (in the framework's own terms, with only commands
// the framework has), Files the files left alone.
type CleanupRefusal struct {
	Reason  string   `json:"reason"`
	Instead string   `json:"instead"`
	Files   []string `json:"files"`
}

// Error implements error: the reason, then what to do instead.
func (r *CleanupRefusal) Error() string {
	if r.Instead == "" {
		return r.Reason
	}
	return r.Reason + "; " + r.Instead
}

// CleanupPlan is what cleaning up one workflow does: move its state files
// (the state and its .bak twin) under ArchiveDir, and reset the stories it
// left in a transitional status to Ready. A plan with a Refusal changes
// nothing (Archive and Resets are empty).
type CleanupPlan struct {
	Candidate  workflow.Candidate
	Archive    []string // repository-relative state files to move
	ArchiveDir string   // repository-relative folder they move under
	Resets     []StoryReset
	// Skipped are the stories in a transitional status left as they are
	// because another workflow reads them.
	Skipped []StorySkip
	// Refusal is set when the cleanup is refused as a whole.
	Refusal *CleanupRefusal
}

// Empty reports whether the plan changes nothing.
func (p CleanupPlan) Empty() bool { return len(p.Archive) == 0 && len(p.Resets) == 0 }

// maxStoryRewrite is the largest story file cleanup rewrites.
const maxStoryRewrite = 16 << 20

// PlanCleanup is PlanCleanupAmong with no other workflow known.
func PlanCleanup(c workflow.Candidate, stories map[string]*workflow.Story, now time.Time) CleanupPlan {
	return PlanCleanupAmong(c, nil, stories, now)
}

// PlanCleanupAmong works out the cleanup of candidate c at time now, among
// the other workflows found (others; c itself may be among them): its state
// file and .bak twin are archived (stories and spec folders are project
// files, never moved) under .orchestrate/archive/<time>-<id>/, and each of
// its stories in InProgress or InReview is reset to Ready.
//
// Cleanup never deletes, moves or rewrites a file another workflow reads:
// a source kind not known to own its file alone (a framework's shared file:
// Taskmaster's tasks.json, a BMAD v6 sprint ledger, a spec-kit tasks.md,
// GSD's .planning files, the QA loops index, any kind not listed in
// ownsStateFile), or a state file another workflow also reads, refuses the
// whole cleanup (Refusal, nothing planned); a story another workflow reads,
// or one a BMAD v6 workflow tracks (its status is v6 vocabulary, never
// orchestrate's Ready), is left as it is (Skipped).
func PlanCleanupAmong(c workflow.Candidate, others []workflow.Candidate, stories map[string]*workflow.Story, now time.Time) CleanupPlan {
	p := CleanupPlan{Candidate: c}
	p.ArchiveDir = ".orchestrate/archive/" + now.UTC().Format("20060102T150405Z") + "-" + handoff.SafeID(c.ID)
	if r := refuseCleanup(c, others); r != nil {
		p.Refusal = r
		return p
	}
	if c.Source.Kind != workflow.KindStory && c.Source.Kind != workflow.KindSpec {
		p.Archive = append(p.Archive, c.Source.Path)
		if c.BackupPath != "" {
			p.Archive = append(p.Archive, c.BackupPath)
		}
	}
	for _, id := range c.Stories {
		st, ok := stories[id]
		if !ok || st == nil || (st.Status != workflow.StatusInProgress && st.Status != workflow.StatusInReview) || st.StatusLine == 0 || st.StatusRaw == "" {
			continue
		}
		if why := storyReadBy(c, others, id, st.Path); why != "" {
			p.Skipped = append(p.Skipped, StorySkip{ID: id, Path: st.Path, Why: why})
			continue
		}
		p.Resets = append(p.Resets, StoryReset{ID: id, Path: st.Path, From: string(st.Status), To: string(workflow.StatusReady), Line: st.StatusLine, Raw: st.StatusRaw})
	}
	return p
}

// ownsStateFile reports whether a source kind's state file belongs to one
// workflow alone, so that cleanup may archive it: orchestrate's and AIOX's
// own state files (one epic, one QA loop, one workflow, one progress file,
// one work session per file), and the kinds with no file to archive (a
// story-implied workflow, a spec pipeline's folder: only their stories are
// reset). Every other kind — the frameworks' shared files, the QA loops
// index, any kind added later — is refused until it is known to own its file.
func ownsStateFile(kind string) bool {
	switch kind {
	case workflow.KindEpicState, workflow.KindQALoop, workflow.KindWorkflowState, workflow.KindProgress,
		workflow.KindWorkSession, workflow.KindStory, workflow.KindSpec:
		return true
	}
	return false
}

// CleanupOffered reports whether cleanup may be suggested for c at all (its
// source kind owns its state file); the hints that lead to cleanup (a stale
// halt, the Cannot Resume options, the interactive choice) ask it first, so
// that they never point at a refusal for a framework's shared files.
func CleanupOffered(c workflow.Candidate) bool { return ownsStateFile(c.Source.Kind) }

// refuseCleanup is the refusal of c's cleanup, or nil: by source kind
// first (shared files, in the framework's own terms), then by what the
// other workflows read.
func refuseCleanup(c workflow.Candidate, others []workflow.Candidate) *CleanupRefusal {
	if !ownsStateFile(c.Source.Kind) {
		return kindRefusal(c)
	}
	if c.Source.Kind == workflow.KindStory || c.Source.Kind == workflow.KindSpec {
		return nil // nothing archived
	}
	for _, f := range []string{c.Source.Path, c.BackupPath} {
		if f == "" {
			continue
		}
		if o := readerOf(c, others, f, false); o != "" {
			return &CleanupRefusal{
				Reason:  fmt.Sprintf("cleanup does not archive %s: it holds more than one workflow (%s reads it too)", f, o),
				Instead: fmt.Sprintf("finish or resume %s first, or move the file yourself once no workflow needs it", o),
				Files:   []string{f},
			}
		}
	}
	return nil
}

// ctxString is a string from a candidate's saved context (the keys are
// those discover/taskmaster and discover/bmad6 save).
func ctxString(c workflow.Candidate, key string) string {
	s, _ := c.Context[key].(string)
	return s
}

// kindRefusal is the refusal for a source kind whose file is shared: which
// file, why, and what to do instead in the framework's own terms.
func kindRefusal(c workflow.Candidate) *CleanupRefusal {
	path := c.Source.Path
	cont := "" // the framework's own command to continue (not for finished work)
	if c.Resumable && c.Resume != nil && c.Resume.FrameworkCommand != "" {
		cont = c.Resume.FrameworkCommand
	}
	switch c.Source.Kind {
	case workflow.KindTaskmaster:
		tag, task := ctxString(c, "taskmaster_tag"), ctxString(c, "taskmaster_task")
		if task == "" {
			task = c.Key
			if _, t, ok := strings.Cut(c.Key, "/"); ok {
				task = t
			}
		}
		if tag == "" {
			tag, _, _ = strings.Cut(c.Key, "/")
		}
		tagFlag := ""
		if c.Framework == taskmaster.Framework017 && tag != "" {
			tagFlag = " --tag=" + tag
		}
		return &CleanupRefusal{
			Reason: fmt.Sprintf("cleanup does not archive %s: every task of every tag lives there (this is task %s of tag %s)", path, task, tag),
			Instead: fmt.Sprintf("mark the task yourself with `task-master set-status --id=%s --status=cancelled%s` (or --status=deferred to keep it for later)",
				task, tagFlag),
			Files: []string{path},
		}
	case workflow.KindBMADLedger:
		if key := ctxString(c, "bmad_story_key"); key != "" {
			files := []string{path}
			story := ctxString(c, "story_file")
			also := ""
			if story != "" {
				files = append(files, story)
				also = " (and the Status line of " + story + ")"
			}
			return &CleanupRefusal{
				Reason: fmt.Sprintf("cleanup does not archive %s or reset the story: the BMAD v6 sprint ledger tracks every story of the sprint, "+
					"and a v6 story's status is the ledger's vocabulary (backlog, ready-for-dev, in-progress, review, done)", path),
				Instead: fmt.Sprintf("to set story %s aside, change its line `%s: %s` in %s%s yourself, e.g. to backlog",
					c.Key, key, c.StatusRaw, path, also),
				Files: files,
			}
		}
		return &CleanupRefusal{
			Reason:  fmt.Sprintf("cleanup does not archive %s: it is BMAD's own work in progress, which its workflow resumes from", path),
			Instead: "finish it with BMAD's workflow, or delete it yourself if you abandon it",
			Files:   []string{path},
		}
	case workflow.KindSpecKit:
		return &CleanupRefusal{
			Reason: fmt.Sprintf("cleanup does not move %s: it is the feature's spec-kit task list (its ticked tasks are finished work), read by spec-kit's own commands", path),
			Instead: orContinue(cont, "leave it: orchestrate never changes spec-kit's files; edit them yourself to drop tasks",
				"continue the feature with %s, or edit its files yourself to drop tasks"),
			Files: []string{path},
		}
	case workflow.KindKiro:
		instead := "leave it: orchestrate never changes Kiro's spec files; edit its tasks.md yourself to drop tasks"
		if cont != "" {
			instead = fmt.Sprintf("continue the spec with %s, or edit its tasks.md yourself to drop tasks", cont)
		}
		return &CleanupRefusal{
			Reason:  fmt.Sprintf("cleanup does not move %s: it is the spec's Kiro task list (its ticked tasks are finished work), read by Kiro and cc-sdd", orDash(path)),
			Instead: instead,
			Files:   []string{path},
		}
	case workflow.KindGSD:
		return &CleanupRefusal{
			Reason: fmt.Sprintf("cleanup does not move %s: GSD's .planning files are shared by every phase, and a SUMMARY records finished work", orDash(path)),
			Instead: orContinue(cont, "GSD manages .planning/ itself: see where it stands with /gsd:progress",
				"GSD manages .planning/ itself: continue with %s, or see where it stands with /gsd:progress"),
			Files: []string{path},
		}
	case workflow.KindQALoopIndex:
		return &CleanupRefusal{
			Reason:  fmt.Sprintf("cleanup does not archive %s: the QA loops index lists every loop", path),
			Instead: "clean up the loop's own status file (its qa-loop workflow) instead, or edit the index yourself",
			Files:   []string{path},
		}
	}
	return &CleanupRefusal{
		Reason:  fmt.Sprintf("cleanup does not archive %s: files of kind %q are not known to belong to one workflow alone", orDash(path), c.Source.Kind),
		Instead: "leave it to the tool that wrote it",
		Files:   []string{path},
	}
}

// orContinue is what to do instead of a refused cleanup: plain, or, when
// the framework has a command to continue (cont), withCont naming it.
func orContinue(cont, plain, withCont string) string {
	if cont == "" {
		return plain
	}
	return fmt.Sprintf(withCont, cont)
}

// readsOf lists the files candidate o reads: its source, .bak twin,
// evidence, referenced files and stories' files.
func readsOf(o workflow.Candidate) []string {
	out := []string{o.Source.Path, o.BackupPath}
	for _, e := range o.Evidence {
		out = append(out, e.Path)
	}
	for _, f := range o.Files {
		out = append(out, f.Path)
	}
	for _, s := range o.StoryRefs {
		out = append(out, s.Path)
	}
	return out
}

// readerOf is the id of another workflow (not c, and — with skipStories —
// not a candidate implied by a story file alone) that reads file, or "".
func readerOf(c workflow.Candidate, others []workflow.Candidate, file string, skipStories bool) string {
	if file == "" {
		return ""
	}
	for _, o := range others {
		if o.ID == c.ID || (skipStories && o.Source.Kind == workflow.KindStory) {
			continue
		}
		for _, f := range readsOf(o) {
			if f == file {
				return o.ID
			}
		}
	}
	return ""
}

// storyReadBy says why story id (at path) is left as it is, or "": another
// workflow lists or reads it, or a BMAD v6 workflow tracks it.
func storyReadBy(c workflow.Candidate, others []workflow.Candidate, id, path string) string {
	if c.Framework == bmad6.Framework {
		return "a BMAD v6 story: its status is the sprint ledger's vocabulary, not Ready"
	}
	for _, o := range others {
		if o.ID == c.ID || !o.HasStory(id) {
			continue
		}
		if o.Framework == bmad6.Framework {
			return "a BMAD v6 story (" + o.ID + "): its status is the sprint ledger's vocabulary, not Ready"
		}
		if o.Source.Kind != workflow.KindStory {
			return o.ID + " reads it too"
		}
	}
	if o := readerOf(c, others, path, true); o != "" {
		return o + " reads it too"
	}
	return ""
}

// CheckCleanup refuses, before anything is changed, a cleanup whose files or
// archive folder cannot be reached without following a symlink: each file to
// archive and each story to reset must be a regular file whose every folder
// is a real folder inside root, and the existing part of the archive folder
// must be real folders too (docs/SECURITY.md).
func CheckCleanup(root string, p CleanupPlan) error {
	check := func(rel string) error {
		d, name, err := safefile.OpenParent(root, rel, false)
		if err != nil {
			return err
		}
		defer d.Close()
		mode, _, err := d.Lstat(name)
		if err != nil {
			return err
		}
		if !mode.IsRegular() {
			what := "is not a regular file"
			if mode&os.ModeSymlink != 0 {
				what = "is a symlink"
			}
			return &safefile.RefusedError{Path: rel, What: what, Kind: safefile.ErrNotFile}
		}
		return nil
	}
	for _, rel := range p.Archive {
		if err := check(rel); err != nil {
			return err
		}
	}
	for _, r := range p.Resets {
		if err := check(r.Path); err != nil {
			return err
		}
	}
	d, err := safefile.OpenDir(root, p.ArchiveDir, false)
	if err == nil {
		return d.Close()
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil // made when archiving, without following symlinks
	}
	return err
}

// CleanupRequest is one cleanup to carry out.
type CleanupRequest struct {
	Root string
	Plan CleanupPlan
	// Lock describes this process for the workflow's lock file.
	Lock handoff.LockInfo
	// Failpoint is a test hook called after each change ("cleanup-reset"
	// after each story rewritten, "cleanup-archive" after each file moved);
	// an error from it fails the cleanup there, which is then undone.
	Failpoint func(step string) error
}

// CleanupRefusedError reports a cleanup refused before anything changed: a
// path that cannot be reached safely, or a story whose status moved since
// it was read.
type CleanupRefusedError struct{ Err error }

// Error implements error.
func (e *CleanupRefusedError) Error() string { return e.Err.Error() }

// Unwrap returns the reason.
func (e *CleanupRefusedError) Unwrap() error { return e.Err }

// Cleanup carries out plan req.Plan under the workflow's lock, like a
// resume: a live (or untrusted) lock gives *handoff.LockedError and changes
// nothing; a stale one is taken over. The paths are checked again under the
// lock. Then every story is reset and every state file archived, all or
// nothing: on any failure each change made is undone in reverse order (the
// stories get their bytes back, the files move back, the archive folders
// made are removed) and the error says so. The lock is released on every
// path out.
func Cleanup(req CleanupRequest) (err error) {
	p := req.Plan
	id := p.Candidate.ID
	// a refused plan, or one that would move a file its kind does not own,
	// is refused before anything is written (not even the lock)
	if p.Refusal != nil {
		return &CleanupRefusedError{Err: p.Refusal}
	}
	if !ownsStateFile(p.Candidate.Source.Kind) {
		return &CleanupRefusedError{Err: kindRefusal(p.Candidate)}
	}
	lock, err := handoff.Acquire(req.Root, id, req.Lock, true)
	if err != nil {
		return err
	}
	defer func() {
		if rerr := lock.Release(); rerr != nil && err == nil {
			err = fmt.Errorf("cleanup of %s: %w", id, rerr)
		}
	}()
	if err := CheckCleanup(req.Root, p); err != nil {
		return &CleanupRefusedError{Err: err}
	}

	// Read and patch every story before changing anything.
	type rewrite struct {
		r         StoryReset
		old, data []byte
	}
	var rewrites []rewrite
	for _, r := range p.Resets {
		old, err := safefile.ReadConfined(req.Root, r.Path, maxStoryRewrite)
		if err != nil {
			return &CleanupRefusedError{Err: fmt.Errorf("reset story %s: %w", r.ID, err)}
		}
		data, err := resetStatus(old, r)
		if err != nil {
			return &CleanupRefusedError{Err: fmt.Errorf("reset story %s: %w", r.ID, err)}
		}
		rewrites = append(rewrites, rewrite{r: r, old: old, data: data})
	}

	var undo []func() error
	fail := func(err error) error {
		var failed []string
		for i := len(undo) - 1; i >= 0; i-- {
			if uerr := undo[i](); uerr != nil {
				failed = append(failed, uerr.Error())
			}
		}
		if len(failed) > 0 {
			return fmt.Errorf("%w; undoing it failed too, check by hand: %s", err, strings.Join(failed, "; "))
		}
		return fmt.Errorf("%w; every change was undone", err)
	}
	hook := func(step string) error {
		if req.Failpoint == nil {
			return nil
		}
		return req.Failpoint(step)
	}

	for _, rw := range rewrites {
		rw := rw
		if err := atomicfile.WriteConfined(req.Root, rw.r.Path, rw.data, 0o644); err != nil {
			return fail(fmt.Errorf("reset story %s: %w", rw.r.ID, err))
		}
		undo = append(undo, func() error {
			if err := atomicfile.WriteConfined(req.Root, rw.r.Path, rw.old, 0o644); err != nil {
				return fmt.Errorf("restore story %s: %w", rw.r.Path, err)
			}
			return nil
		})
		if err := hook("cleanup-reset"); err != nil {
			return fail(fmt.Errorf("reset story %s: %w", rw.r.ID, err))
		}
	}
	for _, rel := range p.Archive {
		clean, err := safefile.CheckPath(req.Root, rel)
		if err != nil {
			return fail(fmt.Errorf("archive %s: %w", rel, err))
		}
		dst := p.ArchiveDir + "/" + clean
		made, err := mkdirsConfined(req.Root, path.Dir(dst))
		if len(made) > 0 {
			undo = append(undo, func() error { return removeDirs(req.Root, made) })
		}
		if err != nil {
			return fail(fmt.Errorf("archive %s: %w", rel, err))
		}
		if err := safefile.RenameConfined(req.Root, clean, dst); err != nil {
			return fail(fmt.Errorf("archive %s: %w", rel, err))
		}
		undo = append(undo, func() error {
			if err := safefile.RenameConfined(req.Root, dst, clean); err != nil {
				return fmt.Errorf("move %s back: %w", clean, err)
			}
			return nil
		})
		if err := hook("cleanup-archive"); err != nil {
			return fail(fmt.Errorf("archive %s: %w", rel, err))
		}
	}
	return nil
}

// resetStatus rewrites the status value on its line, keeping the rest of
// the story byte for byte.
func resetStatus(data []byte, r StoryReset) ([]byte, error) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if r.Line < 1 || r.Line > len(lines) {
		return nil, fmt.Errorf("status line %d is out of range", r.Line)
	}
	line := lines[r.Line-1]
	i := bytes.Index(line, []byte(r.Raw))
	if i < 0 {
		return nil, fmt.Errorf("the status %q is no longer on line %d", r.Raw, r.Line)
	}
	lines[r.Line-1] = append(append(append([]byte{}, line[:i]...), r.To...), line[i+len(r.Raw):]...)
	return bytes.Join(lines, nil), nil
}

// mkdirsConfined makes folder rel and its missing parents without following
// a symlink, and returns the folders it made, outermost first.
func mkdirsConfined(root, rel string) ([]string, error) {
	var missing []string
	for d := rel; d != "." && d != "/" && d != ""; d = path.Dir(d) {
		dir, err := safefile.OpenDir(root, d, false)
		if err == nil {
			_ = dir.Close()
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append([]string{d}, missing...)
	}
	if err := safefile.MkdirAllConfined(root, rel); err != nil {
		return missing, err
	}
	return missing, nil
}

// removeDirs removes the folders made (outermost first), innermost first;
// a folder already gone is fine.
func removeDirs(root string, made []string) error {
	for i := len(made) - 1; i >= 0; i-- {
		d, name, err := safefile.OpenParent(root, made[i], false)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return fmt.Errorf("remove folder %s: %w", made[i], err)
		}
		err = d.RemoveEmptyDir(name)
		_ = d.Close()
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove folder %s: %w", made[i], err)
		}
	}
	return nil
}

// orDash is s, or "-" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
