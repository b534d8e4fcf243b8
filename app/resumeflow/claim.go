package resumeflow

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"github.com/orchestrate-dev/orchestrate/app/loaded"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/internal/logging"
	"github.com/orchestrate-dev/orchestrate/internal/sharedlife"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// The claim use case: an agent that is itself the orchestrator (over
// `orchestrate mcp`) takes a workflow the way autopilot would hand it off —
// the same gates, the same lock (local, or the shared remote lifecycle), the
// same exactly-once record — and gets the envelope instead of orchestrate
// running a command. The claim keeps the lock until it is released with an
// outcome.

// Release outcomes (Claim.Release).
const (
	OutcomeDone      = "done"
	OutcomeFailed    = "failed"
	OutcomeAbandoned = "abandoned"
)

// EventClaimReleased is the orchestration-log event of a claim released.
const EventClaimReleased = "claim.released"

// ClaimInput is one claim: the loaded session, the workflow named, who
// claims it, and the lifecycle to take it in.
type ClaimInput struct {
	Session  *loaded.Session
	Workflow string
	// Holder is the agent claiming the workflow (the MCP client's name when
	// it gave none): recorded as the holder of the handoff.
	Holder string
	// Again hands the same workflow and phase off once more (resume
	// --again); Force resumes over conflicts (resume --force) and takes a
	// stale lock over.
	Again, Force bool
	// Lock describes this process for the lock file.
	Lock handoff.LockInfo
	// Store and View are the shared lifecycle (lifecycle.remote) as fetched
	// once; Store nil: the lifecycle is this checkout's. SharedErr is set
	// when lifecycle.remote is on and could not be used (exit 20).
	Store     *sharedlife.Store
	View      *Shared
	SharedErr error
	// Stderr takes warnings (nil: discarded).
	Stderr io.Writer
}

// ClaimError is a claim refused: the exit code the CLI would exit with,
// the --json reason when there is one, and the message.
type ClaimError struct {
	Code   exitcode.Code
	Reason string
	Err    error
	// Holder is another runner's live lease (ReasonHeldRemotely).
	Holder *sharedlife.Lock
	// Plan is the plan of a claim the gates refused (a halt).
	Plan *plan.Plan
	// Findings are the findings behind a halt.
	Findings []workflow.Finding
}

// Error implements error.
func (e *ClaimError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *ClaimError) Unwrap() error { return e.Err }

func refused(code exitcode.Code, reason string, err error) *ClaimError {
	return &ClaimError{Code: code, Reason: reason, Err: err}
}

// Claim is a workflow claimed and held by an agent until Release.
type Claim struct {
	Workflow string
	Holder   string
	// Agent and Phase are where the agent picks up.
	Agent, Phase string
	// EnvelopePath is the envelope written (absolute); IdempotencyKey its key.
	EnvelopePath   string
	IdempotencyKey string
	// Unconfirmed is set when an earlier handoff of the same resume was
	// dispatched and never started: it was handed off again.
	Unconfirmed bool
	// TookOverStale is the owner of a stale lock taken over (Force).
	TookOverStale *handoff.LockInfo
	// Shared names the remote when the claim holds the shared lock.
	Shared string

	req    handoff.Request
	lock   *handoff.Lock
	shared *sharedlife.Handoff
	done   bool
}

