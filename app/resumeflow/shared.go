package resumeflow

import (
	"fmt"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/app/loaded"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/sharedlife"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// LifeHeldRemotely is a candidate whose lock another runner holds on the
// shared lifecycle with a live lease (lifecycle.remote).
const LifeHeldRemotely = "held_remotely"

// Shared is the shared lifecycle as fetched for one command (nil without
// lifecycle.remote, or when it could not be read).
type Shared struct {
	Remote string
	View   sharedlife.View
}

// HeldBy is the live lease another runner holds on workflow id, if any.
func (sh *Shared) HeldBy(id string, now time.Time) (sharedlife.Lock, bool) {
	if sh == nil {
		return sharedlife.Lock{}, false
	}
	l, ok := sh.View.Locks[id]
	if !ok || !l.Live(now) {
		return sharedlife.Lock{}, false
	}
	return l, true
}

// LifecycleShared is candidate c's lifecycle with the shared one: a live
// lease of another runner first, then whichever of the local history and
// the shared records is newer (the shared one naming its runner).
func LifecycleShared(locks *handoff.LockView, hist map[string]handoff.Last, sh *Shared, now time.Time, c workflow.Candidate) Lifecycle {
	local := LifecycleOf(locks, hist, c)
	if sh == nil {
		return local
	}
	if l, ok := sh.HeldBy(c.ID, now); ok {
		if local.State == LifeActive || local.State == LifeLocked {
			return local // this checkout's own resume holds it
		}
		return Lifecycle{State: LifeHeldRemotely, At: l.Acquired, By: l.Runner.String(), Until: l.Expires}
	}
	rec, ok := sh.View.Records[c.ID]
	if !ok {
		return local
	}
	r := rec.Last
	if !c.UpdatedAt.IsZero() && c.UpdatedAt.After(r.At.Add(2*time.Second)) {
		return local // interrupted again since that record
	}
	if !local.At.IsZero() && !r.At.After(local.At) && local.State != LifeInterrupted {
		return local
	}
	switch local.State {
	case LifeActive, LifeLocked, LifeStaleLock:
		return local
	}
	l := Lifecycle{At: r.At, Agent: strings.TrimPrefix(r.Agent, "@"), By: r.Runner.String()}
	switch r.Event {
	case sharedlife.EventHandedOff:
		l.State = handoff.StateHandedOff
	case sharedlife.EventStarted:
		l.State = handoff.StateStarted
	case sharedlife.EventDispatched:
		l.State = handoff.StateUnconfirmed // nobody holds its lock: its command never started
	case sharedlife.EventFailed:
		l.State = handoff.StateFailed
	default:
		return local
	}
	return l
}

// SkipHandedOffShared is SkipHandedOff with the shared lifecycle: in
// autopilot a workflow another runner holds (a live lease) or handed off
// recently (its records) is skipped like a live or recent local one.
func SkipHandedOffShared(s *loaded.Session, cands []workflow.Candidate, mode modes.Mode, history func() map[string]handoff.Last, sh *Shared) Filtered {
	var locks *handoff.LockView // listed once per pass, when a candidate asks
	return skipHandedOff(s, cands, mode, history, func(hist map[string]handoff.Last, c workflow.Candidate) Lifecycle {
		if locks == nil {
			locks = handoff.ViewLocks(s.Root)
		}
		return LifecycleShared(locks, hist, sh, s.Now, c)
	})
}

// heldText is the lifecycle text of a workflow held on the remote.
func heldText(l Lifecycle, now time.Time) string {
	return fmt.Sprintf("held by %s on the shared lifecycle (lease until %s)", l.By, l.Until.UTC().Format(time.RFC3339))
}
