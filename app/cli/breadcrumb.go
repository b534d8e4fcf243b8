package cli

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/app/cli/jsondoc"
	"github.com/orchestrate-dev/orchestrate/discover"
	"github.com/orchestrate-dev/orchestrate/discover/worksession"
	"github.com/orchestrate-dev/orchestrate/templates"
)

// BreadcrumbOptions are the dependencies and flags of `orchestrate breadcrumb add|list`.
type BreadcrumbOptions struct {
	Deps    Deps
	Cookie  string
	Message string
	JSON    bool
}

const cookieHelp = `The cookie is the id of the work session being worked on (docs/maestro/work_sessions/):
the active one (status active; when several are, the one worked on most
recently). A call naming another session, a paused or a closed one is rejected with the
expected cookie and writes nothing.`

// breadcrumbHelp is the help of `orchestrate breadcrumb`.
const breadcrumbHelp = `Record progress in the active work session, or list what was recorded.

` + cookieHelp

func (a *app) newBreadcrumbCmd() *cobra.Command {
	cmd := a.newCmd(cmdSpec{Use: "breadcrumb", Short: "Record or list progress in the active work session", Long: breadcrumbHelp}, nil, nil)
	cmd.AddCommand(a.newBreadcrumbAddCmd(), a.newBreadcrumbListCmd())
	return cmd
}

// breadcrumbAddHelp is the help of `orchestrate breadcrumb add`.
const breadcrumbAddHelp = `Append a breadcrumb {id, timestamp, message, ai_session_id} to the active work session's
breadcrumbs, keeping every other field of the file (an atomic, in-place edit).

The message is non-empty text or a JSON object; text starting with '{' must be a valid
JSON object, and JSON that is not an object (an array, a number, a quoted string) is
rejected.

` + cookieHelp

func (a *app) newBreadcrumbAddCmd() *cobra.Command {
	opts := &BreadcrumbOptions{}
	cmd := a.newCmd(cmdSpec{Use: "add --cookie WSID --message TEXT|JSON", Short: "Append a breadcrumb to the active work session", Long: breadcrumbAddHelp,
		Exit: `0 recorded, 1 I/O or an unusable work-session file, 2 wrong cookie or
malformed message (nothing written).`,
	}, &opts.Deps, func(a *app, _ []string) error { return a.runBreadcrumbAdd(opts) })
	cmd.Flags().StringVar(&opts.Cookie, "cookie", "", "the active work session's id")
	cmd.Flags().StringVar(&opts.Message, "message", "", "text, or a JSON object")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the breadcrumb recorded as JSON")
	return cmd
}

// breadcrumbListHelp is the help of `orchestrate breadcrumb list`.
const breadcrumbListHelp = `List the breadcrumbs of the active work session, oldest first (--json: the array as the
file records it).

` + cookieHelp

func (a *app) newBreadcrumbListCmd() *cobra.Command {
	opts := &BreadcrumbOptions{}
	cmd := a.newCmd(cmdSpec{Use: "list --cookie WSID [--json]", Short: "List the breadcrumbs of the active work session", Long: breadcrumbListHelp,
		Exit: `0 listed, 1 I/O, 2 wrong cookie.`,
	}, &opts.Deps, func(a *app, _ []string) error { return a.runBreadcrumbList(opts) })
	cmd.Flags().StringVar(&opts.Cookie, "cookie", "", "the active work session's id")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the breadcrumbs as a JSON array")
	return cmd
}

// workRepo resolves the repository and its configuration, without a
// discovery scan.
func (a *app) workRepo() (*discover.Repo, error) {
	loc, err := a.locate()
	root := loc.Root
	if err != nil {
		return nil, err
	}
	cl, err := a.loadConfig(root)
	if err != nil {
		return nil, err
	}
	return &discover.Repo{Root: root, Config: cl.Config}, nil
}

// workSessionErr maps a work-session error to its exit code: a wrong cookie
// or a malformed message is a usage error (2), the rest unexpected (1).
func workSessionErr(err error) error {
	var ce *worksession.CookieError
	var me *worksession.MessageError
	if errors.As(err, &ce) || errors.As(err, &me) {
		return &cmdutil.ExitErr{Code: cmdutil.ExitUsage, Err: err}
	}
	return err
}

// onWorkSession runs the work-session operation op on the repository
// (workRepo), its error mapped to an exit code (workSessionErr).
func onWorkSession[T any](a *app, op func(r *discover.Repo) (T, error)) (T, error) {
	var got T
	r, err := a.workRepo()
	if err != nil {
		return got, err
	}
	if got, err = op(r); err != nil {
		return got, workSessionErr(err)
	}
	return got, nil
}

func (a *app) runBreadcrumbAdd(opts *BreadcrumbOptions) error {
	got, err := onWorkSession(a, func(r *discover.Repo) (worksession.AddedBreadcrumb, error) {
		return worksession.AddBreadcrumb(r, opts.Cookie, opts.Message, a.sys.Now())
	})
	if err != nil {
		return err
	}
	if opts.JSON {
		return jsondoc.Write(a.sys.IO.Out, map[string]any{
			"work_session": got.Session, "path": got.Path, "breadcrumb": got.Entry,
		})
	}
	_, err = fmt.Fprintf(a.sys.IO.Out, "Breadcrumb %s added to %s.\n", templates.Safe(got.Entry.ID), templates.Safe(got.Session))
	return err
}

func (a *app) runBreadcrumbList(opts *BreadcrumbOptions) error {
	l, err := onWorkSession(a, func(r *discover.Repo) (worksession.BreadcrumbList, error) {
		return worksession.ListBreadcrumbs(r, opts.Cookie)
	})
	if err != nil {
		return err
	}
	if opts.JSON {
		raw := l.Raw
		if raw == nil {
			raw = []json.RawMessage{}
		}
		return jsondoc.Write(a.sys.IO.Out, raw)
	}
	if len(l.Lines) == 0 {
		_, err := fmt.Fprintf(a.sys.IO.Out, "No breadcrumbs in %s.\n", templates.Safe(l.Session))
		return err
	}
	// every field comes from the work-session file: redacted, one line each
	for _, b := range l.Lines {
		if _, err := fmt.Fprintf(a.sys.IO.Out, "%s  %s  %s\n", templates.Safe(orDashText(b.ID)), templates.Safe(orDashText(b.Timestamp)), templates.Safe(b.Message)); err != nil {
			return err
		}
	}
	return nil
}

func orDashText(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
