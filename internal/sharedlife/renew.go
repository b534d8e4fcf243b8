package sharedlife

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitremote"
)

// Lease renewal. A holder that runs longer than its lease renews it while
// it holds the lock (a long orchestrator command, an MCP claim held for
// hours): every RenewEvery(lease) a compare-and-swap push replaces the
// lock with the same lock (same token, same acquisition) whose lease ends
// a full lease later — only if the remote still has the value this runner
// wrote last. The swap failing because the value changed means another
// runner took the lock over (or orchestrate unlock removed it): the
// renewal stops and the loss is reported (*LostError), never overwritten.
// Any other failure (the remote unreachable for a moment) is retried at
// the next tick; the lease covers three of them.

// RenewEvery is how often a lock with lease is renewed: a third of it, so
// that two renewals in a row may fail for a transient reason before the
// lease could end.
func RenewEvery(lease time.Duration) time.Duration {
	return max(lease/3, 10*time.Millisecond)
}

// LostError is a lock this runner held that another runner took over (or
// someone removed) while it was held: a renewal's compare-and-swap found
// another value on the remote.
type LostError struct {
	Workflow string
	// By is the lock found in its place, when it could be read.
	By *Lock
	// At is when the loss was noticed.
	At time.Time
}

func (e *LostError) Error() string {
	who := "another runner, or orchestrate unlock"
	if e.By != nil {
		who = e.By.Runner.String()
	}
	return fmt.Sprintf("the shared lock of %s was taken over while this runner held it (by %s, noticed at %s): another runner may be handing it off too",
		e.Workflow, who, e.At.UTC().Format(time.RFC3339))
}

// Renew extends the lease by one compare-and-swap push: the lock as
// written, with Expires a full lease from now, in place of the value this
// runner wrote last. It returns *LostError when another value is there
// now (the lock is then left alone), an ErrUnusable error when the push
// failed otherwise (try again later), nil when renewed. Renewing a
// released or lost lock does nothing.
func (h *Held) Renew() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.renewLocked()
}

// holds reports whether the lock is still this runner's: not released,
// not found lost, and renewed just now.
func (h *Held) holds() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.released && h.lost == nil && h.renewLocked() == nil
}

func (h *Held) renewLocked() error {
	if h.released {
		return nil
	}
	if h.lost != nil {
		return h.lost
	}
	now := h.s.Now()
	l := h.lock
	l.Expires, l.Renewed = now.Add(h.s.Lease).UTC(), now.UTC()
	msg, _ := json.Marshal(l)
	commit, err := h.s.Remote.Commit("", string(msg)+"\n", now)
	if err != nil {
		return unusable(err)
	}
	if commit == h.Commit {
		// the same value (a clock pinned by ORCHESTRATE_NOW, two renewals
		// in one second): no swap to push, so the remote is asked whether it
		// still holds it — a takeover is noticed at this tick all the same
		cur, err := h.s.Remote.RemoteValue(h.name)
		if err != nil {
			return unusable(err)
		}
		if cur != h.Commit {
			h.lost = &LostError{Workflow: h.Workflow, By: h.current(), At: now}
			return h.lost
		}
		return nil
	}
	err = h.s.Remote.Push(gitremote.Update{Name: h.name, Old: h.Commit, New: commit})
	if errors.Is(err, gitremote.ErrRejected) {
		h.lost = &LostError{Workflow: h.Workflow, By: h.current(), At: now}
		return h.lost
	}
	if err != nil {
		return unusable(err)
	}
	h.Commit, h.lock = commit, l
	return nil
}

// current reads the lock on the remote now, best effort (nil when there
// is none or it cannot be read).
func (h *Held) current() *Lock {
	if err := h.s.Remote.FetchRef(h.name); err != nil {
		return nil
	}
	refs, err := h.s.Remote.Refs(h.name)
	if err != nil {
		return nil
	}
	_, comp, _ := strings.Cut(h.name, "/")
	for _, r := range refs {
		if r.Name != h.name {
			continue
		}
		if l, ok := parseLock(r.Message, comp); ok {
			l.Commit = r.Commit
			return &l
		}
	}
	return nil
}

// Lost is the *LostError a renewal found, nil while the lock is this
// runner's as far as it knows.
func (h *Held) Lost() error {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lost == nil {
		return nil
	}
	return h.lost
}

// Expires is when the lease ends as last written.
func (h *Held) Expires() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lock.Expires
}

// renewer is the goroutine of KeepAlive.
type renewer struct {
	quit chan struct{}
	done chan struct{}
	once sync.Once
}

// KeepAlive renews the lease every interval (RenewEvery of the lease when
// interval <= 0) until Release, in one goroutine. report, when set, is
// told each failed renewal: a *LostError once (the renewal stops there),
// or a transient error (retried at the next tick). Calling it again while
// it runs does nothing.
func (h *Held) KeepAlive(interval time.Duration, report func(error)) {
	if h == nil {
		return
	}
	if interval <= 0 {
		interval = RenewEvery(h.s.Lease)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.renewer != nil || h.released || h.lost != nil {
		return
	}
	r := &renewer{quit: make(chan struct{}), done: make(chan struct{})}
	h.renewer = r
	go func() {
		defer close(r.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-r.quit:
				return
			case <-t.C:
			}
			h.mu.Lock()
			err := h.renewLocked()
			stop := h.released || h.lost != nil
			h.mu.Unlock()
			if err != nil && report != nil {
				report(err)
			}
			if stop {
				return
			}
		}
	}()
}

// stopRenewal stops KeepAlive's goroutine and waits for it to end.
func (h *Held) stopRenewal() {
	h.mu.Lock()
	r := h.renewer
	h.mu.Unlock()
	if r == nil {
		return
	}
	r.once.Do(func() { close(r.quit) })
	<-r.done
}
