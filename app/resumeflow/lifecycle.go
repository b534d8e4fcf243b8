package resumeflow

import (
	"fmt"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/app/loaded"
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
	LifeInterrupted = "interrupted" // no handoff since it was interrupted
	LifeActive      = "active"      // a live resume is handing it off now
	LifeLocked      = "locked"      // its lock is held by a live process (or untrusted)
	LifeStaleLock   = "stale_lock"  // its lock's owner is gone
)

// Validation words that replace "conflicts" when --force cannot help.
const (
	ValidationCorrupt = "corrupt" // the state file cannot be read
	ValidationMissing = "missing" // a story or critical file it names is gone
)

// Lifecycle is one candidate's handoff lifecycle.
type Lifecycle struct {
	State string // Life* or a handoff.State*
	At    time.Time
	Agent string
	PID   int
	Host  string
	// By is the runner of a shared record or lease (lifecycle.remote).
	By string
	// Until is when a shared lease ends.
	Until time.Time
}

// History reads the orchestration log's handoff history; a log that cannot
// be read gives the error with what could be read (use it, and warn).
func History(s *loaded.Session) (map[string]handoff.Last, error) {
	return handoff.History(s.Root, s.LogPath())
}

// LifecycleOf is candidate c's lifecycle: its lock first, then its last
// handoff — unless the state was updated after that handoff (a new
// interruption).
func LifecycleOf(locks *handoff.LockView, hist map[string]handoff.Last, c workflow.Candidate) Lifecycle {
	last, seen := hist[c.ID]
	if seen && !c.UpdatedAt.IsZero() && c.UpdatedAt.After(last.At.Add(2*time.Second)) {
		seen = false
	}
	switch lk := locks.StateOf(c.ID); lk.State {
	case handoff.LockLive:
		if seen && lk.Reason == "" && (last.State == handoff.StateStarted || last.State == handoff.StateDispatched) {
			return Lifecycle{State: LifeActive, At: last.At, Agent: last.Agent, PID: lk.PID, Host: lk.Host}
		}
		return Lifecycle{State: LifeLocked, PID: lk.PID, Host: lk.Host}
	case handoff.LockStale:
		if !seen || last.State == handoff.StateFailed {
			return Lifecycle{State: LifeStaleLock, PID: lk.PID, Host: lk.Host}
		}
	}
	if !seen {
		return Lifecycle{State: LifeInterrupted}
	}
	return Lifecycle{State: last.State, At: last.At, Agent: strings.TrimPrefix(last.Agent, "@")}
}

// Text is the lifecycle for people: "handed off 12 minutes ago to @dev".
func (l Lifecycle) Text(now time.Time) string {
	ago := templates.Ago(now.Sub(l.At))
	to := ""
	if l.Agent != "" {
		to = " to @" + l.Agent
	}
	if l.By != "" {
		to += " by " + l.By
	}
	switch l.State {
	case LifeHeldRemotely:
		return heldText(l, now)
	case handoff.StateHandedOff:
		return "handed off " + ago + to
	case handoff.StateStarted:
		return "started " + ago + to + ", never confirmed finished"
	case handoff.StateUnconfirmed:
		return "unconfirmed: dispatched " + ago + to + ", never started"
	case handoff.StateFailed:
		return "last resume failed " + ago
	case LifeActive:
		return fmt.Sprintf("active: handing off%s (pid %d)", to, l.PID)
	case LifeLocked:
		if l.PID == 0 {
			return "locked (untrusted lock)"
		}
		return fmt.Sprintf("locked by pid %d", l.PID)
	case LifeStaleLock:
		return fmt.Sprintf("stale lock of pid %d", l.PID)
	}
	return LifeInterrupted
}

// ValidationWord is a report's status, except that a corrupt state and a
// missing story or critical file are named as such: neither is a conflict
// --force could override.
func ValidationWord(c workflow.Candidate, rep *validate.Report) string {
	if rep == nil {
		return ""
	}
	if c.Status == rebuild.StatusUnreadable {
		return ValidationCorrupt
	}
	missing := false
	for _, f := range rep.Findings {
		if !wordFinding(f) {
			continue
		}
		switch {
		case f.Check == workflow.CheckParse:
			return ValidationCorrupt
		case f.Code == "story-missing" || f.Code == "missing-critical":
			missing = true
		}
	}
	if missing {
		return ValidationMissing
	}
	return rep.Status
}

