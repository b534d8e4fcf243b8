package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/app/cli/jsondoc"
	"github.com/orchestrate-dev/orchestrate/app/cli/views"
	"github.com/orchestrate-dev/orchestrate/app/resumeflow"
	"github.com/orchestrate-dev/orchestrate/discover"
	"github.com/orchestrate-dev/orchestrate/handoff/cleanup"
	"github.com/orchestrate-dev/orchestrate/templates"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// CleanupOptions are the dependencies and flags of `orchestrate cleanup`.
type CleanupOptions struct {
	Deps     Deps
	Workflow string
	DryRun   bool
	Yes      bool
	JSON     bool
}

// cleanupHelp is the help of `orchestrate cleanup`.
const cleanupHelp = `When you decide not to resume a workflow: move its state file (and .bak twin) to
.orchestrate/archive/, reset the stories it left InProgress or InReview to Ready, and log
it. Asks for confirmation unless --yes; --dry-run only shows what it would do.

cleanup never deletes, moves or rewrites a file another workflow reads: the files of
Taskmaster (tasks.json), BMAD v6 (the sprint ledger and its stories), spec-kit (tasks.md)
and GSD (.planning/) hold more than one workflow or finished work, so their cleanup is
refused (exit 17) with what to do instead in the framework's own terms; a story another
workflow reads is left as it is.`

func (a *app) newCleanupCmd() *cobra.Command {
	opts := &CleanupOptions{}
	cmd := a.newCmd(cmdSpec{Use: "cleanup WORKFLOW", Short: "Archive a stale workflow state and reset its stories", Long: cleanupHelp,
		Exit: `0 done (or dry run), 2 usage, 10 declined, 14 no such workflow,
16 a live resume holds its lock, 17 refused (nothing changed), 19 confirmation needed and
no terminal (pass --yes).`,
		Args: cmdutil.OneWorkflow(false),
	}, &opts.Deps, func(a *app, args []string) error {
		if len(args) == 0 {
			// no WORKFLOW: name the ones it could act on (exit 2)
			return a.cleanupCandidates()
		}
		opts.Workflow = args[0]
		return a.runCleanup(opts)
	})
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "show what would be done, change nothing")
	cmd.Flags().BoolVar(&opts.Yes, "yes", false, "do not ask for confirmation")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON document (schema orchestrate/v1), the refusal or error included")
	return cmd
}

// cleanupCandidates is the usage error of `cleanup` without a WORKFLOW: it
// lists the interrupted workflows cleanup could act on, each one that would
// be refused (its files are a framework's shared files) said as such.
func (a *app) cleanupCandidates() error {
	s, err := a.load()
	if err != nil {
		return err
	}
	all := s.Resumable()
	if len(all) == 0 {
		return cmdutil.CmdLineError(errors.New("cleanup: name the WORKFLOW to clean up; no interrupted workflow was found (orchestrate status --all lists every saved state)"))
	}
	lines := []string{"cleanup: name the WORKFLOW to clean up; the interrupted workflows are:"}
	for _, c := range all {
		line := "  " + c.ID + "  " + views.CandidateLabel(c)
		if !c.UpdatedAt.IsZero() {
			line += ", " + templates.Duration(s.Now.Sub(c.UpdatedAt)) + " ago"
		}
		if p := cleanup.PlanCleanupAmong(c, s.Res.Candidates, s.Res.Stories, s.Now); p.Refusal != nil {
			line += " -- refused: " + p.Refusal.Reason
		}
		lines = append(lines, line)
	}
	lines = append(lines, "For example: orchestrate cleanup "+templates.ShellWord(all[0].ID)+" --dry-run")
	return cmdutil.CmdLineError(cmdutil.LinesError(lines))
}

