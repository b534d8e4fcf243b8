package resumeflow

import (
	"time"

	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/logging"
	"github.com/orchestrate-dev/orchestrate/internal/sharedlife"
)

// UnlockVerdict is what `orchestrate unlock` does with a lock.
type UnlockVerdict int

// The verdicts of UnlockLocal and UnlockShared.
const (
	// UnlockNone: there is no lock.
	UnlockNone UnlockVerdict = iota
	// UnlockRemove: remove it (stale, or --force).
	UnlockRemove
	// UnlockUntrusted: a lock file that cannot be trusted, without --force
	// (exit 16; left in place).
	UnlockUntrusted
	// UnlockLive: held by a live process or lease, without --force (exit 16).
	UnlockLive
)

// UnlockLocal decides what unlock does with the local lock st: a stale
// one is removed; a live or untrusted one only with force.
func UnlockLocal(st handoff.LockState, force bool) UnlockVerdict {
	switch {
	case !st.Exists:
		return UnlockNone
	case st.Live && !force && st.Reason != "":
		return UnlockUntrusted
	case st.Live && !force:
		return UnlockLive
	}
	return UnlockRemove
}

// UnlockShared decides what unlock does with workflow id's lock on the
// shared lifecycle sh (lifecycle.remote): one whose lease ended is
// removed, a live one only with force. l is the lock found.
func UnlockShared(sh *Shared, id string, now time.Time, force bool) (l sharedlife.Lock, v UnlockVerdict) {
	if sh == nil {
		return l, UnlockNone
	}
	l, ok := sh.View.Locks[id]
	switch {
	case !ok:
		return l, UnlockNone
	case l.Live(now) && !force:
		return l, UnlockLive
	}
	return l, UnlockRemove
}

// UnlockedWord says which lock was removed: "stale", or "live (forced)",
// with the reason an untrusted one was not trusted.
func UnlockedWord(st handoff.LockState) string {
	state := "stale"
	if st.Live {
		state = "live (forced)"
	}
	if st.Reason != "" {
		state += ", " + st.Reason
	}
	return state
}

// LogUnlock records a removed lock in the orchestration log, as every
// other action is: the workflow, who removed it (me), whose lock it was,
// and whether it was stale, live and forced, or untrusted.
func LogUnlock(root, logPath, id string, st handoff.LockState, force bool, me handoff.LockInfo) error {
	l, err := logging.OpenActionLogIn(root, logPath)
	if err != nil {
		return err
	}
	defer l.Close()
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
	return nil
}