// Gate evaluates the workflow in.Workflow names as autopilot would before
// a handoff: selected (an unknown, ambiguous or finished workflow is
// refused with resume's code), not locked here nor held on the shared
// lifecycle, and validated and planned with the autopilot mode's decision
// (conflicts, staleness, missing history halt with 17; Force resumes over
// conflicts). It writes nothing.
func Gate(in ClaimInput) (workflow.Candidate, Evaluation, *ClaimError) {
	s := in.Session
	c, cerr := selectFor(in)
	if cerr != nil {
		return c, Evaluation{}, cerr
	}
	if st := handoff.Inspect(s.Root, c.ID); st.Exists && st.Live {
		if st.Reason != "" {
			return c, Evaluation{}, refused(exitcode.Locked, "", fmt.Errorf("%s: its lock is not trusted (%s); it was left in place: check it, then run orchestrate unlock --force %s", c.ID, st.Reason, c.ID))
		}
		return c, Evaluation{}, refused(exitcode.Locked, "", fmt.Errorf("%s is being resumed by a live process (pid %d on %s, since %s%s): not resuming it twice", c.ID, st.Owner.PID, st.Owner.Host, st.Owner.StartedAt.Format(time.RFC3339), claimedBy(st.Owner.Command)))
	}
	if l, held := in.View.HeldBy(c.ID, s.Now); held {
		e := refused(exitcode.Locked, ReasonHeldRemotely, fmt.Errorf("%w: not resuming it twice", &sharedlife.HeldError{Workflow: c.ID, Holder: l}))
		e.Holder = &l
		return c, Evaluation{}, e
	}
	ev, cerr := evaluateFor(in, c)
	if cerr != nil {
		return c, ev, cerr
	}
	if ev.Plan.Decision != modes.DecisionResume {
		code := exitcode.Code(ev.Code)
		if code == exitcode.OK {
			code = exitcode.Cannot
		}
		p := ev.Plan
		e := refused(code, "", fmt.Errorf("%s cannot be claimed: %s%s", c.ID, ev.Plan.Reason, blockingText(ev.Findings)))
		e.Plan, e.Findings = &p, ev.Findings
		return c, ev, e
	}
	return c, ev, nil
}

// selectFor is the candidate in.Workflow names, or resume's refusal.
func selectFor(in ClaimInput) (workflow.Candidate, *ClaimError) {
	sel := Select(in.Session.Res.Candidates, in.Workflow)
	if sel.Err != nil {
		return workflow.Candidate{}, refused(sel.Code, "", sel.Err)
	}
	return *sel.Candidate, nil
}

// evaluateFor validates and plans c with the autopilot mode's decision.
func evaluateFor(in ClaimInput, c workflow.Candidate) (Evaluation, *ClaimError) {
	ev, err := Evaluate(in.Session, Input{
		Candidate: c, Mode: modes.ModeAutopilot, Force: in.Force,
		Candidates: len(in.Session.Resumable()), Selected: true,
	})
	if err != nil {
		return ev, refused(exitcode.Error, "", err)
	}
	return ev, nil
}

// claimedBy is the holder a lock's command names, for the locked message.
func claimedBy(command string) string {
	if _, who, ok := strings.Cut(command, "claimed by "); ok {
		return ", claimed by " + who
	}
	return ""
}

