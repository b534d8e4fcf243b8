// Package handoff carries out a resume once the mode has decided to go ahead
// (docs/ARCHITECTURE.md), all or nothing as far as files are concerned: it takes the
// workflow's lock, marks the state file resumed (a textual patch that keeps
// every other byte, with a .bak of the previous version), writes the handoff
// envelope, runs the orchestrator command while holding the lock, and
// appends the event to the orchestration log. If any step fails, the state
// file, its .bak and the envelopes are put back as they were, a
// "resume.failed" event is logged, and the lock is released.
//
// It holds the handoff and nothing else: the request, the envelope, the
// lock, the state write (a rebuilt state included, whose content
// discover/rebuild renders), the command run with the agent's session
// fallback (agentsession.go), and the lifecycle records read back. The
// work-session writers live with their format (discover/worksession), and
// cleanup in handoff/cleanup.
package handoff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/worksession"
	"github.com/orchestrate-dev/orchestrate/handoff/command"
	"github.com/orchestrate-dev/orchestrate/internal/atomicfile"
	"github.com/orchestrate-dev/orchestrate/internal/logging"
	"github.com/orchestrate-dev/orchestrate/internal/textfmt"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Log events written to the orchestration log.
const (
	EventHandedOff = "resume.handed_off"
	EventFailed    = "resume.failed"
	EventSkipped   = "resume.skipped"
	// EventDispatched is written once the envelope exists, just before the
	// orchestrator command runs: a resume killed after it is not handed off
	// again (the orchestrator may already have the work).
	EventDispatched = "resume.dispatched"
)

// CommandError is the error of an orchestrator command that failed, timed
// out or was interrupted (the resume was rolled back).
type CommandError = command.Error

// Request is one handoff: the candidate and plan the earlier stages settled
// on, what the mode decided and why, and how to run the orchestrator.
type Request struct {
	Root       string
	Candidate  workflow.Candidate
	Plan       plan.Plan
	Validation string // clean, warnings, conflicts
	Mode       string
	Decision   string
	Reason     string
	Forced     bool
	Restart    bool
	// Command is the handoff.command template; "" runs nothing (or the
	// Preset).
	Command string
	// Preset is handoff.agent (handoff/agent): with no Command, that agent
	// CLI's argv runs — interactive when Stdin is a terminal, headless
	// otherwise; resuming the candidate's AI session when it has one.
	Preset string
	// Env is the base environment for the command, injected by the caller
	// (nil: an empty one).
	Env    []string
	Stdout io.Writer
	Stderr io.Writer
	// Now is the time of the resume (resumed_at, the envelope, the log).
	Now time.Time
	// Lock describes this process for the lock file.
	Lock LockInfo
	// TakeOverStale takes over a stale lock instead of failing with
	// *StaleLockError.
	TakeOverStale bool
	// LogPath is the absolute path of the orchestration log; "" is
	// <Root>/.orchestrate/log.jsonl.
	LogPath string
	// Failpoint is a test hook called after each step ("lock", "state",
	// "envelope", "command", "log"), and as "logwrite" before every append
	// to the orchestration log, where an error makes that write fail as a
	// full disk would (half a line written, then the error); an error it
	// returns fails the handoff there. Nil in production.
	Failpoint func(step string) error
	// Timeout is handoff.timeout: a command running longer is stopped (its
	// process group gets SIGTERM, then SIGKILL after Grace) and the resume
	// rolled back. 0 means no limit.
	Timeout time.Duration
	// Grace is how long a command told to stop has before SIGKILL; 0 is
	// command.DefaultGrace.
	Grace time.Duration
	// Stdin is the command's standard input, injected by the caller (nil:
	// none).
	Stdin *os.File
	// the agent's session resume fallback (agentsession.go): config handoff.session_gone_exit_codes,
	// session_gone_pattern, fallback_command; SessionIDPattern "" is DefaultSessionIDPattern.
	SessionGoneExitCodes []int
	SessionGonePattern   string
	FallbackCommand      string
	SessionIDPattern     string
	// Again hands the same workflow and phase off once more although it was
	// handed off before (--again): the idempotency short-circuit is skipped,
	// a new envelope is written, and the log says so.
	Again bool
	// BeforeCommand, when set, is called once everything is recorded and
	// just before the orchestrator command runs (never without a command),
	// with the result so far: the caller shows what is being handed off
	// before an interactive agent session takes the terminal.
	BeforeCommand func(Result)
	// Holder names who holds the handed-off work when it is not a command
	// orchestrate runs (an agent that claimed it over MCP): each event of
	// the handoff logs it as "holder".
	Holder string
	// KeepLock keeps the workflow's lock after a handoff that went through:
	// Result.Held is it, for the caller to release (a claim held until its
	// release).
	KeepLock bool
	// Context, when set, stops the orchestrator command once it is done,
	// through the same path as a signal forwarded to it: SIGTERM to the
	// command's process group, Grace, then SIGKILL; the handoff then fails
	// and is rolled back (a *CommandError whose Cause is context.Cause). A
	// context already done runs nothing. The shared lifecycle's lease
	// renewal ends it when the shared lock was taken over (app/resumeflow
	// KeepLease). Nil: never.
	Context context.Context
	// onStart is called once the orchestrator command's process started.
	onStart func()
}

