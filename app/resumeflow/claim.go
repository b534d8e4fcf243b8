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
	lease  *Lease // the shared lease's renewal while the claim is held
	done   bool
}

// gate is what a resume does between choosing the candidate and acting
// on it, for the workflow in.Workflow names: selected (an unknown,
// ambiguous or finished workflow is refused with resume's code), the lock
// gate (TakeGate: a live local lock, another runner's live lease: 16), and
// the evaluation in autopilot mode (Evaluate: validation, plan,
// modes.Decide). It writes nothing; the decision is Flow.Act's.
func gate(in ClaimInput) (workflow.Candidate, Evaluation, *ClaimError) {
	s := in.Session
	c, cerr := selectFor(in)
	if cerr != nil {
		return c, Evaluation{}, cerr
	}
	if end, held, ok := TakeGate(s.Root, c.ID, in.View, s.Now, false); !ok {
		e := refused(exitcode.Code(end.Code), end.Reason, end.Err)
		e.Holder = held
		return c, Evaluation{}, e
	}
	ev, cerr := evaluateFor(in, c)
	return c, ev, cerr
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

// ClaimWorkflow claims in.Workflow for in.Holder as autopilot would hand
// it off, by construction: the same gate (TakeGate, Evaluate in autopilot
// mode), then the resume state machine itself (Flow.Act, no terminal)
// over a claim Host — its confirmation (modes.Decide's halt refuses the
// claim), the shared lock and records when lifecycle.remote is on
// (SharedStep), handoff.Execute with no command (lock, state marked
// resumed, envelope, log records naming the holder) keeping the lock, and
// the failure mapping (FailureOf). A resume already handed off at the
// same phase is refused (ReasonAlreadyHandedOff, exit 0) unless in.Again.
// While the claim holds the shared lock its lease is renewed (KeepLease)
// until Release.
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
	c, ev, cerr := gate(in)
	if cerr != nil {
		return nil, cerr
	}
	host := &claimHost{in: in, c: c, ev: ev,
		cl: &Claim{Workflow: c.ID, Holder: in.Holder, Agent: ev.Plan.ResumeFrom.Agent, Phase: ev.Plan.ResumeFrom.Phase}}
	fl := &Flow{Host: host, Trace: func(st State) { host.state = st }}
	if err := fl.Act(); err != nil && host.err == nil {
		host.err = refused(exitcode.Error, "", err)
	}
	if host.err != nil {
		return nil, host.err
	}
	if !host.claimed {
		return nil, refused(exitcode.Error, "", fmt.Errorf("%s: the claim ended without a handoff", c.ID))
	}
	return host.cl, nil
}

// claimHost is the resume state machine's Host for a claim: no terminal,
// no questions, nothing printed; the ends become a *ClaimError or the
// Claim.
type claimHost struct {
	in    ClaimInput
	c     workflow.Candidate
	ev    Evaluation
	cl    *Claim
	state State // the state the flow is in (Flow.Trace)
	// err is the claim refused; claimed is set once the handoff went
	// through and the claim holds the workflow.
	err     *ClaimError
	claimed bool
}

// Facts implements Host: autopilot, the workflow named, --json (nothing
// is offered), the claim's --force.
func (h *claimHost) Facts() Facts {
	s := h.in.Session
	return Facts{
		Candidate: h.c, Mode: modes.ModeAutopilot, Situation: h.ev.Situation,
		Decision: h.ev.Plan.Decision, Reason: h.ev.Plan.Reason, Partial: h.ev.Plan.Partial,
		Code: h.ev.Code, RestartOK: h.ev.RestartOK, AgeClass: h.ev.Report.AgeClass,
		Candidates: len(s.Resumable()), Named: true, JSON: true,
		Forced: h.in.Force && h.ev.Situation.Conflicts, Now: s.Now,
	}
}

// SetMode, SetForced, SetRestarted and DropAutopilotOnly implement Host: a
// claim makes no choices (the flow asks for them only on a terminal).
func (h *claimHost) SetMode(modes.Mode) {}

