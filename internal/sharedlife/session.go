package sharedlife

import (
	"errors"
	"fmt"
	"time"
)

// Handoff is one handoff under the shared lifecycle: the lock held, the
// record chain read after it was taken, and what the records say of this
// very resume (its idempotency key).
type Handoff struct {
	s     *Store
	Held  *Held
	Chain *Chain
	// Key is the idempotency key of this resume.
	Key string
	// Prior is the newest record with this key, when there is one.
	Prior *Record
	base  Record
}

// Already reports whether this resume was handed off before (its newest
// record with the key says handed off or started): unless --again, nothing
// is run and the lock is released.
func (h *Handoff) Already() bool {
	return h.Prior != nil && (h.Prior.Event == EventHandedOff || h.Prior.Event == EventStarted)
}

// Unconfirmed reports whether this resume was dispatched before and its
// command never started (the runner died first): it is handed off again.
func (h *Handoff) Unconfirmed() bool {
	return h.Prior != nil && h.Prior.Event == EventDispatched
}

// Begin takes workflow id's lock (Acquire) and reads its records (Chain).
// base is the record every later event of this handoff carries (key,
// phase, agent, mode, again). On an error nothing is held.
func (s *Store) Begin(v View, id, command string, base Record) (*Handoff, error) {
	held, err := s.Acquire(v, id, command)
	if err != nil {
		return nil, err
	}
	chain, err := s.Chain(v, id)
	if err != nil {
		if rerr := held.Release(); rerr != nil {
			err = fmt.Errorf("%w (and: %v)", err, rerr)
		}
		return nil, err
	}
	h := &Handoff{s: s, Held: held, Chain: chain, Key: base.Key, base: base}
	if r, ok := chain.LastOfKey(base.Key); ok {
		h.Prior = &r
	}
	return h, nil
}

// Record appends event (with outcome, for a failure) to the records. When
// another runner appended meanwhile and this runner still holds the lock
// (renewed just now, a compare-and-swap), the records are read again and
// event appended after theirs, once: a runner whose lease this one took
// over records how its handoff ended when it notices (RecordOutcome), and
// that late record must not make the lock's holder fail. A runner that no
// longer holds the lock is refused, as before.
func (h *Handoff) Record(event, outcome string) error {
	r := h.base
	r.Event, r.Outcome, r.At = event, outcome, h.s.Now().UTC()
	r.Runner = Runner{}
	err := h.s.Append(h.Chain, r)
	var moved *recordsMovedError
	if !errors.As(err, &moved) || !h.Held.holds() {
		return err
	}
	chain, cerr := h.s.Chain(View{}, h.Chain.Workflow)
	if cerr != nil {
		return err
	}
	h.Chain = chain
	return h.s.Append(h.Chain, r)
}

// Release releases the lock (idempotent).
func (h *Handoff) Release() error {
	if h == nil {
		return nil
	}
	return h.Held.Release()
}

// KeepAlive renews the lease of the lock held while the handoff runs
// (Held.KeepAlive); Release stops it.
func (h *Handoff) KeepAlive(interval time.Duration, report func(error)) {
	if h != nil {
		h.Held.KeepAlive(interval, report)
	}
}

// Lost is the *LostError a renewal found (Held.Lost), nil if none.
func (h *Handoff) Lost() error {
	if h == nil {
		return nil
	}
	return h.Held.Lost()
}