// stopContext is the context the request's commands run under
// (Request.Context, or one never done).
func (req *Request) stopContext() context.Context {
	if req.Context == nil {
		return context.Background()
	}
	return req.Context
}

// Result is what a handoff did.
type Result struct {
	// EnvelopePath is the envelope written (absolute), or for an
	// AlreadyHandedOff result the earlier one.
	EnvelopePath   string
	IdempotencyKey string
	// Agent and Phase are where the orchestrator picks up.
	Agent string
	Phase string
	// Command is the orchestrator command run (rendered, redacted); "" when
	// none is configured.
	Command string
	// AlreadyHandedOff is set when this very resume was handed off before:
	// nothing was written or run.
	AlreadyHandedOff bool
	// ExitStatus is the command's exit status.
	ExitStatus int
	// TookOverStale is the owner of the stale lock taken over, if any.
	TookOverStale *LockInfo
	// PreviousAt is when the earlier handoff of an AlreadyHandedOff result
	// was recorded (zero when unknown).
	PreviousAt time.Time
	// Unconfirmed is set when an earlier attempt of this resume was
	// dispatched but its command never started: it was handed off again.
	Unconfirmed bool
	// Held is the workflow's lock, still held, when Request.KeepLock asked
	// for it (nil otherwise, and for an AlreadyHandedOff result).
	Held *Lock
}

// hasStateFile reports whether a candidate's source is a state file of its
// own that a resume marks: stories are never edited, a spec pipeline's
// folder and artifacts are project files, and the QA loops index only
// mirrors the loops' status files.
func hasStateFile(kind string) bool {
	switch kind {
	case workflow.KindStory, workflow.KindSpec, workflow.KindQALoopIndex:
		return false
	case workflow.KindGSD, workflow.KindSpecKit, workflow.KindTaskmaster, workflow.KindBMADLedger, workflow.KindKiro:
		// the frameworks' own files (STATE.md, tasks.md, tasks.json, the
		// sprint ledger) are the project's: a resume never marks them
		return false
	case workflow.KindOpenSpec: // an OpenSpec change's tasks.md: never edited
		return false
	}
	return true
}