// blockingText lists the blocking findings of a refused claim, one clause
// each.
func blockingText(fs []workflow.Finding) string {
	var out []string
	for _, f := range fs {
		if f.Severity == workflow.Blocking {
			out = append(out, f.Error())
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " (" + strings.Join(out, "; ") + ")"
}

// request is the handoff request of a claim: the configured handoff with
// no command (the agent is the orchestrator), the holder, the lock kept.
func (in ClaimInput) request(c workflow.Candidate, ev Evaluation) handoff.Request {
	req := Request(Handoff{
		Session: in.Session, Candidate: c, Plan: ev.Plan, Validation: ev.Report.Status, Mode: modes.ModeAutopilot,
		Forced: in.Force && ev.Situation.Conflicts, TakeOverStale: in.Force, Again: in.Again,
		Stderr: in.Stderr, Lock: in.Lock,
	})
	req.Command, req.FallbackCommand = "", ""
	req.Holder, req.KeepLock = in.Holder, true
	req.Reason = "claimed by " + in.Holder + ": " + ev.Plan.Reason
	return req
}

// Context is the envelope a claim of in.Workflow would hand over — the
// restored context an agent reads before (or while) it works on it — with
// the autopilot mode's decision in its plan. Only an unknown, ambiguous or
// finished workflow is refused: a lock or a halt does not hide the context
// (the plan's decision and reason say whether a claim would go through).
// It writes nothing.
func Context(in ClaimInput) (handoff.Envelope, *ClaimError) {
	c, cerr := selectFor(in)
	if cerr != nil {
		return handoff.Envelope{}, cerr
	}
	ev, cerr := evaluateFor(in, c)
	if cerr != nil {
		return handoff.Envelope{}, cerr
	}
	key, err := handoff.KeyFor(in.Session.Root, c, ev.Plan.ResumeFrom.Phase)
	if err != nil {
		return handoff.Envelope{}, refused(exitcode.Error, "", err)
	}
	return handoff.EnvelopeFor(in.request(c, ev), key), nil
}

// ClaimWorkflow claims in.Workflow for in.Holder: the gates (Gate), the
// shared lock and records when lifecycle.remote is on, then the handoff
// with no command — lock, state marked resumed, envelope, log records
// naming the holder — keeping the lock. A resume already handed off at the
// same phase is refused (ReasonAlreadyHandedOff, exit 0) unless in.Again.
func ClaimWorkflow(in ClaimInput) (*Claim, *ClaimError) {
	h, err := CleanHolder(in.Holder)
	if err != nil {
		return nil, refused(exitcode.Usage, "", err)
	}
	in.Holder = h
	if in.SharedErr != nil {
		return nil, refused(exitcode.Shared, ReasonSharedUnusable, in.SharedErr)
	}
	if in.Stderr == nil {
		in.Stderr = io.Discard
	}
	c, ev, cerr := Gate(in)
	if cerr != nil {
		return nil, cerr
	}
	req := in.request(c, ev)
	cl := &Claim{Workflow: c.ID, Holder: in.Holder, Agent: ev.Plan.ResumeFrom.Agent, Phase: ev.Plan.ResumeFrom.Phase, req: req}

	if in.Store != nil && in.View != nil {
		if e := cl.beginShared(in, c); e != nil {
			return nil, e
		}
	}
	res, err := handoff.Execute(req)
	if err == nil && res.AlreadyHandedOff {
		err = fmt.Errorf("%s was already handed off at %s (same state, same phase): not claiming it twice; claim it with again to hand it off once more", c.ID, orDash(res.Phase))
		cl.endShared("", "")
		return nil, refused(exitcode.OK, ReasonAlreadyHandedOff, err)
	}
	if err != nil {
		cl.endShared(sharedlife.EventFailed, err.Error())
		var locked *handoff.LockedError
		var stale *handoff.StaleLockError
		switch {
		case errors.As(err, &locked):
			return nil, refused(exitcode.Locked, "", err)
		case errors.As(err, &stale):
			return nil, refused(exitcode.Locked, ReasonStaleLock, fmt.Errorf("%w: run orchestrate unlock %s, or claim with force to take it over", err, c.ID))
		}
		return nil, refused(exitcode.Error, "", err)
	}
	cl.lock, cl.EnvelopePath, cl.IdempotencyKey = res.Held, res.EnvelopePath, res.IdempotencyKey
	cl.Unconfirmed, cl.TookOverStale = res.Unconfirmed, res.TookOverStale
	if cl.shared != nil {
		// the agent is the running command: started until released
		if err := cl.shared.Record(sharedlife.EventStarted, ""); err != nil {
			fmt.Fprintf(in.Stderr, "warning: could not record the claim on the shared lifecycle: %v\n", err)
		}
	}
	return cl, nil
}

// beginShared takes the shared lock of c and records the dispatch, or
// refuses the claim as resume would (held: 16; already handed off: 0;
// unusable: 20).
func (cl *Claim) beginShared(in ClaimInput, c workflow.Candidate) *ClaimError {
	key, err := handoff.KeyFor(in.Session.Root, c, cl.Phase)
	if err != nil {
		return refused(exitcode.Error, "", err)
	}
	base := sharedlife.Record{Key: key, Phase: cl.Phase, Agent: cl.Agent, Mode: string(modes.ModeAutopilot), Again: in.Again}
	h, err := in.Store.Begin(in.View.View, c.ID, "orchestrate mcp: claimed by "+in.Holder, base)
	var held *sharedlife.HeldError
	switch {
	case errors.As(err, &held):
		e := refused(exitcode.Locked, ReasonHeldRemotely, fmt.Errorf("%w: not resuming it twice", held))
		e.Holder = &held.Holder
		return e
	case err != nil:
		return refused(exitcode.Shared, ReasonSharedUnusable, err)
	}
	cl.shared, cl.Shared = h, in.View.Remote
	if h.Already() && !in.Again {
		p := h.Prior
		cl.endShared("", "")
		return refused(exitcode.OK, ReasonAlreadyHandedOff, fmt.Errorf("%s was already handed off by %s (shared records on %s): not claiming it twice; claim it with again to hand it off once more", c.ID, p.Runner.String(), in.View.Remote))
	}
	if err := h.Record(sharedlife.EventDispatched, ""); err != nil {
		cl.endShared("", "")
		return refused(exitcode.Shared, ReasonSharedUnusable, err)
	}
	return nil
}

// endShared records event (none when "") on the shared lifecycle and
// releases its lock.
func (cl *Claim) endShared(event, outcome string) {
	if cl.shared == nil {
		return
	}
	if event != "" {
		if err := cl.shared.Record(event, outcome); err != nil {
			fmt.Fprintf(cl.stderr(), "warning: could not record the outcome on the shared lifecycle: %v\n", err)
		}
	}
	if err := cl.shared.Release(); err != nil {
		fmt.Fprintf(cl.stderr(), "warning: %v\n", err)
	}
	cl.shared = nil
}

func (cl *Claim) stderr() io.Writer {
	if cl.req.Stderr == nil {
		return io.Discard
	}
	return cl.req.Stderr
}

// maxHolder is the longest holder name accepted, in runes.
const maxHolder = 100

// CleanHolder checks the name a claim is recorded under (an agent's, or
// the MCP client's): trimmed, non-empty, at most maxHolder runes, no
// control characters — it lands in the lock, the log and the shared refs.
func CleanHolder(s string) (string, error) {
	h := strings.TrimSpace(s)
	if h == "" {
		return "", errors.New("claim: no holder: name the agent claiming the workflow (argument holder)")
	}
	if n := len([]rune(h)); n > maxHolder {
		return "", fmt.Errorf("claim: holder is %d characters long; at most %d", n, maxHolder)
	}
	for _, r := range h {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return "", fmt.Errorf("claim: holder %q has a control or format character", h)
		}
	}
	return h, nil
}

// ParseOutcome checks a release outcome: done, failed or abandoned.
func ParseOutcome(s string) (string, error) {
	switch o := strings.ToLower(strings.TrimSpace(s)); o {
	case OutcomeDone, OutcomeFailed, OutcomeAbandoned:
		return o, nil
	}
	return "", fmt.Errorf("outcome %q: want done, failed or abandoned", s)
}

// Release records how the claimed work ended and frees the lock: done
// leaves the handoff recorded (a second claim of the same phase is
// refused); failed and abandoned record the handoff as failed, so the
// workflow is interrupted again and a next resume or claim hands it off
// anew. The state file keeps what the claim (and the agent) wrote. note is
// logged (redacted) with the outcome.
func (cl *Claim) Release(outcome, note string, now time.Time) error {
	if cl.done {
		return fmt.Errorf("%s: the claim was already released", cl.Workflow)
	}
	o, err := ParseOutcome(outcome)
	if err != nil {
		return err
	}
	cl.done = true
	req := cl.req
	req.Now = now
	var problems []string
	log, err := logging.OpenActionLogIn(req.Root, req.LogPath)
	if err == nil {
		fields := logging.Fields{
			"event": EventClaimReleased, "workflow": cl.Workflow, "type": string(req.Candidate.Type),
			"resume_point": cl.Phase, "agent": cl.Agent, "holder": cl.Holder, "outcome": o,
			"idempotency_key": cl.IdempotencyKey,
		}
		if note != "" {
			fields["note"] = logging.Redact(note)
		}
		msg := fmt.Sprintf("claim by %s released: %s", cl.Holder, o)
		if o != OutcomeDone {
			// the handoff as the lifecycle reads it: failed, interrupted again
			ff := logging.Fields{
				"event": handoff.EventFailed, "workflow": cl.Workflow, "type": string(req.Candidate.Type),
				"resume_point": cl.Phase, "agent": cl.Agent, "holder": cl.Holder,
				"idempotency_key": cl.IdempotencyKey, "error": "claim released: " + o,
			}
			if err := log.Append(now, ff, "claimed work "+o+": the workflow is interrupted again"); err != nil {
				problems = append(problems, "record the outcome: "+err.Error())
			}
		}
		if err := log.Append(now, fields, msg); err != nil {
			problems = append(problems, "record the release: "+err.Error())
		}
		_ = log.Close()
	} else {
		problems = append(problems, "record the release: "+err.Error())
	}
	if cl.shared != nil {
		event, why := sharedlife.EventHandedOff, ""
		if o != OutcomeDone {
			event, why = sharedlife.EventFailed, "claim released: "+o
		}
		cl.endShared(event, why)
	}
	if cl.lock != nil {
		if err := cl.lock.Release(); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("release %s: %s", cl.Workflow, strings.Join(problems, "; "))
	}
	return nil
}
