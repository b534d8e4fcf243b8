package handoff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/logging"
)

// EventStarted is written (checked, fsynced) right after the orchestrator
// command's process started: a resume.dispatched without it means the
// command never ran, and the handoff is offered again (docs/SECURITY.md, the durable handoff).
const EventStarted = "resume.started"

// Lifecycle states of a workflow's last handoff (Last.State).
const (
	// StateHandedOff: the command ran and ended well (resume.handed_off).
	StateHandedOff = "handed_off"
	// StateStarted: the command started and was never seen to end (still
	// running, or orchestrate was killed while it ran).
	StateStarted = "started"
	// StateDispatched: dispatched and not started yet, by a resume that is
	// still alive (its lock is live).
	StateDispatched = "dispatched"
	// StateUnconfirmed: dispatched, never started, and nobody holds the
	// lock: the agent never ran, so the handoff is offered again.
	StateUnconfirmed = "unconfirmed"
	// StateFailed: rolled back (resume.failed); the workflow is interrupted.
	StateFailed = "failed"
)

// MaxHistoryBytes bounds how much of the orchestration log History reads
// (its end: the newest events).
const MaxHistoryBytes = 8 << 20

// Last is the last handoff of one workflow, as the orchestration log tells.
type Last struct {
	At    time.Time
	Agent string
	Phase string
	Key   string // idempotency key
	State string // StateHandedOff, StateStarted, StateDispatched, StateUnconfirmed, StateFailed
	// Again is set when that handoff was asked for with --again.
	Again bool
}

// Lock states (LockStatus.State).
const (
	LockFree  = "free"
	LockLive  = "live"
	LockStale = "stale"
)

// LockStatus is a workflow's lock in one word, with its owner when held.
type LockStatus struct {
	State string // LockFree, LockLive, LockStale
	PID   int
	Host  string
	// Reason is set for a lock that cannot be trusted (it counts as live).
	Reason string
}

// LockStateOf reports whether workflow id's lock is free, held by a live
// process (or not trustworthy, which blocks the same way), or stale.
func LockStateOf(root, id string) LockStatus { return statusOf(Inspect(root, id)) }

// statusOf is a lock's state in one word.
func statusOf(st LockState) LockStatus {
	switch {
	case !st.Exists:
		return LockStatus{State: LockFree}
	case st.Live:
		return LockStatus{State: LockLive, PID: st.Owner.PID, Host: st.Owner.Host, Reason: st.Reason}
	default:
		return LockStatus{State: LockStale, PID: st.Owner.PID, Host: st.Owner.Host}
	}
}

// logEvent is the part of an orchestration log line History reads.
type logEvent struct {
	Event    string    `json:"event"`
	Workflow string    `json:"workflow"`
	Time     time.Time `json:"time"`
	Agent    string    `json:"agent"`
	Phase    string    `json:"resume_point"`
	Key      string    `json:"idempotency_key"`
	Again    bool      `json:"again"`
}

// History reads the orchestration log at logPath (confined to root like
// every log access; at most its last MaxHistoryBytes) and returns, per
// workflow id, its last handoff. Lines that are not JSON, or torn, are
// skipped. A missing log is an empty history. A dispatch that was never
// started is StateUnconfirmed unless the workflow's lock is live.
func History(root, logPath string) (map[string]Last, error) {
	out := map[string]Last{}
	f, err := logging.OpenLogForRead(root, logPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return out, nil
		}
		return out, fmt.Errorf("read the orchestration log: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return out, fmt.Errorf("read the orchestration log: %w", err)
	}
	var r io.Reader = f
	if size := fi.Size(); size > MaxHistoryBytes {
		if _, err := f.Seek(size-MaxHistoryBytes, io.SeekStart); err != nil {
			return out, fmt.Errorf("read the orchestration log: %w", err)
		}
		r = io.LimitReader(f, MaxHistoryBytes)
		br := bufio.NewReader(r)
		// the first line is probably cut: skip it
		if _, err := br.ReadBytes('\n'); err != nil {
			return out, nil
		}
		r = br
	} else {
		r = io.LimitReader(f, MaxHistoryBytes)
	}
	if err := scanHistory(r, out); err != nil {
		return out, fmt.Errorf("read the orchestration log: %w", err)
	}
	var locks *LockView // listed once, when a dispatch needs it
	for id, l := range out {
		if l.State != StateDispatched {
			continue
		}
		if locks == nil {
			locks = ViewLocks(root)
		}
		if locks.StateOf(id).State != LockLive {
			l.State = StateUnconfirmed
			out[id] = l
		}
	}
	return out, nil
}

// scanHistory folds the handoff events of r into out. A line longer than
// the scanner's buffer ends the scan without an error (what was read
// stands).
func scanHistory(r io.Reader, out map[string]Last) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, []byte(`"resume.`)) {
			continue
		}
		var ev logEvent
		if json.Unmarshal(line, &ev) != nil || ev.Workflow == "" {
			continue
		}
		l, seen := out[ev.Workflow]
		switch ev.Event {
		case EventDispatched:
			l = Last{At: ev.Time, Agent: ev.Agent, Phase: ev.Phase, Key: ev.Key, State: StateDispatched, Again: ev.Again}
		case EventStarted:
			if seen && l.Key == ev.Key && l.State == StateDispatched {
				l.State = StateStarted
			} else {
				l = Last{At: ev.Time, Agent: ev.Agent, Phase: ev.Phase, Key: ev.Key, State: StateStarted, Again: ev.Again}
			}
		case EventHandedOff:
			l = Last{At: ev.Time, Agent: ev.Agent, Phase: ev.Phase, Key: ev.Key, State: StateHandedOff, Again: ev.Again}
		case EventFailed:
			l = Last{At: ev.Time, Agent: ev.Agent, Phase: ev.Phase, Key: ev.Key, State: StateFailed, Again: ev.Again}
		default:
			continue
		}
		out[ev.Workflow] = l
	}
	if err := sc.Err(); err != nil && !errors.Is(err, bufio.ErrTooLong) {
		return err
	}
	return nil
}

// lastOfKey is the lifecycle state of the newest handoff event with this
// idempotency key in the log ("" when there is none): StateHandedOff,
// StateStarted, StateDispatched (never started) or StateFailed; and when
// it was recorded.
func lastOfKey(root, logPath, key string) (string, time.Time) {
	f, err := logging.OpenLogForRead(root, logPath)
	if err != nil {
		return "", time.Time{}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	needle := []byte(key)
	last, at := "", time.Time{}
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, needle) {
			continue
		}
		var ev logEvent
		if json.Unmarshal(line, &ev) != nil || ev.Key != key {
			continue
		}
		switch ev.Event {
		case EventHandedOff:
			last, at = StateHandedOff, ev.Time
		case EventDispatched:
			last, at = StateDispatched, ev.Time
		case EventStarted:
			last, at = StateStarted, ev.Time
		case EventFailed:
			last, at = StateFailed, ev.Time
		}
	}
	return last, at
}
