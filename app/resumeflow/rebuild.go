package resumeflow

import (
	"fmt"
	"strings"

	"github.com/orchestrate-dev/orchestrate/app/loaded"
	"github.com/orchestrate-dev/orchestrate/discover/rebuild"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Rebuilt is what RebuildCorrupt did with a corrupt state file: the
// corruption (Path, Line, Code, Reason), and either the rebuilt state and
// where each part came from, or (Rebuilt false) the candidate left as it
// is with its parse finding worded so that the halt names the file.
type Rebuilt struct {
	Path, Reason, Code string
	Line               int
	Rebuilt            bool
	// Candidate is the selected candidate after the step: the rebuilt one,
	// or the corrupt one with its finding reworded.
	Candidate workflow.Candidate
	// All are the resumable candidates after the step (the stories the
	// rebuilt state names are folded into it).
	All   []workflow.Candidate
	Parts []rebuild.Provenance
	// Mode is the mode the run goes on in: a rebuilt state recorded as
	// started in pre-flight resumes in pre-flight when no mode was asked.
	Mode modes.Mode
	// Completed are the phases (or stories) done; Next the first one open
	// ("-" when none).
	Completed []string
	Next      string
}

// RebuildCorrupt is the step for a selected state file that is corrupt
// (DESIGN "Corrupted state file"): ok is false unless c is unreadable with
// a corruption finding (a file that cannot be opened is reported as it
// is). rebuild.Rebuild reconstructs the state from the other candidates and
// the repository; when nothing usable is found the candidate stays
// corrupt, which halts with exit 17. A rebuilt state replaces c in all;
// autopilot then carries a blocking "rebuild" finding
// (rebuilt-needs-confirmation) that modes.Decide never resumes over, not
// even with --force: a person confirms a rebuilt state. modeAsked says a
// mode was asked for (flag, environment or config).
func RebuildCorrupt(s *loaded.Session, all []workflow.Candidate, c workflow.Candidate, mode modes.Mode, modeAsked bool) (out Rebuilt, ok bool) {
	if c.Status != rebuild.StatusUnreadable {
		return out, false
	}
	pf, corrupt := rebuild.CorruptFinding(c)
	if !corrupt {
		return out, false
	}
	var others []workflow.Candidate
	for _, o := range s.Res.Candidates {
		if o.ID != c.ID {
			others = append(others, o)
		}
	}
	rebuilt, prov, done := rebuild.Rebuild(s.Repo, c, others)

	out = Rebuilt{Path: c.Source.Path, Code: pf.Code, Line: pf.Line, Reason: pf.Message, Parts: prov, Mode: mode, All: all}
	if pf.Code == "binary" {
		out.Reason = "binary data (NUL bytes) in a text state file: a torn or overwritten write"
		for _, f := range rebuilt.Findings {
			if f.Check == pf.Check && f.Code == pf.Code && f.Path == pf.Path && f.Line > 0 {
				out.Line = f.Line
			}
		}
	}
	if out.Line > 0 {
		out.Reason = strings.TrimPrefix(out.Reason, fmt.Sprintf("line %d: ", out.Line))
	}
	if !done {
		reason := out.Reason
		if out.Line > 0 {
			reason = fmt.Sprintf("line %d: %s", out.Line, reason)
		}
		for i, f := range c.Findings {
			if f == pf {
				c.Findings[i].Message = fmt.Sprintf("the state file %s is corrupt and could not be rebuilt (%s)", c.Source.Path, reason)
			}
		}
		Replace(all, c)
		out.Candidate = c
		return out, true
	}

	// A rebuilt state recorded as started in pre-flight resumes in pre-flight
	// when no mode was asked for; it is never promoted to autopilot.
	if !modeAsked {
		if m, err := modes.ParseMode(rebuilt.Mode); err == nil && m == modes.ModePreflight {
			out.Mode = m
		}
	}
	if out.Mode == modes.ModeAutopilot {
		rebuilt.Findings = append(rebuilt.Findings, workflow.Finding{
			Check:    rebuild.CheckRebuild,
			Severity: workflow.Blocking,
			Code:     rebuild.CodeRebuiltNeedsConfirmation,
			Message:  fmt.Sprintf("autopilot never resumes a rebuilt state: review and confirm it with orchestrate resume %s --mode interactive (without a terminal: --mode interactive --approve)", c.ID),
			Path:     c.Source.Path,
		})
	}
	out.Rebuilt = true
	out.Completed, out.Next = progress(rebuilt)
	rebuilt, out.All = AbsorbStories(all, rebuilt)
	Replace(out.All, rebuilt)
	out.Candidate = rebuilt
	return out, true
}

// progress is what a rebuilt state says is done and what comes next: an
// epic story by story, the others phase by phase.
func progress(c workflow.Candidate) (completed []string, next string) {
	if c.Epic != nil {
		// an epic moves story by story: the stories done, the first one open
		for _, w := range c.Epic.Waves {
			for _, st := range w.Stories {
				switch {
				case st.Status == "done" || st.Status == "completed":
					completed = append(completed, "story "+st.ID)
				case next == "":
					next = fmt.Sprintf("story %s (wave %d)", st.ID, w.Number)
				}
			}
		}
	} else {
		for _, p := range c.Phases {
			switch p.Status {
			case workflow.PhaseCompleted:
				completed = append(completed, orDash(p.Name))
			case workflow.PhaseCurrent:
				next = p.Name
				if p.Agent != "" {
					next += " -- @" + strings.TrimPrefix(p.Agent, "@")
				}
			}
		}
	}
	if next == "" {
		next = "-"
	}
	return completed, next
}
