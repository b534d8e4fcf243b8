package sharedlife

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// remoteLock is the lock of id on the bare remote, as another runner
// reads it.
func remoteLock(t *testing.T, s *Store, id string) (Lock, bool) {
	t.Helper()
	v, err := s.Fetch()
	if err != nil {
		t.Fatal(err)
	}
	l, ok := v.Locks[id]
	return l, ok
}

// reports collects what a renewer reports.
type reports struct {
	mu   sync.Mutex
	errs []error
}

func (r *reports) add(err error) { r.mu.Lock(); r.errs = append(r.errs, err); r.mu.Unlock() }
func (r *reports) all() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.errs...)
}

func TestRenewEvery(t *testing.T) {
	t.Parallel()
	for lease, want := range map[time.Duration]time.Duration{
		2 * time.Second: 2 * time.Second / 3, time.Hour: 20 * time.Minute, time.Millisecond: 10 * time.Millisecond,
	} {
		if got := RenewEvery(lease); got != want {
			t.Errorf("RenewEvery(%s) = %s, want %s", lease, got, want)
		}
	}
}

// A holder that runs longer than its 3 s lease keeps the lock: another
// clone cannot take it after the first lease would have ended; released,
// the renewer is gone and the lock free.
func TestKeepAliveHoldsPastTheLease(t *testing.T) {
	t.Parallel()
	bare, clones := setup(t, 2)
	const lease = 3 * time.Second
	a := store(t, clones[0], "long-runner", lease)
	v, err := a.Fetch()
	if err != nil {
		t.Fatal(err)
	}
	h, err := a.Begin(v, "sdc:4.2", "orchestrate resume", Record{Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	first := h.Held.Expires()
	var rep reports
	h.KeepAlive(0, rep.add)
	h.KeepAlive(0, rep.add) // a second call starts nothing more

	b := store(t, clones[1], "other", time.Hour)
	// wait until the first lease has ended by the clock, and a renewal
	// moved the lock's lease past it
	eventually(t, 10*time.Second, "the first lease to end with the lock renewed", func() bool {
		l, ok := remoteLock(t, b, "sdc:4.2")
		return time.Now().After(first.Add(100*time.Millisecond)) && ok && l.Expires.After(first) && !l.Renewed.IsZero()
	})
	v, err = b.Fetch()
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Acquire(v, "sdc:4.2", "orchestrate resume")
	var held *HeldError
	if !errors.As(err, &held) || held.Holder.Runner.Host != "long-runner" {
		t.Fatalf("another clone after the first lease ended: %v, want *HeldError naming the holder", err)
	}
	h.Held.mu.Lock() // the renewer replaces h.Held.lock
	mine := h.Held.lock
	h.Held.mu.Unlock()
	if l := held.Holder; l.Token != mine.Token || !l.Acquired.Equal(mine.Acquired) {
		t.Errorf("a renewal changed the lock's identity: %+v", l)
	}
	// the records still append under the renewed lock
	if err := h.Record(EventDispatched, ""); err != nil {
		t.Fatal(err)
	}
	if errs := rep.all(); len(errs) != 0 {
		t.Errorf("renewals failed: %v", errs)
	}
	if err := h.Release(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.Held.renewer.done:
	default:
		t.Fatal("the renewer still runs after Release")
	}
	if out := gitRun(t, bare, "for-each-ref", "refs/orchestrate/locks/"); out != "" {
		t.Fatalf("locks left: %s", out)
	}
	if err := h.Held.Renew(); err != nil {
		t.Errorf("Renew after Release: %v, want nothing done", err)
	}
	if out := gitRun(t, bare, "for-each-ref", "refs/orchestrate/locks/"); out != "" {
		t.Fatalf("a renewal after Release put the lock back: %s", out)
	}
}

// A holder whose lease ended before it could renew (stopped, suspended)
// and whose lock another runner took over notices it at its next renewal:
// *LostError naming the new holder, reported once, the renewer stops, and
// neither the renewal nor the release touches the new holder's lock.
func TestRenewAfterTakeoverIsNoticed(t *testing.T) {
	t.Parallel()
	bare, clones := setup(t, 2)
	a := store(t, clones[0], "slow", 2*time.Second)
	v, err := a.Fetch()
	if err != nil {
		t.Fatal(err)
	}
	h, err := a.Acquire(v, "sdc:4.2", "orchestrate resume")
	if err != nil {
		t.Fatal(err)
	}
	hb := takeOver(t, clones[1], h.Expires().Add(time.Second)) // b's clock past a's lease

	var rep reports
	h.KeepAlive(20*time.Millisecond, rep.add)
	eventually(t, 10*time.Second, "the takeover to be reported", func() bool { return len(rep.all()) > 0 })
	<-h.renewer.done // the renewer stops by itself once the lock is lost
	errs := rep.all()
	var lost *LostError
	if len(errs) != 1 || !errors.As(errs[0], &lost) || lost.By == nil || lost.By.Runner.Host != "taker" {
		t.Fatalf("reported %v, want one *LostError naming the taker", errs)
	}
	if !strings.Contains(lost.Error(), "taken over") || !strings.Contains(lost.Error(), "taker") {
		t.Errorf("message: %s", lost)
	}
	if !errors.As(h.Lost(), &lost) || !errors.As(h.Renew(), &lost) {
		t.Error("Lost/Renew do not keep saying the lock was lost")
	}
	if err := h.Release(); !errors.As(err, &lost) {
		t.Errorf("Release of a lost lock: %v, want the *LostError", err)
	}
	comp := "sdc_3a4.2"
	if got := gitRun(t, bare, "rev-parse", "refs/orchestrate/locks/"+comp); got != hb.Commit {
		t.Fatalf("the taker's lock was touched: %s, want %s", got, hb.Commit)
	}
	if err := hb.Release(); err != nil {
		t.Fatal(err)
	}
}

// A renewal that fails for a transient reason (the remote away for a
// moment) is reported and retried at the next tick: the lease moves on
// once the remote is back.
func TestRenewRetriesTransientFailures(t *testing.T) {
	t.Parallel()
	bare, clones := setup(t, 2)
	a := store(t, clones[0], "holder", time.Hour)
	v, err := a.Fetch()
	if err != nil {
		t.Fatal(err)
	}
	h, err := a.Acquire(v, "sdc:4.2", "orchestrate resume")
	if err != nil {
		t.Fatal(err)
	}
	first := h.Expires()
	clock := first.Add(-time.Hour)
	var mu sync.Mutex
	a.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); clock = clock.Add(time.Second); return clock }

	away := bare + ".away"
	if err := os.Rename(bare, away); err != nil {
		t.Fatal(err)
	}
	var rep reports
	h.KeepAlive(20*time.Millisecond, rep.add)
	eventually(t, 10*time.Second, "a failed renewal to be reported", func() bool { return len(rep.all()) > 0 })
	if err := os.Rename(away, bare); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "a renewal once the remote is back", func() bool { return h.Expires().After(first) })
	for _, err := range rep.all() {
		var lost *LostError
		if errors.As(err, &lost) || !errors.Is(err, ErrUnusable) {
			t.Errorf("transient failure reported as %v", err)
		}
	}
	if h.Lost() != nil {
		t.Error("a transient failure was taken for a takeover")
	}
	if err := h.Release(); err != nil {
		t.Fatal(err)
	}
	<-h.renewer.done
	if out := gitRun(t, bare, "for-each-ref", "refs/orchestrate/locks/"); out != "" {
		t.Fatalf("locks left: %s", out)
	}
}

