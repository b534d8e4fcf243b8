// Package sharedlife is the lifecycle shared through a git remote
// (lifecycle.remote): the lock of a workflow and its handoff records kept
// as refs under refs/orchestrate/ on the remote, so that CI jobs in fresh
// clones, and people in their own clones, hand one workflow off exactly
// once. Every update is a compare-and-swap push (internal/gitremote); the
// server's atomic ref update is what makes it exactly once
// (docs/drafts/remote.md).
//
// Layout on the remote:
//
//	refs/orchestrate/locks/<id>    a commit whose message is a Lock (JSON)
//	refs/orchestrate/records/<id>  the newest Record commit; its parent the previous one
//
// <id> is gitremote.RefComponent of the workflow id. Everything read back
// is untrusted (anyone who can push to the remote can write it): it is
// size-bounded, parsed as data, and a value whose workflow does not match
// its ref is ignored.
package sharedlife

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitremote"
	"github.com/orchestrate-dev/orchestrate/internal/redact"
)

// Schemas of the values written.
const (
	LockSchema   = "orchestrate/lock/v1"
	RecordSchema = "orchestrate/record/v1"
)

// Record events: the same lifecycle as the local orchestration log.
const (
	EventDispatched = "dispatched" // the point of no return: the command is about to run
	EventStarted    = "started"    // its process started
	EventHandedOff  = "handed_off" // it ended well (or no command: handed off)
	EventFailed     = "failed"     // rolled back; the workflow is interrupted
)

// DefaultLease is the lease when handoff.timeout is not set.
const DefaultLease = 2 * time.Hour

// LeaseMargin is added to handoff.timeout for the default lease: the
// command's grace, the pushes, a slow runner.
const LeaseMargin = 15 * time.Minute

// MaxRecords is how many records of one workflow are read back.
const MaxRecords = 200

// maxValue bounds one lock or record message read back.
const maxValue = 16 << 10

// MinLease is the shortest lease a configuration can set: below it a live
// runner's lock could lapse between two of its own pushes.
const MinLease = 30 * time.Second

// LeaseFor is the lease of a lock: configured when > 0 (at least
// MinLease), else handoff.timeout plus LeaseMargin, else DefaultLease.
func LeaseFor(configured, timeout time.Duration) time.Duration {
	switch {
	case configured > 0:
		return max(configured, MinLease)
	case timeout > 0:
		return timeout + LeaseMargin
	}
	return DefaultLease
}

// Runner is who runs a command: the user, the host, the pid, and the CI
// job when the environment names one.
type Runner struct {
	Owner string `json:"owner,omitempty"`
	Host  string `json:"host,omitempty"`
	PID   int    `json:"pid,omitempty"`
	// CI is the CI job, e.g. "github-actions run 123 attempt 1".
	CI string `json:"ci,omitempty"`
}

// String is the runner for people: the CI job when there is one, else
// owner@host (pid).
func (r Runner) String() string {
	who := r.Owner
	if r.Host != "" {
		if who != "" {
			who += "@"
		}
		who += r.Host
	}
	if who == "" {
		who = "an unknown runner"
	}
	if r.CI != "" {
		return r.CI + " (" + who + ")"
	}
	return who
}

// CIRun names the CI job of the environment (GitHub Actions, GitLab CI,
// Buildkite, Jenkins), "" outside CI.
func CIRun(getenv func(string) string) string {
	switch {
	case getenv("GITHUB_ACTIONS") == "true" && getenv("GITHUB_RUN_ID") != "":
		s := "github-actions run " + getenv("GITHUB_RUN_ID")
		if a := getenv("GITHUB_RUN_ATTEMPT"); a != "" {
			s += " attempt " + a
		}
		if j := getenv("GITHUB_JOB"); j != "" {
			s += " job " + j
		}
		return bounded(s)
	case getenv("GITLAB_CI") == "true" && getenv("CI_JOB_ID") != "":
		return bounded("gitlab-ci job " + getenv("CI_JOB_ID"))
	case getenv("BUILDKITE") == "true" && getenv("BUILDKITE_JOB_ID") != "":
		return bounded("buildkite job " + getenv("BUILDKITE_JOB_ID"))
	case getenv("JENKINS_URL") != "" && getenv("BUILD_TAG") != "":
		return bounded("jenkins " + getenv("BUILD_TAG"))
	}
	return ""
}

