package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/orchestrate-dev/orchestrate/discover"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/logging"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/templates"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// CleanupOptions are the dependencies and flags of `orchestrate cleanup`.
type CleanupOptions struct {
	Deps     Deps
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
			opts.Deps = a.deps()
			return opts.Deps.app().runCleanup(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "show what would be done, change nothing")
	cmd.Flags().BoolVar(&opts.Yes, "yes", false, "do not ask for confirmation")
	return cmd
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
	p := handoff.PlanCleanup(c, s.Res.Stories, s.Now)

	safe := templates.Safe
	out := a.sys.IO.Out
	fmt.Fprintf(out, "=== Cleanup: %s (%s) ===\n\n", safe(c.ID), c.Type.Label())
	if len(p.Archive) == 0 {
		fmt.Fprintln(out, "No state file to archive (this workflow is implied by its story or spec files).")
	} else {
		for _, f := range p.Archive {
			fmt.Fprintf(out, "Archive %s -> %s/%s\n", safe(f), safe(p.ArchiveDir), safe(f))
		}
	}
	if len(p.Resets) == 0 {
		fmt.Fprintln(out, "No story is left in a transitional status.")
	}
	for _, r := range p.Resets {
		fmt.Fprintf(out, "Reset story %s (%s): %s -> %s\n", safe(r.ID), safe(r.Path), safe(r.From), safe(r.To))
	}
	if p.Empty() {
		fmt.Fprintln(out, "\nNothing to clean up.")
		return nil
	}
	// Every path is checked before anything changes: a symlinked
	// .orchestrate, archive folder, state or story (or one that is not a
	// regular file) refuses the whole cleanup.
	if err := handoff.CheckCleanup(s.Root, p); err != nil {
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
		ok, err := a.prompter().Confirm(fmt.Sprintf("Archive the state and reset %d %s?", len(p.Resets), map[bool]string{true: "story", false: "stories"}[len(p.Resets) == 1]), false)
		if err != nil || !ok {
			if err != nil && !errors.Is(err, modes.ErrInterrupted) {
				return err
			}
			fmt.Fprintln(a.sys.IO.ErrOut, "Cancelled: nothing was changed.")
			return silent(ExitDeclined)
		}
	}

	// With lifecycle.remote, under the shared lock too (exit 16 or 20).
	release, err := a.sharedCleanupLock(s, c.ID)
	if err != nil {
		return err
	}
	defer release()
	// The work itself happens under the workflow's lock, all or nothing.
	err = handoff.Cleanup(handoff.CleanupRequest{Root: s.Root, Plan: p, Lock: a.lockInfo()})
	var locked *handoff.LockedError
	var refused *handoff.CleanupRefusedError
	switch {
	case errors.As(err, &locked):
		return exitf(ExitLocked, "%s: not cleaning it up: %v", c.ID, err)
	case errors.As(err, &refused):
		return exitf(ExitCannot, "cleanup refused: %v; nothing was changed", err)
	case err != nil:
		return exitf(ExitError, "%v", err)
	}
	if l, err := logging.OpenActionLogIn(s.Root, s.LogPath()); err == nil {
		var ids []string
		for _, r := range p.Resets {
			ids = append(ids, r.ID)
		}
		l.WithFields(map[string]any{
			"event": "cleanup", "workflow": c.ID, "type": string(c.Type), "state_source": c.Source.Path,
			"archive": p.ArchiveDir, "stories_reset": strings.Join(ids, ","),
		}).Info("workflow state archived")
		_ = l.Close()
	} else {
		fmt.Fprintf(a.sys.IO.ErrOut, "warning: %s\n", safeErr(err))
	}
	fmt.Fprintf(out, "\nCleaned up %s.", safe(c.ID))
	if len(p.Archive) > 0 {
		fmt.Fprintf(out, " The state is kept in %s.", safe(p.ArchiveDir))
	}
	fmt.Fprintf(out, "\nTo start fresh, run your orchestrator's workflow again for %s.\n", safe(storiesOrKey(c)))
	return nil
}

func storiesOrKey(c workflow.Candidate) string {
	if len(c.Stories) > 0 {
		return "story " + strings.Join(c.Stories, ", ")
	}
	return c.Key
}