// Execute runs the steps of a handoff in order: (1) take the lock; (2)
// unless this resume was already handed off (same idempotency key, and the
// log records it handed off), mark the state file resumed; (3) write the
// envelope; (4) run the command, if any, holding the lock (a non-zero exit
// is *CommandError); (5) append "resume.handed_off" to the log. On a failure
// after the lock, the state and its .bak are restored (unless the
// orchestrator itself changed the state file since), the envelope is
// removed, "resume.failed" is logged (best effort) and the lock released.
// Lock problems are *LockedError or *StaleLockError and change nothing.
func Execute(req Request) (Result, error) {
	c := req.Candidate
	res := Result{Agent: req.Plan.ResumeFrom.Agent, Phase: req.Plan.ResumeFrom.Phase}
	if c.ID == "" {
		return res, errors.New("handoff: the candidate has no id")
	}
	if req.Root == "" {
		return res, errors.New("handoff: no repository root")
	}
	root, err := filepath.Abs(req.Root)
	if err != nil {
		return res, fmt.Errorf("handoff: %w", err)
	}
	req.Root = root
	if req.Now.IsZero() {
		return res, errors.New("handoff: no time of the resume (the caller's clock)")
	}
	if req.Stdout == nil {
		req.Stdout = io.Discard
	}
	if req.Stderr == nil {
		req.Stderr = io.Discard
	}
	if req.LogPath == "" {
		req.LogPath = filepath.Join(root, ".orchestrate", "log.jsonl")
	}
	fp := func(step string) error {
		if req.Failpoint == nil {
			return nil
		}
		if err := req.Failpoint(step); err != nil {
			return fmt.Errorf("%s step (injected): %w", step, err)
		}
		return nil
	}

	// 0. the command templates and the values they take, before anything is
	// touched: a refused value or template changes nothing
	if err := precheckCommands(req); err != nil {
		return res, err
	}

	// 1. the lock
	lock, err := Acquire(root, c.ID, req.Lock, req.TakeOverStale)
	if err != nil {
		return res, err
	}
	res.TookOverStale = lock.TookOver

	var (
		backup   Backup
		envelope string
	)
	fail := func(cause error) (Result, error) {
		var problems []string
		if backup.Path != "" {
			// a rollback by renames (Backup): it needs no new blocks, so a
			// full disk that failed a step cannot fail it too
			if backup.unchangedSinceUpdate() {
				if err := backup.Restore(); err != nil {
					problems = append(problems, "rolling the state back: "+err.Error())
				}
			} else {
				backup.Discard()
				problems = append(problems, "the state file was changed since the update (by the orchestrator?); it was left as it is")
			}
		}
		if envelope != "" {
			if err := os.Remove(envelope); err != nil && !errors.Is(err, os.ErrNotExist) {
				problems = append(problems, "removing the envelope: "+err.Error())
			}
			_ = atomicfile.SyncDir(filepath.Dir(envelope))
		}
		res.EnvelopePath = ""
		if err := appendEvent(req, EventFailed, res, cause); err != nil {
			fmt.Fprintf(req.Stderr, "orchestrate: warning: could not log the failure: %v\n", err)
		}
		if err := lock.Release(); err != nil {
			problems = append(problems, err.Error())
		}
		if len(problems) > 0 {
			return res, fmt.Errorf("%w (and: %s)", cause, strings.Join(problems, "; "))
		}
		return res, cause
	}
	if err := fp("lock"); err != nil {
		return fail(err)
	}

	// 2. already handed off? else the state
	patch := hasStateFile(c.Source.Kind)
	wrappers := wrappersFor(c.Source.Kind)
	hash, err := sourceHash(root, c, wrappers, patch)
	if err != nil {
		return fail(fmt.Errorf("hash the state: %w", err))
	}
	res.IdempotencyKey = IdempotencyKey(c.ID, req.Plan.ResumeFrom.Phase, hash)
	prev, prevAt := lastOfKey(root, req.LogPath, res.IdempotencyKey)
	// dispatched and never started, and we hold the lock: the agent never ran
	res.Unconfirmed = prev == StateDispatched
	if p, ok := FindByKey(root, res.IdempotencyKey); ok && !req.Again && (prev == StateHandedOff || prev == StateStarted) {
		res.AlreadyHandedOff, res.EnvelopePath, res.PreviousAt = true, p, prevAt
		if err := appendEvent(req, EventSkipped, res, nil); err != nil {
			fmt.Fprintf(req.Stderr, "orchestrate: warning: could not log the skipped resume: %v\n", err)
		}
		if err := lock.Release(); err != nil {
			fmt.Fprintf(req.Stderr, "orchestrate: warning: %v\n", err)
		}
		return res, nil
	}
	if patch {
		b, err := updateOrRebuild(root, c, req.Now, wrappers)
		if err != nil {
			return fail(err)
		}
		backup = b
	}
	if err := fp("state"); err != nil {
		return fail(err)
	}

	// 3. the envelope
	path, err := nextEnvelopePath(root, c.ID)
	if err != nil {
		return fail(err)
	}
	if err := writeEnvelope(path, buildEnvelope(req, res.IdempotencyKey)); err != nil {
		return fail(err)
	}
	envelope, res.EnvelopePath = path, path
	if err := fp("envelope"); err != nil {
		return fail(err)
	}

	// the point of no return: from here on a crash must not lead to a
	// second handoff of the same resume. The record is durable (checked
	// write, fsync) before the command starts, or nothing starts and
	// everything is rolled back.
	if err := appendEvent(req, EventDispatched, res, nil); err != nil {
		return fail(fmt.Errorf("record the dispatch in the orchestration log (nothing was run): %w", err))
	}

	// the command's start is recorded (checked, fsynced) as soon as its
	// process exists; without a command the dispatch is the start
	started := false
	req.onStart = func() {
		if started {
			return
		}
		started = true
		if err := appendEvent(req, EventStarted, res, nil); err != nil {
			fmt.Fprintf(req.Stderr, "orchestrate: warning: could not record the command's start: %v\n", err)
		}
	}
	if !req.runsCommand() {
		req.onStart()
	}

	// 4. the orchestrator command, holding the lock: a preset's argv, or
	// the configured command rendered for sh -c
	if req.usesPreset() || strings.TrimSpace(req.Command) != "" {
		data := command.Data{
			EnvelopePath: path, AISessionID: c.AISessionID, Agent: res.Agent,
			WorkflowID: c.ID, Phase: res.Phase, Root: root,
		}
		var rendered command.Rendered
		var run func() (int, error)
		if req.usesPreset() {
			argv, err := presetArgv(&req, path)
			if err != nil {
				return fail(err)
			}
			if rendered, err = command.FromArgv(argv, data); err != nil {
				return fail(err)
			}
			run = func() (int, error) { return runPreset(&req, argv, data, &res, &backup) }
		} else {
			var err error
			if rendered, err = command.Render(req.Command, data); err != nil {
				return fail(err)
			}
			run = func() (int, error) { return runOrchestrator(&req, data, &res, &backup) }
		}
		res.Command = logging.Redact(rendered.Display)
		if req.BeforeCommand != nil {
			req.BeforeCommand(res)
		}
		status, err := run()
		res.ExitStatus = status
		var ce *CommandError
		if errors.As(err, &ce) {
			ce.Command = res.Command
		}
		if err != nil {
			return fail(err)
		}
		if status != 0 {
			return fail(&CommandError{Reason: command.ReasonFailed, Status: status, Command: res.Command})
		}
	}
	if err := fp("command"); err != nil {
		return fail(err)
	}

	// 5. the log
	if err := appendEvent(req, EventHandedOff, res, nil); err != nil {
		return fail(fmt.Errorf("append to the orchestration log: %w", err))
	}
	if err := fp("log"); err != nil {
		return fail(err)
	}
	backup.Discard()
	if req.KeepLock {
		res.Held = lock
		return res, nil
	}
	if err := lock.Release(); err != nil {
		fmt.Fprintf(req.Stderr, "orchestrate: warning: %v\n", err)
	}
	return res, nil
}