// bounded keeps a value from the environment short and printable.
func bounded(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0x20 && r != 0x7f && b.Len() < 200 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Lock is the value of a lock ref.
type Lock struct {
	Schema   string    `json:"schema"`
	Workflow string    `json:"workflow"`
	Runner   Runner    `json:"runner"`
	Token    string    `json:"token"` // this acquisition's own random id
	Acquired time.Time `json:"acquired_at"`
	Expires  time.Time `json:"expires_at"`
	// Renewed is when the holder last renewed its lease (Held.Renew).
	Renewed time.Time `json:"renewed_at,omitzero"`
	Command string    `json:"command,omitempty"`
	// Commit is the lock commit's id (not written: it is the ref's value).
	Commit string `json:"-"`
}

// Live reports whether the lease still runs at now.
func (l Lock) Live(now time.Time) bool { return now.Before(l.Expires) }

// Record is one handoff record.
type Record struct {
	Schema   string    `json:"schema"`
	Workflow string    `json:"workflow"`
	Key      string    `json:"idempotency_key"`
	Event    string    `json:"event"`
	Phase    string    `json:"phase,omitempty"`
	Agent    string    `json:"agent,omitempty"`
	Mode     string    `json:"mode,omitempty"`
	Again    bool      `json:"again,omitempty"`
	Outcome  string    `json:"outcome,omitempty"` // for failed: why, in one line
	Runner   Runner    `json:"runner"`
	At       time.Time `json:"at"`
}

// Records is what the remote says of one workflow: the tip of its record
// chain and the newest record.
type Records struct {
	Tip  string
	Last Record
}

// View is the shared lifecycle as fetched once: the locks and the newest
// record of every workflow, by workflow id.
type View struct {
	Locks   map[string]Lock
	Records map[string]Records
}

// Store is the shared lifecycle on one remote.
type Store struct {
	Remote *gitremote.Remote
	// Lease is the length of a lock's lease.
	Lease time.Duration
	// Me is this runner.
	Me Runner
	// Now is the clock.
	Now func() time.Time
	// fetched is set once Fetch succeeded: Load reads the local copy.
	fetched bool
}

// ErrUnusable wraps every failure that means the shared lifecycle could not
// be used (exit 20): the remote unreachable, refusing, no git.
var ErrUnusable = errors.New("the shared lifecycle could not be used")

// unusable wraps err as ErrUnusable, keeping git's message.
func unusable(err error) error {
	if err == nil || errors.Is(err, ErrUnusable) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnusable, err)
}

// Fetch fetches the remote's refs/orchestrate/ (one fetch) and reads them.
func (s *Store) Fetch() (View, error) {
	if err := s.Remote.Fetch(); err != nil {
		return View{}, unusable(err)
	}
	s.fetched = true
	return s.read()
}

// read reads the fetched refs into a View.
func (s *Store) read() (View, error) {
	v := View{Locks: map[string]Lock{}, Records: map[string]Records{}}
	refs, err := s.Remote.Refs("")
	if err != nil {
		return v, unusable(err)
	}
	for _, r := range refs {
		kind, comp, ok := strings.Cut(r.Name, "/")
		if !ok {
			continue
		}
		switch kind {
		case "locks":
			if l, ok := parseLock(r.Message, comp); ok {
				l.Commit = r.Commit
				v.Locks[l.Workflow] = l
			}
		case "records":
			if rec, ok := parseRecord(r.Message, comp); ok {
				v.Records[rec.Workflow] = Records{Tip: r.Commit, Last: rec}
			}
		}
	}
	return v, nil
}

// parseLock reads a lock value; it is kept only when it is one and names
// the workflow its ref is for.
func parseLock(msg, comp string) (Lock, bool) {
	var l Lock
	if len(msg) > maxValue || json.Unmarshal([]byte(strings.TrimSpace(msg)), &l) != nil || l.Schema != LockSchema {
		return Lock{}, false
	}
	if c, err := gitremote.RefComponent(l.Workflow); err != nil || c != comp {
		return Lock{}, false
	}
	return l, true
}

// parseRecord reads a record value, kept only when it names the workflow
// of its ref (comp; "" skips that check).
func parseRecord(msg, comp string) (Record, bool) {
	var r Record
	if len(msg) > maxValue || json.Unmarshal([]byte(strings.TrimSpace(msg)), &r) != nil || r.Schema != RecordSchema {
		return Record{}, false
	}
	if c, err := gitremote.RefComponent(r.Workflow); err != nil || (comp != "" && c != comp) {
		return Record{}, false
	}
	return r, true
}

