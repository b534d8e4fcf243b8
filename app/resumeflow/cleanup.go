package resumeflow

import (
	"errors"
	"fmt"
	"strings"

	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/handoff/cleanup"
	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/internal/logging"
	"github.com/orchestrate-dev/orchestrate/modes"
)

// CleanupEventKind says what a CleanupEvent reports.
type CleanupEventKind int

// The events of a cleanup, in the order they can come.
const (
	// CleanupHeader: the cleanup of the workflow begins (nothing is locked).
	CleanupHeader CleanupEventKind = iota + 1
	// CleanupRefusedShown: the plan is refused as a whole (Plan.Refusal).
	CleanupRefusedShown
	// CleanupPlanShown: what would be archived, reset and left alone.
	CleanupPlanShown
	// CleanupNothing: there is nothing to clean up.
	CleanupNothing
	// CleanupDryRun: a dry run stops here.
	CleanupDryRun
	// CleanupCancelled: the user declined.
	CleanupCancelled
	// CleanupLogFailed: the orchestration log could not be written (Err);
	// the cleanup is done.
	CleanupLogFailed
	// CleanupDone: the state was archived and the stories reset.
	CleanupDone
)

// CleanupEvent is one thing a cleanup reports on the way.
type CleanupEvent struct {
	Kind CleanupEventKind
	Err  error
}

// Cleanup is one `orchestrate cleanup` of a workflow: its plan
// (cleanup.PlanCleanupAmong), the flags, the terminal, and the command
// layer's pieces (the shared lock, where events are shown).
type Cleanup struct {
	Root    string
	LogPath string
	Plan    cleanup.CleanupPlan
	DryRun  bool
	Yes     bool
	// CanPrompt: stdin and stderr are terminals; Prompter asks there.
	CanPrompt bool
	Prompter  modes.Prompter
	Lock      handoff.LockInfo
	// SharedLock takes the workflow's shared lock when lifecycle.remote is
	// on and returns what releases it; its error ends the run as it is
	// (exit 16 or 20). Nil: no shared lifecycle.
	SharedLock func() (release func(), err error)
	// Show shows ev (never nil).
	Show func(ev CleanupEvent)
}

// CleanupEnd is how a cleanup ended: the --json outcome, the exit code,
// and the message when there is one.
type CleanupEnd struct {
	Outcome string
	Code    int
	Err     error
}

// CleanupQuestion is the confirmation a cleanup asks for plan p.
func CleanupQuestion(p cleanup.CleanupPlan) string {
	return fmt.Sprintf("Archive the state and reset %d %s?", len(p.Resets), map[bool]string{true: "story", false: "stories"}[len(p.Resets) == 1])
}

// RunCleanup is the cleanup state machine: refused while a live resume
// holds the lock (exit 16); refused as a whole when the files are another
// workflow's too (exit 17); nothing to do; every path checked before
// anything changes (exit 17); a dry run stops; the confirmation (--yes, or
// exit 19 without a terminal, exit 10 declined); the shared lock; the
// cleanup itself under the workflow's lock, all or nothing; the log. An
// error is returned as it is (a prompt that failed, the shared lock's
// refusal); everything else is the End.
func RunCleanup(c Cleanup) (CleanupEnd, error) {
	p := c.Plan
	id := p.Candidate.ID
	if st := handoff.Inspect(c.Root, id); st.Exists && st.Live {
		return CleanupEnd{"locked", int(exitcode.Locked), fmt.Errorf("%s is being resumed right now (pid %d on %s): not cleaning it up", id, st.Owner.PID, st.Owner.Host)}, nil
	}
	c.Show(CleanupEvent{Kind: CleanupHeader})
	if p.Refusal != nil {
		// refused as a whole: the files are another workflow's too (or
		// finished work); nothing is written, not even the lock. Exit 17
		// (cannot act on this workflow as the repository stands), as for
		// every other cleanup refusal — the command line itself is fine.
		c.Show(CleanupEvent{Kind: CleanupRefusedShown})
		return CleanupEnd{"refused", int(exitcode.Cannot), fmt.Errorf("%w; nothing was changed", p.Refusal)}, nil
	}
	c.Show(CleanupEvent{Kind: CleanupPlanShown})
	if p.Empty() {
		c.Show(CleanupEvent{Kind: CleanupNothing})
		return CleanupEnd{Outcome: "nothing", Code: int(exitcode.OK)}, nil
	}
	// Every path is checked before anything changes: a symlinked
	// .orchestrate, archive folder, state or story (or one that is not a
	// regular file) refuses the whole cleanup.
	if err := cleanup.CheckCleanup(c.Root, p); err != nil {
		return CleanupEnd{"refused", int(exitcode.Cannot), fmt.Errorf("cleanup refused: %v; nothing was changed", err)}, nil
	}
	if c.DryRun {
		c.Show(CleanupEvent{Kind: CleanupDryRun})
		return CleanupEnd{Outcome: "planned", Code: int(exitcode.OK)}, nil
	}
	if !c.Yes {
		if !c.CanPrompt {
			return CleanupEnd{"error", int(exitcode.NoTTY), errors.New("cleanup needs confirmation and there is no terminal: pass --yes")}, nil
		}
		ok, err := c.Prompter.Confirm(CleanupQuestion(p), false)
		if err != nil || !ok {
			if err != nil && !errors.Is(err, modes.ErrInterrupted) {
				return CleanupEnd{}, err
			}
			c.Show(CleanupEvent{Kind: CleanupCancelled})
			return CleanupEnd{Outcome: "declined", Code: int(exitcode.Declined)}, nil
		}
	}

	// With lifecycle.remote, under the shared lock too (exit 16 or 20).
	if c.SharedLock != nil {
		release, err := c.SharedLock()
		if err != nil {
			return CleanupEnd{}, err
		}
		defer release()
	}
	// The work itself happens under the workflow's lock, all or nothing.
	err := cleanup.Cleanup(cleanup.CleanupRequest{Root: c.Root, Plan: p, Lock: c.Lock})
	var locked *handoff.LockedError
	var refused *cleanup.CleanupRefusedError
	switch {
	case errors.As(err, &locked):
		return CleanupEnd{"locked", int(exitcode.Locked), fmt.Errorf("%s: not cleaning it up: %v", id, err)}, nil
	case errors.As(err, &refused):
		return CleanupEnd{"refused", int(exitcode.Cannot), fmt.Errorf("cleanup refused: %v; nothing was changed", err)}, nil
	case err != nil:
		return CleanupEnd{"error", int(exitcode.Error), err}, nil
	}
	if err := LogCleanup(c.Root, c.LogPath, p); err != nil {
		c.Show(CleanupEvent{Kind: CleanupLogFailed, Err: err})
	}
	c.Show(CleanupEvent{Kind: CleanupDone})
	return CleanupEnd{Outcome: "cleaned", Code: int(exitcode.OK)}, nil
}

// LogCleanup records a done cleanup in the orchestration log: the
// workflow, its state file, the archive and the stories reset.
func LogCleanup(root, logPath string, p cleanup.CleanupPlan) error {
	l, err := logging.OpenActionLogIn(root, logPath)
	if err != nil {
		return err
	}
	c := p.Candidate
	var ids []string
	for _, r := range p.Resets {
		ids = append(ids, r.ID)
	}
	l.WithFields(map[string]any{
		"event": "cleanup", "workflow": c.ID, "type": string(c.Type), "state_source": c.Source.Path,
		"archive": p.ArchiveDir, "stories_reset": strings.Join(ids, ","),
	}).Info("workflow state archived")
	_ = l.Close()
	return nil
}
