package resumeflow

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/logging"
	"github.com/orchestrate-dev/orchestrate/internal/sharedlife"
	"github.com/orchestrate-dev/orchestrate/templates"
)

// EventLeaseLost is the orchestration-log event of a shared lock that
// another runner took over while this one held it (a renewal found it).
const EventLeaseLost = "shared.lease_lost"

// Lease is the renewal of a shared lock's lease started by KeepLease: its
// warnings, printed when they happen on a terminal or a file, else kept
// for Flush (a writer such as a buffer must not be written while the
// orchestrator command's output is copied into it).
type Lease struct {
	mu      sync.Mutex
	w       io.Writer
	direct  bool
	pending []string
}

// KeepLease renews the lease of the shared lock h holds while the handoff
// runs — the orchestrator command, or an MCP claim until its release —
// every sharedlife.RenewEvery of the lease; h.Release stops it. A renewal
// that finds the lock taken over is written to the orchestration log
// (root, logPath, dated by now) and warned about on stderr, once; a
// transient failure is warned about and retried at the next tick. Call
// Flush once h is released.
func KeepLease(h *sharedlife.Handoff, root, logPath string, stderr io.Writer, now func() time.Time) *Lease {
	if stderr == nil {
		stderr = io.Discard
	}
	_, direct := stderr.(*os.File)
	l := &Lease{w: stderr, direct: direct}
	if h == nil {
		return l
	}
	h.KeepAlive(0, func(err error) {
		var lost *sharedlife.LostError
		if !errors.As(err, &lost) {
			l.warn(fmt.Sprintf("warning: could not renew the lease of the shared lock of %s (retrying): %s\n", templates.Safe(h.Held.Workflow), templates.Safe(logging.Redact(err.Error()))))
			return
		}
		l.warn(fmt.Sprintf("warning: %s\n", templates.Safe(lost.Error())))
		if lerr := LogLeaseLost(root, logPath, lost, now()); lerr != nil {
			l.warn(fmt.Sprintf("warning: could not log the lost lease: %s\n", templates.Safe(lerr.Error())))
		}
	})
	return l
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