func (a *app) runCleanup(opts *CleanupOptions) error {
	s, err := a.load()
	if err != nil {
		return err
	}
	matches := discover.Lookup(s.Res.Candidates, opts.Workflow)
	switch {
	case len(matches) == 0:
		return cmdutil.Exitf(cmdutil.ExitNotFound, "no workflow matches %q (orchestrate status --all lists them)", opts.Workflow)
	case len(matches) > 1:
		var ids []string
		for _, c := range matches {
			ids = append(ids, c.ID)
		}
		return cmdutil.Usagef("%q is ambiguous: it matches %s", opts.Workflow, strings.Join(ids, ", "))
	}
	c := matches[0]
	p := cleanup.PlanCleanupAmong(c, s.Res.Candidates, s.Res.Stories, s.Now)
	doc := jsondoc.NewCleanup(p, opts.DryRun)
	// finish ends the run with outcome and code: the --json document (with
	// the error, if any) on stdout, the message on stderr
	finish := func(outcome string, code int, err error) error {
		doc.Outcome, doc.ExitCode = outcome, code
		if err != nil {
			msg := cmdutil.SafeErr(err)
			doc.Error = &msg
		}
		if opts.JSON {
			if jerr := jsondoc.Write(a.sys.IO.Out, doc); jerr != nil {
				return jerr
			}
		}
		if err != nil {
			return &cmdutil.ExitErr{Code: code, Err: err}
		}
		if code != cmdutil.ExitOK {
			return cmdutil.Silent(code)
		}
		return nil
	}
	safe := templates.Safe
	out := a.sys.IO.Out
	if opts.JSON {
		out = io.Discard
	}
	// the decisions and their order are resumeflow.RunCleanup's; what it
	// reports is shown here
	show := func(ev resumeflow.CleanupEvent) {
		switch ev.Kind {
		case resumeflow.CleanupHeader:
			fmt.Fprintf(out, "=== Cleanup: %s (%s) ===\n\n", safe(c.ID), c.Type.Label())
		case resumeflow.CleanupRefusedShown:
			fmt.Fprintf(out, "Refused: %s.\n", safe(p.Refusal.Reason))
			fmt.Fprintf(out, "Instead: %s.\n", safe(p.Refusal.Instead))
			fmt.Fprintln(out, "\nNothing was changed.")
		case resumeflow.CleanupPlanShown:
			showCleanupPlan(out, p)
		case resumeflow.CleanupNothing:
			fmt.Fprintln(out, "\nNothing to clean up.")
		case resumeflow.CleanupDryRun:
			fmt.Fprintln(out, "\nDry run: nothing was changed.")
		case resumeflow.CleanupCancelled:
			fmt.Fprintln(a.sys.IO.ErrOut, "Cancelled: nothing was changed.")
		case resumeflow.CleanupLogFailed:
			fmt.Fprintf(a.sys.IO.ErrOut, "warning: %s\n", cmdutil.SafeErr(ev.Err))
		case resumeflow.CleanupDone:
			fmt.Fprintf(out, "\nCleaned up %s.", safe(c.ID))
			if len(p.Archive) > 0 {
				fmt.Fprintf(out, " The state is kept in %s.", safe(p.ArchiveDir))
			}
			fmt.Fprintf(out, "\nTo start fresh, run your orchestrator's workflow again for %s.\n", safe(storiesOrKey(c)))
		}
	}
	end, err := resumeflow.RunCleanup(resumeflow.Cleanup{
		Root: s.Root, LogPath: s.LogPath(), Plan: p, DryRun: opts.DryRun, Yes: opts.Yes,
		CanPrompt: a.sys.IO.CanPrompt(), Prompter: a.prompter(), Lock: a.lockInfo(),
		SharedLock: func() (func(), error) { return a.sharedCleanupLock(s, c.ID) },
		Show:       show,
	})
	if err != nil {
		return err
	}
	return finish(end.Outcome, end.Code, end.Err)
}

// showCleanupPlan prints what cleanup plan p archives, resets and leaves
// alone.
func showCleanupPlan(out io.Writer, p cleanup.CleanupPlan) {
	safe := templates.Safe
	if len(p.Archive) == 0 {
		fmt.Fprintln(out, "No state file to archive (this workflow is implied by its story or spec files).")
	} else {
		for _, f := range p.Archive {
			fmt.Fprintf(out, "Archive %s -> %s/%s\n", safe(f), safe(p.ArchiveDir), safe(f))
		}
	}
	if len(p.Resets) == 0 && len(p.Skipped) == 0 {
		fmt.Fprintln(out, "No story is left in a transitional status.")
	}
	for _, r := range p.Resets {
		fmt.Fprintf(out, "Reset story %s (%s): %s -> %s\n", safe(r.ID), safe(r.Path), safe(r.From), safe(r.To))
	}
	for _, k := range p.Skipped {
		fmt.Fprintf(out, "Leave story %s (%s) as it is: %s\n", safe(k.ID), safe(k.Path), safe(k.Why))
	}
}

func storiesOrKey(c workflow.Candidate) string {
	if len(c.Stories) > 0 {
		return "story " + strings.Join(c.Stories, ", ")
	}
	return c.Key
}