// wordFinding reports whether ValidationWord reads finding f: a blocking
// parse finding, missing story or missing critical file.
func wordFinding(f workflow.Finding) bool {
	return f.Severity == workflow.Blocking &&
		(f.Check == workflow.CheckParse || f.Code == "story-missing" || f.Code == "missing-critical")
}

// WordFindings is the findings of fs that ValidationWord reads, in order
// (nil when none): a report whose findings are only these has the same
// validation word. status's table shows a report's word and age, never its
// findings, and keeps only these of each (loaded.Session.ValidateAll), so
// that 1,000 workflows' 27,000 findings are not held to the end of the run.
func WordFindings(fs []workflow.Finding) []workflow.Finding {
	var out []workflow.Finding
	for _, f := range fs {
		if wordFinding(f) {
			out = append(out, f)
		}
	}
	return out
}

// KeptFindings is what status keeps of each report's findings
// (loaded.Session.ValidateAll's keep): with --json all of them (nil),
// else WordFindings, as the table shows each report's word, never its
// findings.
func KeptFindings(json bool) func([]workflow.Finding) []workflow.Finding {
	if json {
		return nil
	}
	return WordFindings
}

// Skip is a candidate the autopilot filter dropped, and why.
type Skip struct{ ID, Why string }

// Filtered is what SkipHandedOff kept.
type Filtered struct {
	Kept    []workflow.Candidate
	Skipped []Skip
	// Again names the kept candidates handed off longer than
	// resume.rehandoff_after ago: autopilot hands them off again.
	Again map[string]bool
	// Err says why nothing is left when every candidate was skipped.
	Err error
}

// SkipHandedOff is the autopilot filter of the candidates a resume may pick
// by itself (mode is the resume's mode; "" means each candidate's own): in
// autopilot it drops a workflow whose handoff is live (its lock is held) or
// recent (within resume.rehandoff_after; 0 means always recent). An
// unconfirmed handoff (the agent never ran) stays; so does one handed off
// longer ago than that, marked Again. history is called at most once, when
// a candidate runs in autopilot.
func SkipHandedOff(s *loaded.Session, cands []workflow.Candidate, mode modes.Mode, history func() map[string]handoff.Last) Filtered {
	var locks *handoff.LockView // listed once per pass, when a candidate asks
	return skipHandedOff(s, cands, mode, history, func(hist map[string]handoff.Last, c workflow.Candidate) Lifecycle {
		if locks == nil {
			locks = handoff.ViewLocks(s.Root)
		}
		return LifecycleOf(locks, hist, c)
	})
}

// skipHandedOff is SkipHandedOff with the lifecycle of a candidate given
// by lifeOf (local, or with the shared lifecycle).
func skipHandedOff(s *loaded.Session, cands []workflow.Candidate, mode modes.Mode, history func() map[string]handoff.Last, lifeOf func(map[string]handoff.Last, workflow.Candidate) Lifecycle) Filtered {
	var hist map[string]handoff.Last
	f := Filtered{Again: map[string]bool{}}
	window := s.Cfg.Resume.RehandoffAfter
	for _, c := range cands {
		m := mode
		if m == "" {
			if pm, err := modes.ParseMode(c.Mode); err == nil {
				m = pm
			}
		}
		if m != modes.ModeAutopilot {
			f.Kept = append(f.Kept, c)
			continue
		}
		if hist == nil {
			hist = history()
		}
		l := lifeOf(hist, c)
		why := ""
		switch l.State {
		case LifeHeldRemotely:
			why = l.Text(s.Now)
		case LifeActive, LifeLocked:
			why = l.Text(s.Now) + ": a live resume holds it"
		case handoff.StateHandedOff, handoff.StateStarted:
			if window <= 0 || s.Now.Sub(l.At) < window {
				why = fmt.Sprintf("%s, within resume.rehandoff_after (%s)", l.Text(s.Now), templates.Duration(window))
			} else {
				f.Again[c.ID] = true
			}
		}
		if why == "" {
			f.Kept = append(f.Kept, c)
			continue
		}
		f.Skipped = append(f.Skipped, Skip{ID: c.ID, Why: why})
	}
	if len(f.Kept) == 0 && len(f.Skipped) > 0 {
		var parts []string
		for _, sk := range f.Skipped {
			parts = append(parts, sk.ID+" ("+sk.Why+")")
		}
		f.Err = fmt.Errorf("nothing to resume: every interrupted workflow was handed off recently or is being resumed: %s. To hand one off again now, run: orchestrate resume WORKFLOW --again", strings.Join(parts, "; "))
	}
	return f
}
