package handoff

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

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

// CleanupPlan is what cleaning up one workflow does: move its state files
// (the state and its .bak twin) under ArchiveDir, and reset the stories it
// left in a transitional status to Ready.
type CleanupPlan struct {
	Candidate  workflow.Candidate
	Archive    []string // repository-relative state files to move
	ArchiveDir string   // repository-relative folder they move under
	Resets     []StoryReset
}

// Empty reports whether the plan changes nothing.
func (p CleanupPlan) Empty() bool { return len(p.Archive) == 0 && len(p.Resets) == 0 }

// maxStoryRewrite is the largest story file cleanup rewrites.
const maxStoryRewrite = 16 << 20

// PlanCleanup works out the cleanup of candidate c at time now: its state
// file and .bak twin are archived (stories and spec folders are project
// files, never moved) under .orchestrate/archive/<time>-<id>/, and each of
// its stories in InProgress or InReview is reset to Ready.
func PlanCleanup(c workflow.Candidate, stories map[string]*workflow.Story, now time.Time) CleanupPlan {
	p := CleanupPlan{Candidate: c}
	if c.Source.Kind != workflow.KindStory && c.Source.Kind != workflow.KindSpec {
		p.Archive = append(p.Archive, c.Source.Path)
		if c.BackupPath != "" {
			p.Archive = append(p.Archive, c.BackupPath)
		}
	}
	p.ArchiveDir = ".orchestrate/archive/" + now.UTC().Format("20060102T150405Z") + "-" + SafeID(c.ID)
	for _, id := range c.Stories {
		st, ok := stories[id]
		if !ok || st == nil || (st.Status != workflow.StatusInProgress && st.Status != workflow.StatusInReview) || st.StatusLine == 0 || st.StatusRaw == "" {
			continue
		}
		p.Resets = append(p.Resets, StoryReset{ID: id, Path: st.Path, From: string(st.Status), To: string(workflow.StatusReady), Line: st.StatusLine, Raw: st.StatusRaw})
	}
	return p
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
	Lock LockInfo
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
// resume: a live (or untrusted) lock gives *LockedError and changes
// nothing; a stale one is taken over. The paths are checked again under the
// lock. Then every story is reset and every state file archived, all or
// nothing: on any failure each change made is undone in reverse order (the
// stories get their bytes back, the files move back, the archive folders
// made are removed) and the error says so. The lock is released on every
// path out.
func Cleanup(req CleanupRequest) (err error) {
	p := req.Plan
	id := p.Candidate.ID
	lock, err := Acquire(req.Root, id, req.Lock, true)
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
