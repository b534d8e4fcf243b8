package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/orchestrate-dev/orchestrate/app/cli/jsondoc"
	"github.com/orchestrate-dev/orchestrate/discover"
	"github.com/orchestrate-dev/orchestrate/discover/worksession"
	"github.com/orchestrate-dev/orchestrate/templates"
)

// WorkDoneOptions are the dependencies and flags of `orchestrate work done`.
type WorkDoneOptions struct {
	Deps    Deps
	Cookie  string
	Summary string
	JSON    bool
}

func (a *app) newWorkCmd() *cobra.Command {
	cmd := a.newCmd(cmdSpec{Use: "work", Short: "Close work sessions"}, nil, nil)
	cmd.AddCommand(a.newWorkDoneCmd())
	return cmd
}

// workDoneHelp is the help of `orchestrate work done`.
const workDoneHelp = `Close the active work session (status closed, closed_at). A subtask's session
(parent_wsession_id) leaves {wsession_id, task_id, summary, status completed, closed_at}
in its parent's subtasks, replacing the entry it had there; the parent is written first,
then the subtask, and the parent is put back if the second write fails. A session
without a parent keeps its summary in its own file. Every other field of both files is
kept.

` + cookieHelp

func (a *app) newWorkDoneCmd() *cobra.Command {
	opts := &WorkDoneOptions{}
	cmd := a.newCmd(cmdSpec{Use: "done --cookie WSID --summary TEXT", Short: "Close the active work session and report its summary to its parent", Long: workDoneHelp,
		Exit: `0 closed, 1 I/O or an unusable work-session file (a parent with no file),
2 wrong cookie or empty summary (nothing written).`,
	}, &opts.Deps, func(a *app, _ []string) error { return a.runWorkDone(opts) })
	cmd.Flags().StringVar(&opts.Cookie, "cookie", "", "the active work session's id")
	cmd.Flags().StringVar(&opts.Summary, "summary", "", "what the session found or did")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print what was written as JSON")
	return cmd
}

func (a *app) runWorkDone(opts *WorkDoneOptions) error {
	got, err := onWorkSession(a, func(r *discover.Repo) (worksession.ClosedSession, error) {
		return worksession.CloseWorkSession(r, opts.Cookie, opts.Summary, a.sys.Now())
	})
	switch {
	case err != nil:
		return err
	case opts.JSON:
		return jsondoc.Write(a.sys.IO.Out, map[string]any{
			"work_session": got.Session, "path": got.Path, "task_id": got.TaskID,
			"status": "closed", "closed_at": got.ClosedAt,
			"parent": got.Parent, "parent_path": got.ParentPath,
		})
	}
	task := ""
	if got.TaskID != "" {
		task = " (task " + got.TaskID + ")"
	}
	if got.Parent == "" {
		_, err = fmt.Fprintf(a.sys.IO.Out, "Closed work session %s%s; its summary is recorded in %s.\n", templates.Safe(got.Session), templates.Safe(task), templates.Safe(got.Path))
		return err
	}
	_, err = fmt.Fprintf(a.sys.IO.Out, "Closed work session %s%s; summary sent to the parent work session %s.\n", templates.Safe(got.Session), templates.Safe(task), templates.Safe(got.Parent))
	return err
}