// HeldError is a workflow whose lock another runner holds with a live lease
// (exit 16, reason held_remotely).
type HeldError struct {
	Workflow string
	Holder   Lock
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("%s is held by another runner on the shared lifecycle: %s, since %s, lease until %s",
		e.Workflow, e.Holder.Runner, e.Holder.Acquired.UTC().Format(time.RFC3339), e.Holder.Expires.UTC().Format(time.RFC3339))
}

// Held is a lock this runner holds on the remote. Its lease is renewed
// while KeepAlive runs; Release stops the renewal and lets the lock go.
type Held struct {
	s        *Store
	Workflow string
	name     string
	// Commit is the lock's current value on the remote (a renewal moves it).
	Commit string
	// TookOver is the expired lock replaced, if any.
	TookOver *Lock

	mu       sync.Mutex // guards Commit, lock, lost and released against the renewer
	lock     Lock       // the value written
	lost     *LostError // set once a renewal found the lock taken over
	released bool
	renewer  *renewer
}

// Acquire takes workflow id's lock on the remote: a push that creates the
// ref only if it is absent, or, when the lock seen (from v) has an expired
// lease, replaces it only if it still has the value seen. A live lease of
// another runner is *HeldError; a lost swap is re-read once and reported
// as *HeldError (or retried when the winner already let go, three tries in
// all: a lock that changed hands on each is *HeldError too); anything else
// is ErrUnusable.
func (s *Store) Acquire(v View, id, command string) (*Held, error) {
	comp, err := gitremote.RefComponent(id)
	if err != nil {
		return nil, err
	}
	name := "locks/" + comp
	seen, has := v.Locks[id]
	for attempt := 0; attempt < 3; attempt++ {
		now := s.Now()
		if has && seen.Live(now) {
			return nil, &HeldError{Workflow: id, Holder: seen}
		}
		lock := Lock{Schema: LockSchema, Workflow: id, Runner: s.Me, Token: token(), Acquired: now.UTC(),
			Expires: now.Add(s.Lease).UTC(), Command: bounded(command)}
		msg, _ := json.Marshal(lock)
		commit, err := s.Remote.Commit("", string(msg)+"\n", now)
		if err != nil {
			return nil, unusable(err)
		}
		old := ""
		if has {
			old = seen.Commit
		}
		err = s.Remote.Push(gitremote.Update{Name: name, Old: old, New: commit})
		if err == nil {
			h := &Held{s: s, Workflow: id, name: name, Commit: commit, lock: lock}
			if has {
				took := seen
				h.TookOver = &took
			}
			return h, nil
		}
		if !errors.Is(err, gitremote.ErrRejected) {
			return nil, unusable(err)
		}
		// lost the swap: read what is there now (nothing: the winner
		// already let go, try again)
		cur, err := s.Remote.RemoteValue(name)
		if err != nil {
			return nil, unusable(err)
		}
		if cur == "" {
			has = false
			continue
		}
		if err := s.Remote.FetchRef(name); err != nil {
			if cur, lerr := s.Remote.RemoteValue(name); lerr == nil && cur == "" {
				has = false // let go meanwhile
				continue
			}
			return nil, unusable(err)
		}
		refs, err := s.Remote.Refs(name)
		if err != nil {
			return nil, unusable(err)
		}
		has = false
		for _, r := range refs {
			if r.Name != name {
				continue
			}
			if l, ok := parseLock(r.Message, comp); ok {
				l.Commit = r.Commit
				seen, has = l, true
			} else {
				// not a lock of ours: a value nobody can judge blocks like a live one
				return nil, &HeldError{Workflow: id, Holder: Lock{Workflow: id, Runner: Runner{Owner: "unreadable lock " + r.Commit[:12]}, Expires: now.Add(s.Lease)}}
			}
		}
	}
	// the lock changed hands on every try: other runners are taking it in
	// turn (each push that lost was beaten by one that won), so it is
	// held, not unusable, and the caller moves on as from a live lock (a
	// pipeline of many jobs on few workflows: lifecycle_remote_race)
	holder := seen
	if !has {
		holder = Lock{Workflow: id, Runner: Runner{Owner: "other runners (the lock changed hands on each try)"}, Acquired: s.Now().UTC(), Expires: s.Now().UTC()}
	}
	return nil, &HeldError{Workflow: id, Holder: holder}
}

