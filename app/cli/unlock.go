package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/app/resumeflow"
	"github.com/orchestrate-dev/orchestrate/discover"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/sharedlife"
	"github.com/orchestrate-dev/orchestrate/templates"
)

// UnlockOptions are the dependencies and flags of `orchestrate unlock`.
type UnlockOptions struct {
	Deps     Deps
	Workflow string
	Force    bool
}

// unlockHelp is the help of `orchestrate unlock`.
const unlockHelp = `Remove the lock .orchestrate/locks/<id>.lock of a workflow whose resume died. A lock
held by a live process is left alone unless --force is given.`

func (a *app) newUnlockCmd() *cobra.Command {
	opts := &UnlockOptions{}
	cmd := a.newCmd(cmdSpec{Use: "unlock WORKFLOW", Short: "Remove a stale resume lock", Long: unlockHelp,
		Exit: `0 removed (or there was none), 2 usage, 14 no such workflow or lock,
16 held by a live process (pass --force).`,
		Args: cmdutil.OneWorkflow(true),
	}, &opts.Deps, func(a *app, args []string) error {
		opts.Workflow = args[0]
		return a.runUnlock(opts)
	})
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
		return cmdutil.Usagef("%q is ambiguous: %d workflows match", opts.Workflow, len(m))
	}
	// lifecycle.remote: the shared lock first (never the local one alone)
	removedShared, err := a.unlockShared(s, id, opts.Force)
	if err != nil {
		return err
	}
	st := handoff.Inspect(s.Root, id)
	if !st.Exists && removedShared {
		return nil
	}
	if !st.Exists {
		if len(discover.Lookup(s.Res.Candidates, opts.Workflow)) == 0 {
			return cmdutil.Exitf(cmdutil.ExitNotFound, "no workflow or lock matches %q", opts.Workflow)
		}
		fmt.Fprintf(a.sys.IO.Out, "%s is not locked.\n", templates.Safe(id))
		return nil
	}
	owner := fmt.Sprintf("pid %d on %s (user %s, since %s)", st.Owner.PID, st.Owner.Host, st.Owner.User, st.Owner.StartedAt.Format(time.RFC3339))
	switch resumeflow.UnlockLocal(st, opts.Force) {
	case resumeflow.UnlockUntrusted:
		return cmdutil.Exitf(cmdutil.ExitLocked, "the lock of %s is not trusted (%s); it was left in place: check it, then pass --force to remove it", id, st.Reason)
	case resumeflow.UnlockLive:
		return cmdutil.Exitf(cmdutil.ExitLocked, "%s is locked by a live process: %s; pass --force to remove the lock anyway", id, owner)
	}
	if err := handoff.Remove(s.Root, id, opts.Force); err != nil {
		return err
	}
	fmt.Fprintf(a.sys.IO.Out, "Removed the %s lock of %s: %s.\n", templates.Safe(resumeflow.UnlockedWord(st)), templates.Safe(id), templates.Safe(owner))
	// a log that cannot be written is a warning: the lock is gone either way
	if err := resumeflow.LogUnlock(s.Root, s.LogPath(), id, st, opts.Force, a.lockInfo()); err != nil {
		fmt.Fprintf(a.sys.IO.ErrOut, "warning: %s\n", cmdutil.SafeErr(err))
	}
	return nil
}

// unlockShared removes workflow id's lock on the shared lifecycle
// (lifecycle.remote): one whose lease ended, or any with force. It reports
// whether it removed one; an unusable remote is exit 20.
func (a *app) unlockShared(s *loadedRepo, id string, force bool) (bool, error) {
	sh := a.sharedLifecycle(s)
	if !sh.on() {
		return false, nil
	}
	if sh.err != nil {
		return false, cmdutil.Exitf(cmdutil.ExitShared, "%v", sharedUnusable(sh.err))
	}
	l, verdict := resumeflow.UnlockShared(sh.view, id, s.Now, force)
	switch verdict {
	case resumeflow.UnlockNone:
		return false, nil
	case resumeflow.UnlockLive:
		return false, cmdutil.Exitf(cmdutil.ExitLocked, "%v; pass --force to remove it anyway", &sharedlife.HeldError{Workflow: id, Holder: l})
	}
	if _, err := sh.store.RemoveLock(sh.view.View, id); err != nil {
		return false, cmdutil.Exitf(cmdutil.ExitShared, "%v", sharedUnusable(err))
	}
	state := "expired"
	if l.Live(s.Now) {
		state = "live (forced)"
	}
	fmt.Fprintf(a.sys.IO.Out, "Removed the shared lock of %s on %s (%s): %s.\n", templates.Safe(id), templates.Safe(sh.view.Remote), state, templates.Safe(l.Runner.String()))
	return true, nil
}
