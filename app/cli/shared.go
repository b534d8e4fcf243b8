package cli

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"os/user"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/app/cli/jsondoc"
	"github.com/orchestrate-dev/orchestrate/app/resumeflow"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
	"github.com/orchestrate-dev/orchestrate/internal/gitremote"
	"github.com/orchestrate-dev/orchestrate/internal/sharedlife"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/templates"
)

// reasonHeldRemotely is the --json "reason" of a workflow another runner
// holds on the shared lifecycle (exit 16).
const reasonHeldRemotely = resumeflow.ReasonHeldRemotely

// reasonSharedUnusable is the --json "reason" of exit 20.
const reasonSharedUnusable = resumeflow.ReasonSharedUnusable

// sharedState is the shared lifecycle of one command: the store (nil
// without lifecycle.remote), what one fetch read, and why it could not be
// used.
type sharedState struct {
	store *sharedlife.Store
	view  *resumeflow.Shared
	err   error // set when lifecycle.remote is on and could not be used
}

// on reports whether lifecycle.remote is set.
func (sh *sharedState) on() bool { return sh != nil && (sh.store != nil || sh.err != nil) }

// gitEnviron is the environment git runs in: the injected one, with PATH
// and HOME from Getenv when it has none.
func (a *app) gitEnviron() []string {
	env := a.environ()
	for _, k := range []string{"PATH", "HOME"} {
		has := false
		for _, kv := range env {
			if strings.HasPrefix(kv, k+"=") {
				has = true
			}
		}
		if v := a.sys.Getenv(k); !has && v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// sharedLifecycle opens the shared lifecycle when lifecycle.remote (or
// ORCHESTRATE_REMOTE) is set and fetches it once. Off: a zero state.
func (a *app) sharedLifecycle(s *loadedRepo) *sharedState {
	name := strings.TrimSpace(s.Cfg.Lifecycle.Remote)
	if name == "" {
		return &sharedState{}
	}
	sh := &sharedState{}
	if s.Git == nil {
		// no git orchestrate can read (none, or a .git it refuses: a FIFO, a
		// huge file): git would block on it or fail; never a silent fallback
		why := "not a git repository"
		if s.GitErr != nil {
			why = s.GitErr.Error()
		}
		sh.err = fmt.Errorf("%w: lifecycle.remote %q: the repository's git data cannot be read (%s)", sharedlife.ErrUnusable, name, why)
		return sh
	}
	r, err := gitremote.Open(s.Root, name, a.gitEnviron(), gitremote.DefaultTimeout)
	if err != nil {
		sh.err = fmt.Errorf("%w: %w", sharedlife.ErrUnusable, err)
		return sh
	}
	host, _ := os.Hostname()
	owner := ""
	if u, err := user.Current(); err == nil {
		owner = u.Username
	}
	sh.store = &sharedlife.Store{
		Remote: r, Lease: leaseFor(s.Cfg.Lifecycle.Lease, s.Cfg.Handoff.Timeout),
		Me:  sharedlife.Runner{Owner: owner, Host: host, PID: a.sys.Pid, CI: sharedlife.CIRun(a.sys.Getenv)},
		Now: a.sys.Now,
	}
	v, err := sh.store.Fetch()
	if err != nil {
		sh.err = err
		return sh
	}
	sh.view = &resumeflow.Shared{Remote: name, View: v}
	a.debugf("shared lifecycle on %s: %d locks, %d record chains", name, len(v.Locks), len(v.Records))
	return sh
}

// leaseFor is the lease of the shared locks this process takes
// (sharedlife.LeaseFor; tests shorten it below sharedlife.MinLease).
var leaseFor = sharedlife.LeaseFor

// SetLeaseForTests makes every shared lock this process takes a lease of d,
// below sharedlife.MinLease if need be (its renewals a third of it apart on
// the real clock): only the end-to-end scripts' test binary calls it
// (cmd/orchestrate's TestMain, when a script sets ORCHESTRATE_TEST_LEASE,
// which only that test binary reads); the orchestrate command never does.
func SetLeaseForTests(d time.Duration) {
	leaseFor = func(time.Duration, time.Duration) time.Duration { return d }
}

// sharedUnusable is the message of exit 20.
func sharedUnusable(err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, sharedlife.ErrUnusable.Error()+": ")
	return fmt.Errorf("the shared lifecycle (lifecycle.remote) could not be used; nothing ran: %s", msg)
}

// ciWarning: autopilot in CI without lifecycle.remote in a clone that has a
// remote: another job can hand the same work off.
func (a *app) ciWarning(s *loadedRepo, mode modes.Mode) {
	if mode != modes.ModeAutopilot || a.sys.Getenv("CI") != "true" || strings.TrimSpace(s.Cfg.Lifecycle.Remote) != "" {
		return
	}
	// only a repository orchestrate could read itself is asked about its
	// remotes: git blocks on a FIFO or a huge file in .git, which makes
	// orchestrate run without git (docs/SECURITY.md)
	if s.Git == nil || !gitremote.HasRemote(s.Root, a.gitEnviron()) {
		return
	}
	fmt.Fprintln(a.sys.IO.ErrOut, "warning: autopilot in CI with the lifecycle kept in this checkout only: another job (a fresh clone) can hand the same workflow off again. Set lifecycle.remote: origin in the config (or ORCHESTRATE_REMOTE=origin) to share the lock and the handoff records through the git remote.")
}

// heldRemotely is the message of a workflow held on the shared lifecycle.
func heldRemotely(id string, l sharedlife.Lock) error {
	return (&sharedlife.HeldError{Workflow: id, Holder: l})
}

// sharedHandoff wraps one handoff.Execute in the shared lifecycle: take
// the lock on the remote, read the records, stop when this resume was
// handed off before (unless again), record the dispatch, run, record the
// outcome, release the lock whatever happens (signals included).
type sharedHandoff struct {
	a         *app
	h         *sharedlife.Handoff
	lease     *resumeflow.Lease // the lease's renewal, from the lock taken to end
	inCommand atomic.Bool
	stopSig   func()
}

// beginShared starts the shared part of r's handoff. done is set when the
// run is already finished (held elsewhere, already handed off, remote
// unusable): the returned error is the command's result.
func (a *app) beginShared(r *resumeRun, req *handoff.Request) (sh *sharedHandoff, done bool, err error) {
	if r.shared == nil || (!r.shared.on() && strings.TrimSpace(r.s.Cfg.Lifecycle.Remote) != "") {
		// a saved plan applied (--plan), or the repository's file trusted
		// at the prompt since: read it here
		r.shared = a.sharedLifecycle(r.s)
	}
	st := r.shared
	if !st.on() {
		return nil, false, nil
	}
	if st.err != nil || st.view == nil {
		r.reason = reasonSharedUnusable
		return nil, true, a.finishResume(r, "error", cmdutil.ExitShared, sharedUnusable(st.err))
	}
	c := r.selected
	key, err := handoff.KeyFor(r.s.Root, *c, r.plan.ResumeFrom.Phase)
	if err != nil {
		return nil, true, a.finishResume(r, "error", cmdutil.ExitError, err)
	}
	base := sharedlife.Record{Key: key, Phase: r.plan.ResumeFrom.Phase, Agent: r.plan.ResumeFrom.Agent, Mode: string(r.mode), Again: req.Again}
	h, err := st.store.Begin(st.view.View, c.ID, "orchestrate resume", base)
	movesOn := a.movesOn(r)
	var held *sharedlife.HeldError
	errors.As(err, &held)
	switch resumeflow.SharedStep(err, nil, req.Again, movesOn) {
	case resumeflow.SharedSkipHeld:
		fmt.Fprintf(a.sys.IO.ErrOut, "Skipping %s: held by %s on the shared lifecycle (lease until %s).\n", templates.Safe(c.ID), templates.Safe(held.Holder.Runner.String()), held.Holder.Expires.UTC().Format(time.RFC3339))
		return nil, true, a.passOver(r)
	case resumeflow.SharedHeld:
		r.reason, r.holder = reasonHeldRemotely, jsondoc.NewHolder(held.Holder)
		return nil, true, a.finishResume(r, "locked", cmdutil.ExitLocked, fmt.Errorf("%w: not resuming it twice", held))
	case resumeflow.SharedUnusable:
		r.reason = reasonSharedUnusable
		return nil, true, a.finishResume(r, "error", cmdutil.ExitShared, sharedUnusable(err))
	}
	sh = &sharedHandoff{a: a, h: h}
	sh.catchSignals()
	// held from here to finish (or end): the lease is renewed meanwhile, a
	// takeover logged and warned about
	sh.lease = resumeflow.KeepLease(h, r.s.Root, r.s.LogPath(), a.sys.IO.ErrOut, a.sys.Now)
	// a takeover stops the handoff: the orchestrator command gets the
	// stop path of a forwarded signal, the run exits 16 (lease_lost)
	req.Context = sh.lease.StopOnLoss()
	if t := h.Held.TookOver; t != nil {
		fmt.Fprintf(a.sys.IO.ErrOut, "Took over the shared lock of %s: its lease ended (%s).\n", templates.Safe(c.ID), templates.Safe(t.Runner.String()))
	}
	switch resumeflow.SharedStep(nil, h, req.Again, movesOn) {
	case resumeflow.SharedSkipDone:
		// handed off by another runner between the fetch and the lock
		sh.end()
		fmt.Fprintf(a.sys.IO.ErrOut, "Skipping %s: handed off %s by %s.\n", templates.Safe(c.ID), templates.Ago(r.s.Now.Sub(h.Prior.At)), templates.Safe(h.Prior.Runner.String()))
		return nil, true, a.passOver(r)
	case resumeflow.SharedAlready:
		p := h.Prior
		to := ""
		if p.Agent != "" {
			to = " to @" + strings.TrimPrefix(p.Agent, "@")
		}
		fmt.Fprintf(a.humanOut(r.opts), "Already handed off %s by %s%s: this resume of %s was handed off before (shared records on %s); nothing to do.\nTo hand it off again at the same phase, run: orchestrate resume %s --again\n",
			templates.Ago(r.s.Now.Sub(p.At)), templates.Safe(p.Runner.String()), templates.Safe(to), templates.Safe(c.ID), templates.Safe(st.view.Remote), templates.Safe(c.ID))
		sh.end()
		r.reason = reasonAlreadyHandedOff
		return nil, true, a.finishQuiet(r, "none", cmdutil.ExitOK)
	}
	if h.Unconfirmed() {
		fmt.Fprintf(a.humanOut(r.opts), "The previous handoff of %s (by %s) was dispatched but its command never started (unconfirmed): handing it off again.\n", templates.Safe(c.ID), templates.Safe(h.Prior.Runner.String()))
	}
	if err := h.Record(sharedlife.EventDispatched, ""); err != nil {
		sh.end()
		r.reason = reasonSharedUnusable
		return nil, true, a.finishResume(r, "error", cmdutil.ExitShared, sharedUnusable(err))
	}
	before := req.BeforeCommand
	req.BeforeCommand = func(res handoff.Result) {
		if err := h.Record(sharedlife.EventStarted, ""); err != nil {
			fmt.Fprintf(a.sys.IO.ErrOut, "warning: could not record the command's start on the shared lifecycle: %s\n", cmdutil.SafeErr(err))
		}
		sh.inCommand.Store(true)
		if before != nil {
			before(res)
		}
	}
	return sh, false, nil
}

// finish records how the handoff ended on the shared lifecycle and
// releases the lock.
func (sh *sharedHandoff) finish(err error) {
	if sh == nil {
		return
	}
	sh.inCommand.Store(false)
	if rerr := resumeflow.RecordOutcome(sh.h, err); rerr != nil {
		why := ""
		if sh.h.Lost() != nil {
			why = " (the lock was taken over: the new holder's records, if any, are left as they are)"
		}
		fmt.Fprintf(sh.a.sys.IO.ErrOut, "warning: could not record the outcome on the shared lifecycle%s: %s\n", why, cmdutil.SafeErr(rerr))
	}
	sh.end()
}

// end releases the lock — stopping its lease's renewal first — and stops
// catching signals (idempotent). A lock a renewal found taken over is left
// to its new holder; that was said when it was found (and the handoff
// stopped: StopOnLoss).
func (sh *sharedHandoff) end() {
	if sh.stopSig != nil {
		sh.stopSig()
		sh.stopSig = nil
	}
	var lost *sharedlife.LostError
	if err := sh.h.Release(); err != nil && !errors.As(err, &lost) {
		fmt.Fprintf(sh.a.sys.IO.ErrOut, "warning: %s\n", cmdutil.SafeErr(err))
	}
	sh.lease.Flush()
}

// catchSignals releases the shared lock when orchestrate is told to stop
// while it holds it: outside the orchestrator command the lock is released
// and orchestrate exits (128+signal); while the command runs the command
// layer forwards the signal and the handoff ends normally (finish).
func (sh *sharedHandoff) catchSignals() {
	release := fastsys.Hold() // the handler must run while a file-system call waits
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	quit := make(chan struct{})
	go func() {
		for {
			select {
			case <-quit:
				return
			case sig := <-ch:
				if sh.inCommand.Load() {
					continue
				}
				_ = sh.h.Release()
				code := 130
				if s, ok := sig.(syscall.Signal); ok {
					code = 128 + int(s)
				}
				fmt.Fprintf(sh.a.sys.IO.ErrOut, "orchestrate: %s: released the shared lock; stopping.\n", sig)
				os.Exit(code)
			}
		}
	}()
	sh.stopSig = func() {
		signal.Stop(ch)
		close(quit)
		release()
	}
}

// movesOn reports whether r is an autopilot run that picked its workflow
// itself (no name, no saved plan): one taken on the shared lifecycle is
// skipped for the next, as a live local handoff is.
func (a *app) movesOn(r *resumeRun) bool {
	return resumeflow.MovesOn(r.opts.Workflow != "", r.opts.Plan != "", r.mode, len(r.opts.passed))
}

// passOver starts the run over without r's workflow (movesOn): a fresh
// discovery and one more fetch, which sees what the other runner did.
func (a *app) passOver(r *resumeRun) error {
	opts := *r.opts
	opts.passed = map[string]bool{}
	for id := range r.opts.passed {
		opts.passed[id] = true
	}
	opts.passed[r.selected.ID] = true
	if len(opts.passed) > len(r.s.Res.Candidates) {
		return a.finishResume(r, "none", cmdutil.ExitOK, errors.New("nothing to resume: every interrupted workflow is taken on the shared lifecycle"))
	}
	return a.runResume(&opts)
}

// sharedCleanupLock takes workflow id's shared lock for a cleanup when
// lifecycle.remote is on (another runner's live lease: exit 16; the remote
// unusable: exit 20), and returns what releases it.
func (a *app) sharedCleanupLock(s *loadedRepo, id string) (func(), error) {
	st := a.sharedLifecycle(s)
	if !st.on() {
		return func() {}, nil
	}
	if st.err != nil {
		return nil, cmdutil.Exitf(cmdutil.ExitShared, "%v", sharedUnusable(st.err))
	}
	held, err := st.store.Acquire(st.view.View, id, "orchestrate cleanup")
	var h *sharedlife.HeldError
	switch {
	case errors.As(err, &h):
		return nil, cmdutil.Exitf(cmdutil.ExitLocked, "%v: not cleaning it up", h)
	case err != nil:
		return nil, cmdutil.Exitf(cmdutil.ExitShared, "%v", sharedUnusable(err))
	}
	return func() {
		if err := held.Release(); err != nil {
			fmt.Fprintf(a.sys.IO.ErrOut, "warning: %s\n", cmdutil.SafeErr(err))
		}
	}, nil
}
