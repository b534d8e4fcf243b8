package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/orchestrate-dev/orchestrate/discover"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/logging"
	"github.com/orchestrate-dev/orchestrate/templates"
)

// UnlockOptions are the dependencies and flags of `orchestrate unlock`.
type UnlockOptions struct {
	Deps     Deps
	Workflow string
	Force    bool
}

func (a *app) newUnlockCmd() *cobra.Command {
	opts := &UnlockOptions{}
	cmd := &cobra.Command{
		Use:   "unlock WORKFLOW",
		Short: "Remove a stale resume lock",
		Long: `Remove the lock .orchestrate/locks/<id>.lock of a workflow whose resume died. A lock
held by a live process is left alone unless --force is given.

Exit codes: 0 removed (or there was none), 2 usage, 14 no such workflow or lock,
16 held by a live process (pass --force).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("unlock: want exactly one WORKFLOW, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Workflow = args[0]
			opts.Deps = a.deps()
			return opts.Deps.app().runUnlock(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "remove the lock even if its process looks alive")
	return cmd
}

func (a *app) runUnlock(opts *UnlockOptions) error {
	s, err := a.load()
	if err != nil {
		return err
	}
	id := opts.Workflow
	if m := discover.Lookup(s.Res.Candidates, opts.Workflow); len(m) == 1 {
		id = m[0].ID
	} else if len(m) > 1 {
		return usagef("%q is ambiguous: %d workflows match", opts.Workflow, len(m))
	}
	st := handoff.Inspect(s.Root, id)
	if !st.Exists {
		if len(discover.Lookup(s.Res.Candidates, opts.Workflow)) == 0 {
			return exitf(ExitNotFound, "no workflow or lock matches %q", opts.Workflow)
		}
		fmt.Fprintf(a.sys.IO.Out, "%s is not locked.\n", templates.Safe(id))
		return nil
	}
	owner := fmt.Sprintf("pid %d on %s (user %s, since %s)", st.Owner.PID, st.Owner.Host, st.Owner.User, st.Owner.StartedAt.Format(time.RFC3339))
	if st.Live && !opts.Force && st.Reason != "" {
		return exitf(ExitLocked, "the lock of %s is not trusted (%s); it was left in place: check it, then pass --force to remove it", id, st.Reason)
	}
	if st.Live && !opts.Force {
		return exitf(ExitLocked, "%s is locked by a live process: %s; pass --force to remove the lock anyway", id, owner)
	}
	if err := handoff.Remove(s.Root, id, opts.Force); err != nil {
		return err
	}
	state := "stale"
	if st.Live {
		state = "live (forced)"
	}
	if st.Reason != "" {
		state += ", " + st.Reason
	}
	fmt.Fprintf(a.sys.IO.Out, "Removed the %s lock of %s: %s.\n", templates.Safe(state), templates.Safe(id), templates.Safe(owner))
	a.logUnlock(s, id, st, opts.Force)
	return nil
}

// logUnlock records a removed lock in the orchestration log, as every
// other action is: the workflow, who removed it, whose lock it was, and
// whether it was stale, live and forced, or untrusted. A log that cannot
// be written is a warning: the lock is gone either way.
func (a *app) logUnlock(s *session, id string, st handoff.LockState, force bool) {
	l, err := logging.OpenActionLogIn(s.Root, s.LogPath())
	if err != nil {
		fmt.Fprintf(a.sys.IO.ErrOut, "warning: %s\n", safeErr(err))
		return
	}
	defer l.Close()
	me := a.lockInfo()
	lock := "stale"
	switch {
	case st.Reason != "":
		lock = "untrusted"
	case st.Live:
		lock = "live"
	}
	msg := "stale lock removed"
	if st.Live {
		msg = lock + " lock removed with --force"
	}
	l.WithFields(map[string]any{
		"event": "unlock", "workflow": id, "lock": lock, "forced": force && st.Live,
		"by_user": me.User, "by_host": me.Host, "by_pid": me.PID,
		"owner_user": st.Owner.User, "owner_host": st.Owner.Host, "owner_pid": st.Owner.PID,
		"owner_since": st.Owner.StartedAt.UTC().Format(time.RFC3339), "reason": st.Reason,
	}).Info(msg)
}