// A holder whose clock is pinned (ORCHESTRATE_NOW) writes the same lock at
// every renewal after the first, so there is no swap to push: the renewal
// asks the remote instead, and a takeover after that first renewal is
// still noticed (*LostError naming the taker) and left alone.
func TestRenewWithAPinnedClockNoticesATakeover(t *testing.T) {
	t.Parallel()
	bare, clones := setup(t, 2)
	pinned := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	a := store(t, clones[0], "pinned", 30*time.Second)
	a.Now = func() time.Time { return pinned }
	v, err := a.Fetch()
	if err != nil {
		t.Fatal(err)
	}
	h, err := a.Acquire(v, "sdc:4.2", "orchestrate resume")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Renew(); err != nil { // the first renewal writes renewed_at
		t.Fatal(err)
	}
	renewed := h.Commit
	if err := h.Renew(); err != nil || h.Commit != renewed {
		t.Fatalf("a renewal at the same instant: %v, commit %s → %s", err, renewed, h.Commit)
	}
	hb := takeOver(t, clones[1], pinned.Add(time.Minute)) // past a's lease
	var rep reports
	h.KeepAlive(20*time.Millisecond, rep.add)
	eventually(t, 10*time.Second, "the takeover to be reported", func() bool { return len(rep.all()) > 0 })
	var lost *LostError
	if errs := rep.all(); len(errs) != 1 || !errors.As(errs[0], &lost) || lost.By == nil || lost.By.Runner.Host != "taker" {
		t.Fatalf("reported %v, want one *LostError naming the taker", errs)
	}
	if err := h.Release(); !errors.As(err, &lost) {
		t.Errorf("Release of a lost lock: %v", err)
	}
	if got := gitRun(t, bare, "rev-parse", "refs/orchestrate/locks/sdc_3a4.2"); got != hb.Commit {
		t.Fatalf("the taker's lock was touched: %s, want %s", got, hb.Commit)
	}
}

// takeOver has runner "taker", working in clone with its clock at now (past
// the holder's lease), take the lock of sdc:4.2 over.
func takeOver(t *testing.T, clone string, now time.Time) *Held {
	t.Helper()
	b := store(t, clone, "taker", time.Hour)
	b.Now = func() time.Time { return now }
	v, err := b.Fetch()
	if err != nil {
		t.Fatal(err)
	}
	hb, err := b.Acquire(v, "sdc:4.2", "orchestrate resume")
	if err != nil || hb.TookOver == nil {
		t.Fatalf("takeover: %v %+v", err, hb)
	}
	return hb
}