// SetForced implements Host (see SetMode).
func (h *claimHost) SetForced() {}

// SetRestarted implements Host (see SetMode).
func (h *claimHost) SetRestarted() {}

// DropAutopilotOnly implements Host (see SetMode).
func (h *claimHost) DropAutopilotOnly() {}

// Evaluate implements Host: the autopilot evaluation again.
func (h *claimHost) Evaluate() error {
	ev, cerr := evaluateFor(h.in, h.c)
	if cerr != nil {
		h.err = cerr
		return cerr
	}
	h.ev = ev
	return nil
}

// Choose implements Host: the workflow is named.
func (h *claimHost) Choose() (bool, error) { return false, nil }

// Take implements Host: gate ran before the flow.
func (h *claimHost) Take() (bool, error) { return false, nil }

// ShowBlocks implements Host: nothing is printed.
func (h *claimHost) ShowBlocks() error { return nil }

// RequireTrust implements Host: nothing runs (the agent is the
// orchestrator; the MCP server refuses an untrusted repository that would
// run a program before it claims).
func (h *claimHost) RequireTrust() error { return nil }

// Cleanup implements Host: never offered without a terminal.
func (h *claimHost) Cleanup() error { return nil }

// Request implements Host: the claim's request (no command, the holder,
// the lock kept).
func (h *claimHost) Request() (handoff.Request, error) {
	h.cl.req = h.in.request(h.c, h.ev)
	return h.cl.req, nil
}

// LockShared implements Host: the shared lock and records with
// lifecycle.remote, decided by SharedStep as a named resume's are (held:
// 16; already handed off: 0; unusable: 20). The release keeps the lock
// of a claim that went through (Claim.Release lets it go) and renews its
// lease meanwhile.
func (h *claimHost) LockShared(req *handoff.Request) (func(error), bool, error) {
	in, cl := h.in, h.cl
	release := func(outcome error) {
		switch {
		case outcome != nil:
			cl.endShared(sharedlife.EventFailed, outcome.Error())
		case !h.claimed:
			cl.endShared("", "")
		case cl.shared != nil:
			// the agent is the running command: started until released
			if err := cl.shared.Record(sharedlife.EventStarted, ""); err != nil {
				fmt.Fprintf(in.Stderr, "warning: could not record the claim on the shared lifecycle: %v\n", err)
			}
			cl.lease = KeepLease(cl.shared, req.Root, req.LogPath, in.Stderr, in.Store.Now)
		}
	}
	if in.Store == nil || in.View == nil {
		return release, false, nil
	}
	key, err := handoff.KeyFor(in.Session.Root, h.c, cl.Phase)
	if err != nil {
		h.err = refused(exitcode.Error, "", err)
		return release, true, nil
	}
	base := sharedlife.Record{Key: key, Phase: cl.Phase, Agent: cl.Agent, Mode: string(modes.ModeAutopilot), Again: req.Again}
	sh, err := in.Store.Begin(in.View.View, h.c.ID, ClaimCommand+in.Holder, base)
	var held *sharedlife.HeldError
	errors.As(err, &held)
	switch SharedStep(err, nil, req.Again, false) {
	case SharedHeld:
		h.err = refused(exitcode.Locked, ReasonHeldRemotely, fmt.Errorf("%w: not resuming it twice", held))
		h.err.Holder = &held.Holder
		return release, true, nil
	case SharedUnusable:
		h.err = refused(exitcode.Shared, ReasonSharedUnusable, err)
		return release, true, nil
	}
	cl.shared, cl.Shared = sh, in.View.Remote
	if SharedStep(nil, sh, req.Again, false) == SharedAlready {
		p := sh.Prior
		cl.endShared("", "")
		h.err = refused(exitcode.OK, ReasonAlreadyHandedOff, fmt.Errorf("%s was already handed off by %s (shared records on %s): not claiming it twice; claim it with again to hand it off once more", h.c.ID, p.Runner.String(), in.View.Remote))
		return release, true, nil
	}
	if err := sh.Record(sharedlife.EventDispatched, ""); err != nil {
		cl.endShared("", "")
		h.err = refused(exitcode.Shared, ReasonSharedUnusable, err)
		return release, true, nil
	}
	return release, false, nil
}

