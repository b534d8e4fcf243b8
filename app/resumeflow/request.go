package resumeflow

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/orchestrate-dev/orchestrate/app/loaded"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Handoff is what the command layer settled for a handoff: the evaluated
// candidate and plan, the user's choices, and the injected process pieces
// (environment, streams, lock owner, test hook).
type Handoff struct {
	Session    *loaded.Session
	Candidate  workflow.Candidate
	Plan       plan.Plan
	Validation string
	Mode       modes.Mode
	// Forced: --force over conflicts, or the user chose to resume over
	// them. Restart: --restart, or the user chose to restart. Approve is
	// --approve. TakeOverStale is --force (a stale lock is taken over).
	Forced, Restart, Approve, TakeOverStale bool
	// Again: --again, or the workflow was handed off long enough ago to be
	// handed off once more.
	Again          bool
	Env            []string
	Stdin          *os.File
	Stdout, Stderr io.Writer
	Lock           handoff.LockInfo
	Failpoint      func(step string) error
}

// Request is the handoff.Request of h: the configured command and its
// AI-session fallback, and the decision as recorded (an ask the user
// confirmed, or --approve approved, is recorded as a resume with its
// reason).
func Request(h Handoff) handoff.Request {
	s, hc := h.Session, h.Session.Cfg.Handoff
	req := handoff.Request{
		Root: s.Root, Candidate: h.Candidate, Plan: h.Plan, Validation: h.Validation,
		Mode: string(h.Mode), Decision: h.Plan.Decision, Reason: h.Plan.Reason, Forced: h.Forced, Restart: h.Restart,
		Command: hc.Command, Preset: hc.Agent, Env: h.Env, Stdin: h.Stdin, Stdout: h.Stdout, Stderr: h.Stderr,
		Now: s.Now, Lock: h.Lock, TakeOverStale: h.TakeOverStale,
		LogPath:   s.LogPath(),
		Failpoint: h.Failpoint,

		SessionGoneExitCodes: hc.SessionGoneExitCodes,
		SessionGonePattern:   hc.SessionGonePattern,
		FallbackCommand:      hc.FallbackCommand,
		SessionIDPattern:     hc.SessionIDPattern,
		Timeout:              hc.Timeout,
		Again:                h.Again,
	}
	if req.Decision == modes.DecisionAsk {
		req.Decision = modes.DecisionResume
		req.Reason = "confirmed by the user: " + h.Plan.Reason
		if h.Approve {
			req.Reason = "approved with --approve: " + h.Plan.Reason
		}
	}
	return req
}

// StaleTakeover decides what a handoff that failed with err does about a
// stale lock: when err is a *handoff.StaleLockError, a prompt is possible
// and the mode is not autopilot, the user is asked question (yes takes the
// lock over and hands off again); otherwise ask is false and err stands.
func StaleTakeover(err error, id string, canPrompt bool, mode modes.Mode) (question string, ask bool) {
	var stale *handoff.StaleLockError
	if !errors.As(err, &stale) || !canPrompt || mode == modes.ModeAutopilot {
		return "", false
	}
	return fmt.Sprintf("The lock of %s is stale (pid %d on %s, started %s).", id, stale.Owner.PID, stale.Owner.Host, stale.Owner.StartedAt.Format(time.RFC3339)), true
}
