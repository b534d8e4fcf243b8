// Package resumeflow is the use case of `orchestrate resume` (and of the
// commands that share its steps) between loading a session and rendering:
// selecting the candidate (Select, Pick), the handoff lifecycle autopilot
// filters on, evaluating a candidate (validation, plan, the mode's
// situation and decision, and the findings that keep a dry run's exit code
// equal to the real run's), and the resume state machine (Flow: decide,
// confirm, trust, lock, handoff, record) with the handoff request; the
// cleanup (RunCleanup), unlock (UnlockLocal, UnlockShared) and rebuild
// (RebuildCorrupt) decisions too. Nothing here prints: questions go through
// modes.Prompter, everything a person should see is an event or an outcome
// the command layer renders. See docs/ARCHITECTURE.md.
package resumeflow

import (
	"fmt"
	"strings"

	"github.com/orchestrate-dev/orchestrate/discover"
	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Selection is what naming a workflow on the command line found: the
// candidate, or why there is none to resume (Outcome and Code, with Err
// saying it for people).
type Selection struct {
	Candidate *workflow.Candidate // nil when nothing matches or the name is ambiguous
	Outcome   string              // "" when Candidate is resumable; else not_found, error, terminal or halted
	Code      exitcode.Code
	Err       error
}

// Select looks name up among cands (discover.Lookup: an id, a key, a unique
// prefix or a story id). Several matches of which exactly one is resumable
// select that one (a story id shared with finished work).
func Select(cands []workflow.Candidate, name string) Selection {
	matches := discover.Lookup(cands, name)
	if len(matches) > 1 {
		var live []workflow.Candidate
		for _, c := range matches {
			if c.Resumable {
				live = append(live, c)
			}
		}
		if len(live) == 1 {
			matches = live
		}
	}
	switch {
	case len(matches) == 0:
		return Selection{Outcome: "not_found", Code: exitcode.NotFound, Err: fmt.Errorf("no workflow matches %q (orchestrate status --all lists them)", name)}
	case len(matches) > 1:
		var ids []string
		for _, c := range matches {
			ids = append(ids, c.ID)
		}
		return Selection{Outcome: "error", Code: exitcode.Usage, Err: fmt.Errorf("%q is ambiguous: it matches %s", name, strings.Join(ids, ", "))}
	}
	c := matches[0]
	sel := Selection{Candidate: &c}
	if !c.Resumable {
		if workflow.IsTerminalStatus(c.Status) || (c.Type == workflow.TypeStory && c.Status == string(workflow.StatusDone)) {
			sel.Outcome, sel.Code, sel.Err = "terminal", exitcode.Terminal, fmt.Errorf("%s is %s: nothing to resume", c.ID, c.Status)
		} else {
			sel.Outcome, sel.Code, sel.Err = "halted", exitcode.Cannot, fmt.Errorf("%s is %s: it is not an interrupted workflow", c.ID, orDash(c.Status))
		}
	}
	return sel
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Pick is the selection step of a resume without a WORKFLOW: the most
// recent of n resumable candidates, unless a person is there to choose —
// several candidates, a mode that asks (not autopilot) and not a dry run:
// then choose asks (its error is the user's cancel, or a failure), and
// without a terminal the run ends with exit 19 naming what to pass.
func Pick(n int, mode modes.Mode, dryRun, canPrompt bool, choose func() (int, error)) (idx int, end *End, err error) {
	if n <= 1 || mode == modes.ModeAutopilot || dryRun {
		return 0, nil, nil // the most recent
	}
	if !canPrompt {
		return 0, &End{Outcome: "error", Code: int(exitcode.NoTTY),
			Err: fmt.Errorf("%d interrupted workflows and no terminal to ask which: name one (orchestrate resume WORKFLOW; orchestrate status lists them) or pass --mode autopilot to resume the most recent one when it is clean (autopilot halts on conflicts or staleness)", n)}, nil
	}
	idx, err = choose()
	return idx, nil, err
}