// buildEnvelope assembles the envelope of a request (not yet redacted).
func buildEnvelope(req Request, key string) Envelope {
	c := req.Candidate
	stories := c.Stories
	if stories == nil {
		stories = []string{}
	}
	var done []CompletedPhase
	phases := req.Plan.Completed
	if len(phases) == 0 && !req.Restart {
		for _, p := range c.Phases {
			if p.Status == workflow.PhaseCompleted {
				phases = append(phases, p)
			}
		}
	}
	for _, p := range phases {
		outs := p.Outputs
		if outs == nil {
			outs = []string{}
		}
		id := p.ID
		if id == "" {
			id = p.Name
		}
		done = append(done, CompletedPhase{Phase: id, Name: p.Name, Agent: p.Agent, Outputs: outs})
	}
	if done == nil {
		done = []CompletedPhase{}
	}
	saved, _ := tolerant.JSONSafe(c.Context, 0).(map[string]any)
	if saved == nil {
		saved = map[string]any{}
	}
	inputs := req.Plan.ResumeFrom.Inputs
	if inputs == nil {
		inputs = []string{}
	}
	return Envelope{
		Schema:      EnvelopeSchema,
		CreatedAt:   req.Now.UTC(),
		Workflow:    EnvelopeWorkflow{ID: c.ID, Type: string(c.Type), Definition: c.Workflow},
		StateSource: c.Source.Path,
		Candidate: EnvelopeCandidate{
			ID: c.ID, Type: string(c.Type), Source: c.Source, Stories: stories,
			Status: c.Status, Position: c.Position.String(),
		},
		Plan:    req.Plan,
		Mode:    req.Mode,
		Forced:  req.Forced,
		Restart: req.Restart,
		Context: RestoredContext{
			CompletedPhases: done, Saved: saved, AISessionID: c.AISessionID,
			Breadcrumbs: restoredList(saved, worksession.WorkSessionCtxBreadcrumbs), SubtaskSummaries: restoredList(saved, worksession.WorkSessionCtxSummaries),
		},
		Next:           Next{Agent: req.Plan.ResumeFrom.Agent, Phase: req.Plan.ResumeFrom.Phase, Inputs: inputs},
		IdempotencyKey: key,
		ResumePoint:    c.Resume,
		Framework:      c.Framework,
	}
}

