package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/rebuild"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/templates"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Lifecycle states of a candidate as status and autopilot see them (the
// handoff states of handoff.Last, plus what its lock says).
const (
	lifeInterrupted = "interrupted" // no handoff since it was interrupted
	lifeActive      = "active"      // a live resume is handing it off now
	lifeLocked      = "locked"      // its lock is held by a live process (or untrusted)
	lifeStaleLock   = "stale_lock"  // its lock's owner is gone
)

// Validation words that replace "conflicts" when --force cannot help.
const (
	validationCorrupt = "corrupt" // the state file cannot be read
	validationMissing = "missing" // a story or critical file it names is gone
)

// lifecycle is one candidate's handoff lifecycle.
type lifecycle struct {
	State string // lifeInterrupted, lifeActive, lifeLocked, lifeStaleLock or a handoff.State*
	At    time.Time
	Agent string
	PID   int
	Host  string
}

// lifecycleJSON is the "lifecycle" object of a candidate in status --json.
type lifecycleJSON struct {
	State      string  `json:"state"`
	At         *string `json:"at,omitempty"`
	AgoSeconds *int64  `json:"ago_seconds,omitempty"`
	Agent      string  `json:"agent,omitempty"`
	PID        int     `json:"pid,omitempty"`
	Host       string  `json:"host,omitempty"`
}

// handoffHistory reads the orchestration log's handoff history; a log that
// cannot be read is warned about and treated as empty.
func (a *app) handoffHistory(s *session) map[string]handoff.Last {
	h, err := handoff.History(s.Root, s.LogPath())
	if err != nil {
		fmt.Fprintf(a.sys.IO.ErrOut, "warning: %v\n", err)
	}
	return h
}

// lifecycleOf is candidate c's lifecycle: its lock first, then its last
// handoff — unless the state was updated after that handoff (a new
// interruption).
func lifecycleOf(s *session, hist map[string]handoff.Last, c workflow.Candidate) lifecycle {
	last, seen := hist[c.ID]
	if seen && !c.UpdatedAt.IsZero() && c.UpdatedAt.After(last.At.Add(2*time.Second)) {
		seen = false
	}
	switch lk := handoff.LockStateOf(s.Root, c.ID); lk.State {
	case handoff.LockLive:
		if seen && lk.Reason == "" && (last.State == handoff.StateStarted || last.State == handoff.StateDispatched) {
			return lifecycle{State: lifeActive, At: last.At, Agent: last.Agent, PID: lk.PID, Host: lk.Host}
		}
		return lifecycle{State: lifeLocked, PID: lk.PID, Host: lk.Host}
	case handoff.LockStale:
		if !seen || last.State == handoff.StateFailed {
			return lifecycle{State: lifeStaleLock, PID: lk.PID, Host: lk.Host}
		}
	}
	if !seen {
		return lifecycle{State: lifeInterrupted}
	}
	return lifecycle{State: last.State, At: last.At, Agent: strings.TrimPrefix(last.Agent, "@")}
}

// text is the lifecycle for people: "handed off 12 minutes ago to @dev".
func (l lifecycle) text(now time.Time) string {
	ago := templates.Ago(now.Sub(l.At))
	to := ""
	if l.Agent != "" {
		to = " to @" + l.Agent
	}
	switch l.State {
	case handoff.StateHandedOff:
		return "handed off " + ago + to
	case handoff.StateStarted:
		return "started " + ago + to + ", never confirmed finished"
	case handoff.StateUnconfirmed:
		return "unconfirmed: dispatched " + ago + to + ", never started"
	case handoff.StateFailed:
		return "last resume failed " + ago
	case lifeActive:
		return fmt.Sprintf("active: handing off%s (pid %d)", to, l.PID)
	case lifeLocked:
		if l.PID == 0 {
			return "locked (untrusted lock)"
		}
		return fmt.Sprintf("locked by pid %d", l.PID)
	case lifeStaleLock:
		return fmt.Sprintf("stale lock of pid %d", l.PID)
	}
	return lifeInterrupted
}

// json is the lifecycle for status --json; nil for a plain interrupted one.
func (l lifecycle) json(now time.Time) *lifecycleJSON {
	if l.State == lifeInterrupted || l.State == "" {
		return nil
	}
	out := &lifecycleJSON{State: l.State, Agent: l.Agent, PID: l.PID, Host: l.Host}
	if !l.At.IsZero() {
		at := l.At.UTC().Format(time.RFC3339)
		ago := int64(now.Sub(l.At) / time.Second)
		if ago < 0 {
			ago = 0
		}
		out.At, out.AgoSeconds = &at, &ago
	}
	return out
}

// validationWord is a report's status, except that a corrupt state and a
// missing story or critical file are named as such: neither is a conflict
// --force could override.
func validationWord(c workflow.Candidate, rep *validate.Report) string {
	if rep == nil {
		return ""
	}
	if c.Status == rebuild.StatusUnreadable {
		return validationCorrupt
	}
	missing := false
	for _, f := range rep.Findings {
		if f.Severity != workflow.Blocking {
			continue
		}
		switch {
		case f.Check == workflow.CheckParse:
			return validationCorrupt
		case f.Code == "story-missing" || f.Code == "missing-critical":
			missing = true
		}
	}
	if missing {
		return validationMissing
	}
	return rep.Status
}

// skipHandedOff is the autopilot filter of the candidates a resume may pick
// by itself (mode is the resume's mode; "" means each candidate's own): in
// autopilot it drops a workflow whose handoff is live (its lock is held) or
// recent (within resume.rehandoff_after; 0 means always recent), saying
// which and why on stderr. An unconfirmed handoff (the agent never ran)
// stays; so does one handed off longer ago than that, and again says so:
// autopilot hands it off again (as --again would). When it drops every
// candidate, the error says why (for exit 0 "nothing to resume").
func (a *app) skipHandedOff(s *session, cands []workflow.Candidate, mode modes.Mode) ([]workflow.Candidate, map[string]bool, error) {
	var hist map[string]handoff.Last
	var kept []workflow.Candidate
	var skipped []string
	again := map[string]bool{}
	window := s.Cfg.Resume.RehandoffAfter
	for _, c := range cands {
		m := mode
		if m == "" {
			if pm, err := modes.ParseMode(c.Mode); err == nil {
				m = pm
			}
		}
		if m != modes.ModeAutopilot {
			kept = append(kept, c)
			continue
		}
		if hist == nil {
			hist = a.handoffHistory(s)
		}
		l := lifecycleOf(s, hist, c)
		why := ""
		switch l.State {
		case lifeActive, lifeLocked:
			why = l.text(s.Now) + ": a live resume holds it"
		case handoff.StateHandedOff, handoff.StateStarted:
			if window <= 0 || s.Now.Sub(l.At) < window {
				why = fmt.Sprintf("%s, within resume.rehandoff_after (%s)", l.text(s.Now), templates.Duration(window))
			} else {
				again[c.ID] = true
			}
		}
		if why == "" {
			kept = append(kept, c)
			continue
		}
		skipped = append(skipped, c.ID+" ("+why+")")
		fmt.Fprintf(a.sys.IO.ErrOut, "Skipping %s: %s.\n", c.ID, why)
	}
	if len(kept) == 0 && len(skipped) > 0 {
		return nil, again, fmt.Errorf("nothing to resume: every interrupted workflow was handed off recently or is being resumed: %s. To hand one off again now, run: orchestrate resume WORKFLOW --again", strings.Join(skipped, "; "))
	}
	return kept, again, nil
}

// alreadyHandedOff is what a resume says when this very resume was handed
// off before: when, to whom, and the flag that hands it off again.
func alreadyHandedOff(s *session, id string, res handoff.Result) string {
	when := ""
	if !res.PreviousAt.IsZero() {
		when = " " + templates.Ago(s.Now.Sub(res.PreviousAt))
	}
	to := ""
	if res.Agent != "" {
		to = " to @" + strings.TrimPrefix(res.Agent, "@")
	}
	return fmt.Sprintf("Already handed off%s%s: this resume of %s was handed off before (%s); nothing to do.\nTo hand it off again at the same phase, run: orchestrate resume %s --again\n",
		when, to, id, rel(s.Root, res.EnvelopePath), id)
}