// Release stops the lease's renewal (KeepAlive; an in-flight renewal push
// is waited for) and deletes the lock on the remote if it is still this
// runner's (a compare-and-swap delete). A lock a renewal found taken over
// is left alone and its *LostError returned. Releasing twice does nothing.
func (h *Held) Release() error {
	if h == nil {
		return nil
	}
	h.stopRenewal()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.released {
		return nil
	}
	h.released = true
	if h.lost != nil {
		return h.lost
	}
	err := h.s.Remote.Push(gitremote.Update{Name: h.name, Old: h.Commit, New: ""})
	if errors.Is(err, gitremote.ErrRejected) {
		return fmt.Errorf("the shared lock of %s was no longer ours (its lease ended and another runner took it): left as it is", h.Workflow)
	}
	if err != nil {
		return fmt.Errorf("release the shared lock of %s (its lease ends it): %w", h.Workflow, err)
	}
	return nil
}

// Chain is one workflow's records as this runner holds its lock: the tip
// read (and verified on the remote after the lock was taken) and the
// records, newest first.
type Chain struct {
	Workflow string
	name     string
	Tip      string
	Records  []Record
}

// Chain reads workflow id's record chain once its lock is held: the
// remote's tip is checked (git ls-remote) against the fetched one, and
// fetched again only when it moved (a runner that held the lock before
// appended to it).
func (s *Store) Chain(v View, id string) (*Chain, error) {
	comp, err := gitremote.RefComponent(id)
	if err != nil {
		return nil, err
	}
	name := "records/" + comp
	tip, err := s.Remote.RemoteValue(name)
	if err != nil {
		return nil, unusable(err)
	}
	seen := v.Records[id].Tip
	if tip != "" && tip != seen {
		if err := s.Remote.FetchRef(name); err != nil {
			return nil, unusable(err)
		}
	}
	c := &Chain{Workflow: id, name: name, Tip: tip}
	if tip == "" {
		return c, nil
	}
	msgs, err := s.Remote.Log(tip, MaxRecords)
	if err != nil {
		return nil, unusable(err)
	}
	for _, m := range msgs {
		if r, ok := parseRecord(m, comp); ok {
			c.Records = append(c.Records, r)
		}
	}
	return c, nil
}

// LastOfKey is the newest record with idempotency key key, if any.
func (c *Chain) LastOfKey(key string) (Record, bool) {
	for _, r := range c.Records {
		if r.Key == key {
			return r, true
		}
	}
	return Record{}, false
}

// Append adds rec at the end of the chain: a new commit whose parent is the
// tip, pushed only if the remote's tip is still the one read.
func (s *Store) Append(c *Chain, rec Record) error {
	rec.Schema, rec.Workflow = RecordSchema, c.Workflow
	if rec.Runner == (Runner{}) {
		rec.Runner = s.Me
	}
	if rec.At.IsZero() {
		rec.At = s.Now().UTC()
	}
	rec.Outcome = bounded(redact.String(rec.Outcome))
	msg, _ := json.Marshal(rec)
	commit, err := s.Remote.Commit(c.Tip, string(msg)+"\n", rec.At)
	if err != nil {
		return unusable(err)
	}
	if err := s.Remote.Push(gitremote.Update{Name: c.name, Old: c.Tip, New: commit}); err != nil {
		if errors.Is(err, gitremote.ErrRejected) {
			return unusable(&recordsMovedError{workflow: c.Workflow})
		}
		return unusable(err)
	}
	c.Tip = commit
	c.Records = append([]Record{rec}, c.Records...)
	return nil
}

// recordsMovedError is an append refused because the records' tip moved
// since this runner read it (Handoff.Record may append again).
type recordsMovedError struct{ workflow string }

func (e *recordsMovedError) Error() string {
	return fmt.Sprintf("the records of %s changed on the remote while this runner held the lock (a runner whose lease had ended?)", e.workflow)
}

// RemoveLock deletes workflow id's lock on the remote whatever it holds,
// if it still has the value seen in v (orchestrate unlock). It reports
// whether there was a lock.
func (s *Store) RemoveLock(v View, id string) (bool, error) {
	l, ok := v.Locks[id]
	if !ok {
		return false, nil
	}
	comp, err := gitremote.RefComponent(id)
	if err != nil {
		return false, err
	}
	if err := s.Remote.Push(gitremote.Update{Name: "locks/" + comp, Old: l.Commit, New: ""}); err != nil {
		if errors.Is(err, gitremote.ErrRejected) {
			return true, unusable(fmt.Errorf("the shared lock of %s changed while it was removed: nothing was removed; look again with orchestrate status", id))
		}
		return true, unusable(err)
	}
	return true, nil
}

// token is a random id for one acquisition.
func token() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