// EnvelopeFor is the envelope a handoff of req would write under the
// idempotency key key, before redaction (the resume-context prompt of
// orchestrate mcp shows it without handing anything off).
func EnvelopeFor(req Request, key string) Envelope { return buildEnvelope(req, key) }

// interruption is how long the workflow had been interrupted.
func interruption(req Request) (time.Duration, bool) {
	if req.Plan.StateAge > 0 {
		return req.Plan.StateAge, true
	}
	if !req.Candidate.UpdatedAt.IsZero() {
		d := req.Now.Sub(req.Candidate.UpdatedAt)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// precheckCommands renders handoff.command (and the fallback command) with
// the request's values and a stand-in envelope path, so that a template
// outside the safe rules or a refused value fails before the lock is taken.
func precheckCommands(req Request) error {
	c := req.Candidate
	data := command.Data{
		EnvelopePath: filepath.Join(HandoffsDir(req.Root), SafeID(c.ID)+"-1.json"), AISessionID: c.AISessionID,
		Agent: req.Plan.ResumeFrom.Agent, WorkflowID: c.ID, Phase: req.Plan.ResumeFrom.Phase, Root: req.Root,
	}
	if req.usesPreset() {
		if _, err := presetArgv(&req, data.EnvelopePath); err != nil {
			return err
		}
		if strings.TrimSpace(req.FallbackCommand) != "" && c.AISessionID != "" {
			data.AISessionID = ""
			if _, err := command.RenderNamed(fallbackName, req.FallbackCommand, data); err != nil {
				return err
			}
		}
		return nil
	}
	if strings.TrimSpace(req.Command) == "" {
		return nil
	}
	if _, err := command.Render(req.Command, data); err != nil {
		return err
	}
	if strings.TrimSpace(req.FallbackCommand) != "" && resumesAgentSession(req.Command) && c.AISessionID != "" {
		data.AISessionID = ""
		if _, err := command.RenderNamed(fallbackName, req.FallbackCommand, data); err != nil {
			return err
		}
	}
	return nil
}

// openLog opens the request's orchestration log for a checked append,
// confined to the repository, with the "logwrite" failpoint installed.
func openLog(req Request) (*logging.ActionLog, error) {
	log, err := logging.OpenActionLogIn(req.Root, req.LogPath)
	if err != nil {
		return nil, err
	}
	if req.Failpoint != nil {
		log.BeforeWrite = func() error {
			if err := req.Failpoint("logwrite"); err != nil {
				return fmt.Errorf("logwrite (injected): %w", err)
			}
			return nil
		}
	}
	return log, nil
}

// eventFields are the fields every event of a handoff carries: the
// workflow, where it resumes, the mode, the envelope (root-relative) and the
// idempotency key.
func eventFields(req *Request, res *Result, event string) logging.Fields {
	c := req.Candidate
	envelope := res.EnvelopePath
	if r, err := filepath.Rel(req.Root, envelope); err == nil && envelope != "" && !strings.HasPrefix(r, "..") {
		envelope = filepath.ToSlash(r)
	}
	f := logging.Fields{
		"event":           event,
		"workflow":        c.ID,
		"type":            string(c.Type),
		"state_source":    c.Source.Path,
		"resume_point":    req.Plan.ResumeFrom.Phase,
		"agent":           req.Plan.ResumeFrom.Agent,
		"mode":            req.Mode,
		"envelope":        envelope,
		"idempotency_key": res.IdempotencyKey,
	}
	if req.Holder != "" {
		f["holder"] = req.Holder
	}
	return f
}

// writeEvent appends one event to the orchestration log: written whole
// and fsynced, or an error and the log as it was.
func writeEvent(req *Request, fields logging.Fields, msg string) error {
	log, err := openLog(*req)
	if err != nil {
		return err
	}
	if err := log.Append(req.Now, fields, msg); err != nil {
		_ = log.Close()
		return err
	}
	return log.Close()
}

// appendEvent appends one event of the handoff to the orchestration log.
func appendEvent(req Request, event string, res Result, cause error) error {
	age, known := interruption(req)
	human := "unknown"
	if known {
		human = textfmt.Duration(age)
	}
	fields := eventFields(&req, &res, event)
	for k, v := range map[string]any{
		"interruption_seconds": int64(age / time.Second),
		"interruption":         human,
		"validation":           req.Validation,
		"decision":             req.Decision,
		"reason":               req.Reason,
		"forced":               req.Forced,
		"restart":              req.Restart,
	} {
		fields[k] = v
	}
	// a handoff with no handoff.command ran nothing: the log says so, and
	// names neither a command nor an exit status
	noCommand := !req.runsCommand()
	if noCommand {
		fields["command_configured"] = false
	} else {
		fields["command"] = logging.Redact(res.Command)
		fields["exit_status"] = res.ExitStatus
	}
	if req.usesPreset() {
		fields["handoff_agent"] = req.Preset
	}
	if req.Again {
		fields["again"] = true
	}
	var msg string
	switch event {
	case EventHandedOff:
		msg = fmt.Sprintf("handed off to @%s at %s", strings.TrimPrefix(res.Agent, "@"), orDash(res.Phase))
		if noCommand {
			msg += ", no command configured"
		}
	case EventSkipped:
		msg = "already handed off: nothing done"
	case EventDispatched:
		msg = fmt.Sprintf("dispatching to @%s at %s", strings.TrimPrefix(res.Agent, "@"), orDash(res.Phase))
		if req.Again {
			msg += " (again, as asked with --again)"
		}
	case EventStarted:
		msg = fmt.Sprintf("the command for @%s at %s started", strings.TrimPrefix(res.Agent, "@"), orDash(res.Phase))
		if noCommand {
			// the dispatch is the start: nothing runs
			msg = "handed off, no command configured (nothing was run; the envelope is the handoff)"
		}
	case EventFailed:
		msg = "resume failed, rolled back"
	}
	if cause != nil {
		fields["error"] = logging.Redact(cause.Error())
		msg += ": " + cause.Error()
		var ce *CommandError
		if errors.As(cause, &ce) {
			fields["command_reason"] = ce.Reason
		}
	}
	return writeEvent(&req, fields, msg)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// loggedHandedOff reports whether the orchestration log records a handoff
// with this idempotency key whose command started (or that completed). A
// dispatch whose command never started, or a rolled-back one, does not
// count: the agent never ran, so the same resume is handed off again.
func loggedHandedOff(root, logPath, key string) bool {
	last, _ := lastOfKey(root, logPath, key)
	return last == StateHandedOff || last == StateStarted
}