// Execute implements Host: handoff.Execute.
func (h *claimHost) Execute(req handoff.Request) (handoff.Result, error) {
	return handoff.Execute(req)
}

// Failed implements Host: the handoff failed; FailureOf gives the code
// and reason, the claim's own words the way out of a stale lock.
func (h *claimHost) Failed(f Failure, err error) error {
	if f.Reason == ReasonStaleLock {
		err = fmt.Errorf("%w: run orchestrate unlock %s, or claim with force to take it over", err, h.c.ID)
	}
	h.err = refused(exitcode.Code(f.Code), f.Reason, err)
	return nil
}

// Notify implements Host: the claim keeps what the handoff did.
func (h *claimHost) Notify(ev Event) error {
	switch ev.Kind {
	case EvDispatched, EvAlreadyHandedOff, EvHandedOff:
		res := ev.Result
		cl := h.cl
		cl.lock, cl.EnvelopePath, cl.IdempotencyKey = res.Held, res.EnvelopePath, res.IdempotencyKey
		cl.Unconfirmed, cl.TookOverStale = res.Unconfirmed, res.TookOverStale
		h.claimed = ev.Kind == EvHandedOff
	}
	return nil
}

// Finish implements Host: how the flow ended, as the claim's answer.
// Before the lock state it is the decision (a halt refuses the claim,
// with the plan and the findings); after it, a handoff done before.
func (h *claimHost) Finish(e End) error {
	if e.Outcome == "resumed" && e.Code == int(exitcode.OK) {
		return nil
	}
	h.claimed = false
	id := h.c.ID
	switch {
	case e.Reason == ReasonAlreadyHandedOff:
		h.err = refused(exitcode.OK, ReasonAlreadyHandedOff, fmt.Errorf("%s was already handed off at %s (same state, same phase): not claiming it twice; claim it with again to hand it off once more", id, orDash(h.cl.Phase)))
	case h.state == StateDecide || h.state == StateConfirm:
		code := exitcode.Code(e.Code)
		if code == exitcode.OK {
			code = exitcode.Cannot
		}
		p := h.ev.Plan
		h.err = refused(code, "", fmt.Errorf("%s cannot be claimed: %s%s", id, p.Reason, blockingText(h.ev.Findings)))
		h.err.Plan, h.err.Findings = &p, h.ev.Findings
	default:
		err := e.Err
		if err == nil {
			err = fmt.Errorf("%s: the claim ended (%s)", id, e.Outcome)
		}
		h.err = refused(exitcode.Code(e.Code), e.Reason, err)
	}
	return nil
}

// endShared records event (none when "") on the shared lifecycle and
// releases its lock (and so the lease's renewal). A lock a renewal found
// taken over was reported then (KeepLease); Release tells it again.
func (cl *Claim) endShared(event, outcome string) {
	if cl.shared == nil {
		return
	}
	if event != "" {
		if err := cl.shared.Record(event, outcome); err != nil {
			fmt.Fprintf(cl.stderr(), "warning: could not record the outcome on the shared lifecycle: %v\n", err)
		}
	}
	var lost *sharedlife.LostError
	if err := cl.shared.Release(); err != nil && !errors.As(err, &lost) {
		fmt.Fprintf(cl.stderr(), "warning: %v\n", err)
	}
	cl.lease.Flush()
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
	if sh := cl.shared; sh != nil {
		event, why := sharedlife.EventHandedOff, ""
		if o != OutcomeDone {
			event, why = sharedlife.EventFailed, "claim released: "+o
		}
		cl.endShared(event, why) // stops the lease's renewal first
		if lost := sh.Lost(); lost != nil {
			problems = append(problems, lost.Error())
		}
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
