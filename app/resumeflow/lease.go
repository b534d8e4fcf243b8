package resumeflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/internal/logging"
	"github.com/orchestrate-dev/orchestrate/internal/sharedlife"
	"github.com/orchestrate-dev/orchestrate/templates"
)

// EventLeaseLost is the orchestration-log event of a shared lock that
// another runner took over while this one held it (a renewal found it).
const EventLeaseLost = "shared.lease_lost"

// ReasonLeaseLost is the --json "reason" (outcome "locked", exit 16) of a
// handoff stopped because another runner took its shared lock over while
// it ran (LeaseLostError).
const ReasonLeaseLost = "lease_lost"

// LeaseLostError is why a handoff was stopped: a renewal of its lease
// found its shared lock taken over by another runner (or removed by
// orchestrate unlock --force). It is the cause of the context
// Lease.StopOnLoss returns, so the orchestrator command stopped by it
// fails with a *handoff.CommandError that wraps it (FailureOf: exit 16).
type LeaseLostError struct {
	Lost *sharedlife.LostError
}

// Error names the workflow, the new holder and when the loss was noticed.
func (e *LeaseLostError) Error() string {
	return fmt.Sprintf("the shared lock of %s was taken over by %s while this runner held it (noticed at %s)",
		e.Lost.Workflow, Taker(e.Lost), e.Lost.At.UTC().Format(time.RFC3339))
}

// Unwrap is the *sharedlife.LostError.
func (e *LeaseLostError) Unwrap() error { return e.Lost }

// Taker names who took a lost lock over: the runner of the lock found in
// its place, or, when there was none to read, who else can do it.
func Taker(lost *sharedlife.LostError) string {
	if lost.By != nil {
		return lost.By.Runner.String()
	}
	return "another runner (or orchestrate unlock --force removed it)"
}

// Lease is the renewal of a shared lock's lease started by KeepLease: its
// warnings, printed when they happen on a terminal or a file, else kept
// for Flush (a writer such as a buffer must not be written while the
// orchestrator command's output is copied into it), and the context that
// ends when the lock is lost.
type Lease struct {
	mu      sync.Mutex
	w       io.Writer
	direct  bool
	pending []string
	// stops is set by StopOnLoss: a loss stops the handoff.
	stops  bool
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// KeepLease renews the lease of the shared lock h holds while the handoff
// runs — the orchestrator command, or an MCP claim until its release —
// every sharedlife.RenewEvery of the lease; h.Release stops it. A renewal
// that finds the lock taken over is written to the orchestration log
// (root, logPath, dated by now), said on stderr once, and ends the
// context of StopOnLoss; a transient failure is warned about and retried
// at the next tick. Call Flush once h is released.
func KeepLease(h *sharedlife.Handoff, root, logPath string, stderr io.Writer, now func() time.Time) *Lease {
	if stderr == nil {
		stderr = io.Discard
	}
	_, direct := stderr.(*os.File)
	ctx, cancel := context.WithCancelCause(context.Background())
	l := &Lease{w: stderr, direct: direct, ctx: ctx, cancel: cancel}
	if h == nil {
		return l
	}
	h.KeepAlive(0, func(err error) {
		var lost *sharedlife.LostError
		if !errors.As(err, &lost) {
			l.warn(fmt.Sprintf("warning: could not renew the lease of the shared lock of %s (retrying): %s\n", templates.Safe(h.Held.Workflow), templates.Safe(logging.Redact(err.Error()))))
			return
		}
		// logged first: the log says why before the handoff's own failure
		lerr := LogLeaseLost(root, logPath, lost, now())
		l.lost(lost)
		if lerr != nil {
			l.warn(fmt.Sprintf("warning: could not log the lost lease: %s\n", templates.Safe(lerr.Error())))
		}
	})
	return l
}

// lost says that the lock was lost and, when the handoff stops on it,
// stops it (the context's cause is the *LeaseLostError).
func (l *Lease) lost(lost *sharedlife.LostError) {
	l.mu.Lock()
	stops := l.stops
	l.mu.Unlock()
	if !stops {
		l.warn(fmt.Sprintf("warning: %s\n", templates.Safe(lost.Error())))
	} else {
		l.warn(fmt.Sprintf("orchestrate: the shared lock of %s was taken over by %s while this runner held it: stopping the orchestrator command (SIGTERM to its process group, then SIGKILL after the grace period) so that the workflow is not worked on twice.\n",
			templates.Safe(lost.Workflow), templates.Safe(Taker(lost))))
	}
	l.cancel(&LeaseLostError{Lost: lost})
}

// StopOnLoss makes a loss of the lock stop the handoff: the context
// returned (for handoff.Request.Context) ends, its cause a
// *LeaseLostError, when a renewal finds the lock taken over — at once if
// one already did — and stderr says the command is being stopped. Without
// it (an MCP claim, which runs nothing) a loss is only warned about.
func (l *Lease) StopOnLoss() context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stops = true
	return l.ctx
}

func (l *Lease) warn(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.direct {
		_, _ = io.WriteString(l.w, msg)
		return
	}
	l.pending = append(l.pending, msg)
}

// Flush prints the warnings kept (nil: nothing).
func (l *Lease) Flush() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.pending {
		_, _ = io.WriteString(l.w, m)
	}
	l.pending = nil
}

// LogLeaseLost records in the orchestration log that the shared lock of
// lost.Workflow was taken over while this runner held it.
func LogLeaseLost(root, logPath string, lost *sharedlife.LostError, now time.Time) error {
	l, err := logging.OpenActionLogIn(root, logPath)
	if err != nil {
		return err
	}
	fields := logging.Fields{"event": EventLeaseLost, "workflow": lost.Workflow}
	if lost.By != nil {
		fields["taken_by"] = lost.By.Runner.String()
	}
	err = l.Append(now, fields, "the shared lock was taken over while it was held")
	if cerr := l.Close(); err == nil {
		err = cerr
	}
	return err
}

// RecordOutcome appends how the handoff ended to its shared records:
// handed_off when err is nil, else failed with err's message — which names
// the lost lease when the command was stopped for it (LeaseLostError). A
// runner that lost the lock still records its failure: the chain's CAS
// refuses it if the new holder appended since, and otherwise it says the
// resume was rolled back (the newest record of its key is no longer
// started).
func RecordOutcome(h *sharedlife.Handoff, err error) error {
	event, outcome := sharedlife.EventHandedOff, ""
	if err != nil {
		event, outcome = sharedlife.EventFailed, err.Error()
	}
	return h.Record(event, outcome)
}

// leaseLostFailure is the Failure of a handoff stopped (or never started)
// because its shared lock was taken over: exit 16, outcome "locked",
// reason lease_lost, the new holder when known, and how the command ended
// when it ran. ok is false for any other error.
func leaseLostFailure(err error, id string, cmd *CommandResult) (Failure, bool) {
	var stopped *LeaseLostError
	if !errors.As(err, &stopped) {
		return Failure{}, false
	}
	f := Failure{Code: int(exitcode.Locked), Outcome: "locked", Reason: ReasonLeaseLost, Command: cmd, Holder: stopped.Lost.By}
	who := "The shared lock of " + id + " was taken over or removed"
	if by := stopped.Lost.By; by != nil {
		who = by.Runner.String() + " took the shared lock of " + id + " over"
	}
	f.Action = who + " while this runner held it (its lease ended before a renewal, or orchestrate unlock --force): the orchestrator command was stopped so that the workflow is not worked on twice, and the workflow state was rolled back here. Let the other runner finish (orchestrate status shows it); do not resume it again meanwhile."
	return f, true
}
