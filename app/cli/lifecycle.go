package cli

import (
	"fmt"
	"strings"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/app/resumeflow"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/templates"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// handoffHistory reads the orchestration log's handoff history; a log that
// cannot be read is warned about and treated as empty.
func (a *app) handoffHistory(s *loadedRepo) map[string]handoff.Last {
	h, err := resumeflow.History(s.Session)
	if err != nil {
		fmt.Fprintf(a.sys.IO.ErrOut, "warning: %s\n", cmdutil.SafeErr(err))
	}
	return h
}

// skipHandedOff is the autopilot filter of the candidates a resume may
// pick by itself (resumeflow.SkipHandedOff), saying on stderr which it
// skipped and why.
func (a *app) skipHandedOff(s *loadedRepo, cands []workflow.Candidate, mode modes.Mode, shared *resumeflow.Shared) ([]workflow.Candidate, map[string]bool, error) {
	f := resumeflow.SkipHandedOffShared(s.Session, cands, mode, func() map[string]handoff.Last { return a.handoffHistory(s) }, shared)
	for _, sk := range f.Skipped {
		fmt.Fprintf(a.sys.IO.ErrOut, "Skipping %s: %s.\n", templates.Safe(sk.ID), templates.Safe(sk.Why))
	}
	if f.Err != nil {
		return nil, f.Again, f.Err
	}
	return f.Kept, f.Again, nil
}

// alreadyHandedOff is what a resume says when this very resume was handed
// off before: when, to whom, and the flag that hands it off again.
func alreadyHandedOff(s *loadedRepo, id string, res handoff.Result) string {
	when := ""
	if !res.PreviousAt.IsZero() {
		when = " " + templates.Ago(s.Now.Sub(res.PreviousAt))
	}
	to := ""
	if res.Agent != "" {
		to = " to @" + strings.TrimPrefix(res.Agent, "@")
	}
	return fmt.Sprintf("Already handed off%s%s: this resume of %s was handed off before (%s); nothing to do.\nTo hand it off again at the same phase, run: orchestrate resume %s --again\n",
		when, templates.Safe(to), templates.Safe(id), templates.Safe(rel(s.Root, res.EnvelopePath)), templates.Safe(id))
}
