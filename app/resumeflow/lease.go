package resumeflow

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/logging"
	"github.com/orchestrate-dev/orchestrate/internal/sharedlife"
	"github.com/orchestrate-dev/orchestrate/templates"
)

// EventLeaseLost is the orchestration-log event of a shared lock that
// another runner took over while this one held it (a renewal found it).
const EventLeaseLost = "shared.lease_lost"

// KeepLease renews the lease of the shared lock h holds while the handoff
// runs — the orchestrator command, or an MCP claim until its release —
// every sharedlife.RenewEvery of the lease; h.Release stops it. A renewal
// that finds the lock taken over is written to the orchestration log
// (root, logPath) and warned about on stderr, once; a transient failure
// is warned about and retried at the next tick. stderr writes are
// serialised; now is the clock of the log record.
func KeepLease(h *sharedlife.Handoff, root, logPath string, stderr io.Writer, now func() time.Time) {
	if h == nil {
		return
	}
	if stderr == nil {
		stderr = io.Discard
	}
	var mu sync.Mutex
	h.KeepAlive(0, func(err error) {
		mu.Lock()
		defer mu.Unlock()
		var lost *sharedlife.LostError
		if !errors.As(err, &lost) {
			fmt.Fprintf(stderr, "warning: could not renew the lease of the shared lock of %s (retrying): %s\n", templates.Safe(h.Held.Workflow), templates.Safe(logging.Redact(err.Error())))
			return
		}
		fmt.Fprintf(stderr, "warning: %s\n", templates.Safe(lost.Error()))
		if lerr := LogLeaseLost(root, logPath, lost, now()); lerr != nil {
			fmt.Fprintf(stderr, "warning: could not log the lost lease: %s\n", templates.Safe(lerr.Error()))
		}
	})
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
