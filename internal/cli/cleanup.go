package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/orchestrate-dev/orchestrate/discover"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/atomicfile"
	"github.com/orchestrate-dev/orchestrate/internal/logging"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// CleanupOptions are the flags of `orchestrate cleanup`.
type CleanupOptions struct {
	Workflow string
	DryRun   bool
	Yes      bool
}

func (a *app) newCleanupCmd() *cobra.Command {
	opts := &CleanupOptions{}
	cmd := &cobra.Command{
		Use:   "cleanup WORKFLOW",
		Short: "Archive a stale workflow state and reset its stories",
		Long: `When you decide not to resume a workflow: move its state file (and .bak twin) to
.orchestrate/archive/, reset the stories it left InProgress or InReview to Ready, and log
it. Asks for confirmation unless --yes; --dry-run only shows what it would do.

Exit codes: 0 done (or dry run), 2 usage, 10 declined, 14 no such workflow,
16 a live resume holds its lock, 19 confirmation needed and no terminal (pass --yes).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("cleanup: want exactly one WORKFLOW, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Workflow = args[0]
			return a.runCleanup(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "show what would be done, change nothing")
	cmd.Flags().BoolVar(&opts.Yes, "yes", false, "do not ask for confirmation")
	return cmd
}

// storyReset is one story status cleanup would reset.
type storyReset struct {
	ID, Path, From, To string
	Line               int
	Raw                string
}

func (a *app) runCleanup(opts *CleanupOptions) error {
	s, err := a.load()
	if err != nil {
		return err
	}
	matches := discover.Lookup(s.Res.Candidates, opts.Workflow)
	switch {
	case len(matches) == 0:
		return exitf(ExitNotFound, "no workflow matches %q (orchestrate status --all lists them)", opts.Workflow)
	case len(matches) > 1:
		var ids []string
		for _, c := range matches {
			ids = append(ids, c.ID)
		}
		return usagef("%q is ambiguous: it matches %s", opts.Workflow, strings.Join(ids, ", "))
	}
	c := matches[0]
	if st := handoff.Inspect(s.Root, c.ID); st.Exists && st.Live {
		return exitf(ExitLocked, "%s is being resumed right now (pid %d on %s): not cleaning it up", c.ID, st.Owner.PID, st.Owner.Host)
	}

	// What would be archived: the state file and its .bak twin (stories and
	// spec folders are project files, never moved).
	var archive []string
	if c.Source.Kind != workflow.KindStory && c.Source.Kind != workflow.KindSpec {
		archive = append(archive, c.Source.Path)
		if c.BackupPath != "" {
			archive = append(archive, c.BackupPath)
		}
	}
	stamp := s.Now.UTC().Format("20060102T150405Z")
	archiveDir := filepath.ToSlash(filepath.Join(".orchestrate", "archive", stamp+"-"+safeName(c.ID)))

	// Which stories are left in a transitional status.
	var resets []storyReset
	for _, id := range c.Stories {
		st, ok := s.Res.Stories[id]
		if !ok || (st.Status != workflow.StatusInProgress && st.Status != workflow.StatusInReview) || st.StatusLine == 0 || st.StatusRaw == "" {
			continue
		}
		resets = append(resets, storyReset{ID: id, Path: st.Path, From: string(st.Status), To: string(workflow.StatusReady), Line: st.StatusLine, Raw: st.StatusRaw})
	}

	out := a.sys.IO.Out
	fmt.Fprintf(out, "=== Cleanup: %s (%s) ===\n\n", c.ID, c.Type.Label())
	if len(archive) == 0 {
		fmt.Fprintln(out, "No state file to archive (this workflow is implied by its story or spec files).")
	} else {
		for _, p := range archive {
			fmt.Fprintf(out, "Archive %s -> %s/%s\n", p, archiveDir, p)
		}
	}
	if len(resets) == 0 {
		fmt.Fprintln(out, "No story is left in a transitional status.")
	}
	for _, r := range resets {
		fmt.Fprintf(out, "Reset story %s (%s): %s -> %s\n", r.ID, r.Path, r.From, r.To)
	}
	if len(archive) == 0 && len(resets) == 0 {
		fmt.Fprintln(out, "\nNothing to clean up.")
		return nil
	}
	// Every path is checked before anything changes: a symlinked
	// .orchestrate, archive folder, state or story (or one that is not a
	// regular file) refuses the whole cleanup.
	if err := checkCleanupPaths(s.Root, archive, archiveDir, resets); err != nil {
		return exitf(ExitCannot, "cleanup refused: %v; nothing was changed", err)
	}
	if opts.DryRun {
		fmt.Fprintln(out, "\nDry run: nothing was changed.")
		return nil
	}
	if !opts.Yes {
		if !a.sys.IO.CanPrompt() {
			return exitf(ExitNoTTY, "cleanup needs confirmation and there is no terminal: pass --yes")
		}
		ok, err := a.prompter().Confirm(fmt.Sprintf("Archive the state and reset %d %s?", len(resets), map[bool]string{true: "story", false: "stories"}[len(resets) == 1]), false)
		if err != nil || !ok {
			if err != nil && !errors.Is(err, modes.ErrInterrupted) {
				return err
			}
			fmt.Fprintln(a.sys.IO.ErrOut, "Cancelled: nothing was changed.")
			return silent(ExitDeclined)
		}
	}

	for _, r := range resets {
		if err := resetStoryStatus(s.Root, r); err != nil {
			return exitf(ExitError, "reset story %s: %v", r.ID, err)
		}
	}
	for _, p := range archive {
		if err := archiveFile(s.Root, p, archiveDir); err != nil {
			return exitf(ExitError, "archive %s: %v", p, err)
		}
	}
	if l, err := logging.OpenActionLogIn(s.Root, s.LogPath()); err == nil {
		var ids []string
		for _, r := range resets {
			ids = append(ids, r.ID)
		}
		l.WithFields(map[string]any{
			"event": "cleanup", "workflow": c.ID, "type": string(c.Type), "state_source": c.Source.Path,
			"archive": archiveDir, "stories_reset": strings.Join(ids, ","),
		}).Info("workflow state archived")
		_ = l.Close()
	} else {
		fmt.Fprintf(a.sys.IO.ErrOut, "warning: %v\n", err)
	}
	fmt.Fprintf(out, "\nCleaned up %s.", c.ID)
	if len(archive) > 0 {
		fmt.Fprintf(out, " The state is kept in %s.", archiveDir)
	}
	fmt.Fprintf(out, "\nTo start fresh, run your orchestrator's workflow again for %s.\n", storiesOrKey(c))
	return nil
}

func storiesOrKey(c workflow.Candidate) string {
	if len(c.Stories) > 0 {
		return "story " + strings.Join(c.Stories, ", ")
	}
	return c.Key
}

// safeName makes an id usable as a file name.
func safeName(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// resetStoryStatus rewrites the status value on its line, keeping the rest
// of the story byte for byte.
func resetStoryStatus(root string, r storyReset) error {
	data, err := safefile.ReadConfined(root, r.Path, maxStoryRewrite)
	if err != nil {
		return err
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if r.Line < 1 || r.Line > len(lines) {
		return fmt.Errorf("status line %d is out of range", r.Line)
	}
	line := lines[r.Line-1]
	i := bytes.Index(line, []byte(r.Raw))
	if i < 0 {
		return fmt.Errorf("the status %q is no longer on line %d", r.Raw, r.Line)
	}
	lines[r.Line-1] = append(append(append([]byte{}, line[:i]...), r.To...), line[i+len(r.Raw):]...)
	return atomicfile.WriteConfined(root, r.Path, bytes.Join(lines, nil), 0o644)
}

// maxStoryRewrite is the largest story file cleanup rewrites.
const maxStoryRewrite = 16 << 20

// checkCleanupPaths refuses, before anything is changed, a cleanup whose
// files or archive folder cannot be reached without following a symlink:
// each file to archive and each story to reset must be a regular file whose
// every folder is a real folder inside root, and the existing part of the
// archive folder must be real folders too (docs/SECURITY.md).
func checkCleanupPaths(root string, archive []string, archiveDir string, resets []storyReset) error {
	check := func(p string) error {
		d, name, err := safefile.OpenParent(root, p, false)
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
			return &safefile.RefusedError{Path: p, What: what, Kind: safefile.ErrNotFile}
		}
		return nil
	}
	for _, p := range archive {
		if err := check(p); err != nil {
			return err
		}
	}
	for _, r := range resets {
		if err := check(r.Path); err != nil {
			return err
		}
	}
	d, err := safefile.OpenDir(root, archiveDir, false)
	if err == nil {
		return d.Close()
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil // made when archiving, without following symlinks
	}
	return err
}

// archiveFile moves root/p to root/archiveDir/p, every folder on both
// sides reached (and made) without following a symlink.
func archiveFile(root, p, archiveDir string) error {
	clean, err := safefile.CheckPath(root, p)
	if err != nil {
		return err
	}
	dst := archiveDir + "/" + clean
	if err := safefile.MkdirAllConfined(root, path.Dir(dst)); err != nil {
		return err
	}
	return safefile.RenameConfined(root, clean, dst)
}
