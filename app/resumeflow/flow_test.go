package resumeflow

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/handoff/command"
	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/modes/prompttest"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// errEnded is what the fake host's Finish and Failed return: the run ended.
var errEnded = errors.New("ended")

// exec is one scripted answer of handoff.Execute.
type exec struct {
	res handoff.Result
	err error
}

// fakeHost is a Host that records what the flow did, in order, and answers
// from a script: evals change the facts at each Evaluate, execs answer
// Execute in turn.
type fakeHost struct {
	t       *testing.T
	facts   Facts
	evals   []func(*Facts)
	changed bool  // Choose picks another candidate
	trust   error // RequireTrust's answer
	lockEnd bool  // LockShared ends the run
	execs   []exec
	log     []string
	end     *End
	fail    *Failure
	reqs    []handoff.Request
	release []error
}

func (h *fakeHost) record(format string, args ...any) {
	h.log = append(h.log, fmt.Sprintf(format, args...))
}

func (h *fakeHost) Facts() Facts         { return h.facts }
func (h *fakeHost) SetMode(m modes.Mode) { h.facts.Mode = m; h.record("mode %s", m) }
func (h *fakeHost) SetForced()           { h.facts.Forced = true; h.record("forced") }
func (h *fakeHost) SetRestarted()        { h.facts.Restarted = true; h.record("restarted") }
func (h *fakeHost) DropAutopilotOnly()   { h.record("drop autopilot-only") }
func (h *fakeHost) ShowBlocks() error    { h.record("blocks"); return nil }
func (h *fakeHost) Request() (handoff.Request, error) {
	return handoff.Request{Candidate: h.facts.Candidate}, nil
}
func (h *fakeHost) Cleanup() error { h.record("cleanup"); return errEnded }

func (h *fakeHost) Evaluate() error {
	h.record("evaluate")
	if len(h.evals) > 0 {
		h.evals[0](&h.facts)
		h.evals = h.evals[1:]
	}
	return nil
}

func (h *fakeHost) Choose() (bool, error) { h.record("choose"); return h.changed, nil }

func (h *fakeHost) Take() (bool, error) {
	h.record("take")
	resumeClean(&h.facts)
	h.facts.Decision = modes.DecisionAsk
	return false, nil
}

func (h *fakeHost) RequireTrust() error {
	h.record("trust")
	return h.trust
}

func (h *fakeHost) LockShared(req *handoff.Request) (func(error), bool, error) {
	h.record("lock")
	if h.lockEnd {
		return nil, true, errEnded
	}
	return func(err error) { h.release = append(h.release, err) }, false, nil
}

func (h *fakeHost) Execute(req handoff.Request) (handoff.Result, error) {
	h.record("execute takeover=%v again=%v", req.TakeOverStale, req.Again)
	h.reqs = append(h.reqs, req)
	if len(h.execs) == 0 {
		h.t.Fatalf("unexpected Execute")
	}
	e := h.execs[0]
	h.execs = h.execs[1:]
	return e.res, e.err
}

func (h *fakeHost) Failed(f Failure, err error) error {
	h.record("failed %s/%d", f.Outcome, f.Code)
	h.fail = &f
	return errEnded
}

func (h *fakeHost) Notify(ev Event) error {
	names := map[EventKind]string{EvAutopilotSwitched: "switched", EvCancelled: "cancelled", EvNotApproved: "not approved",
		EvNoTerminal: "no terminal", EvRestarting: "restarting", EvCannotRestart: "cannot restart", EvLockLeft: "lock left",
		EvDispatched: "dispatched", EvTookOverStale: "took over", EvHandingOffAgain: "again", EvAlreadyHandedOff: "already",
		EvUnconfirmed: "unconfirmed", EvHandedOff: "handed off"}
	s := "event " + names[ev.Kind]
	switch {
	case ev.Kind == EvNoTerminal:
		s += " " + ev.Flags
	case ev.Kind == EvCannotRestart && ev.CleanupHint:
		s += " +cleanup"
	}
	h.log = append(h.log, s)
	return nil
}

func (h *fakeHost) Finish(e End) error {
	h.record("finish %s/%d", e.Outcome, e.Code)
	h.end = &e
	return errEnded
}

var (
	conflict = workflow.Finding{Check: workflow.CheckConflict, Severity: workflow.Blocking, Code: "changed", Message: "a.go changed"}
	missing  = workflow.Finding{Check: "integrity", Severity: workflow.Blocking, Code: "story-missing", Message: "story 1 is gone"}
)

// facts are the facts of a resumable candidate decided by mode.
func facts(mode modes.Mode, decision string, code exitcode.Code, blocking ...workflow.Finding) Facts {
	sit := modes.Situation{Mode: mode, Resumable: true, Blocking: blocking, ID: "sdc:1"}
	for _, f := range blocking {
		if f.Check == workflow.CheckConflict {
			sit.Conflicts = true
		}
	}
	c := workflow.Candidate{ID: "sdc:1", Resumable: true, Source: workflow.SourceRef{Kind: workflow.KindWorkflowState}}
	return Facts{Candidate: c, Mode: mode, Situation: sit,
		Decision: decision, Code: int(code), Candidates: 1, Named: true, Reason: "why",
		Now: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
}

// resumeClean is an evaluation that now resumes cleanly.
func resumeClean(f *Facts) {
	f.Decision, f.Code, f.Situation.Blocking, f.Situation.Conflicts = modes.DecisionResume, 0, nil, false
}

var ok = exec{res: handoff.Result{Agent: "dev", Command: "true"}}

// the tail of a clean handoff
var handedOff = []string{"trust", "lock", "execute takeover=false again=false", "event dispatched", "event handed off", "finish resumed/0"}

func seq(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			out = append(out, v)
		case []string:
			out = append(out, v...)
		}
	}
	return out
}

func TestFlowAct(t *testing.T) {
	stale := &handoff.StaleLockError{Owner: handoff.LockInfo{PID: 42, Host: "h", StartedAt: time.Date(2026, 11, 20, 11, 0, 0, 0, time.UTC)}}
	tests := []struct {
		name      string
		facts     Facts
		edit      func(*fakeHost)
		canPrompt bool
		replies   []prompttest.Reply
		want      []string
		wantEnd   *End
		asked     []string
	}{
		{name: "autopilot resumes a clean state",
			facts: facts(modes.ModeAutopilot, modes.DecisionResume, exitcode.OK),
			edit:  func(h *fakeHost) { h.execs = []exec{ok} },
			want:  seq("blocks", handedOff)},
		{name: "autopilot refuses conflicts without a terminal",
			facts: facts(modes.ModeAutopilot, modes.DecisionHalt, exitcode.Cannot, conflict),
			want:  []string{"blocks", "finish halted/17"}},
		{name: "autopilot on a finished workflow: terminal, never switches",
			facts: func() Facts {
				f := facts(modes.ModeAutopilot, modes.DecisionHalt, exitcode.Terminal)
				f.Situation.Terminal = true
				return f
			}(),
			canPrompt: true,
			want:      []string{"blocks", "finish terminal/15"}},
		{name: "autopilot halt on a terminal switches to interactive and asks",
			facts: facts(modes.ModeAutopilot, modes.DecisionHalt, exitcode.Cannot, conflict),
			edit: func(h *fakeHost) {
				h.evals = []func(*Facts){func(f *Facts) { f.Decision = modes.DecisionAsk }}
				h.execs = []exec{ok}
			},
			canPrompt: true,
			replies:   []prompttest.Reply{{Index: 0}},
			want:      seq("event switched", "mode interactive", "drop autopilot-only", "evaluate", "blocks", "forced", "evaluate", handedOff),
			asked:     []string{modes.QuestionResume}},
		{name: "autopilot switch offers the pick list; another candidate is taken",
			facts: func() Facts {
				f := facts(modes.ModeAutopilot, modes.DecisionHalt, exitcode.Cannot, conflict)
				f.Candidates, f.Named = 2, false
				return f
			}(),
			edit:      func(h *fakeHost) { h.changed = true; h.execs = []exec{ok} },
			canPrompt: true,
			replies:   []prompttest.Reply{{Index: 0}},
			want:      seq("event switched", "mode interactive", "choose", "drop autopilot-only", "take", "blocks", handedOff),
			asked:     []string{modes.QuestionResume}},
		{name: "interactive yes",
			facts:     facts(modes.ModeInteractive, modes.DecisionAsk, exitcode.OK),
			edit:      func(h *fakeHost) { h.execs = []exec{ok} },
			canPrompt: true,
			replies:   []prompttest.Reply{{Index: 0}},
			want:      seq("blocks", handedOff)},
		{name: "interactive cancel",
			facts:     facts(modes.ModeInteractive, modes.DecisionAsk, exitcode.OK),
			canPrompt: true,
			replies:   []prompttest.Reply{{Index: 2}},
			want:      []string{"blocks", "event cancelled", "finish declined/10"}},
		{name: "interactive Ctrl-C",
			facts:     facts(modes.ModeInteractive, modes.DecisionAsk, exitcode.OK),
			canPrompt: true,
			replies:   []prompttest.Reply{{Err: modes.ErrInterrupted}},
			want:      []string{"blocks", "event cancelled", "finish declined/10"}},
		{name: "interactive without a terminal names --approve",
			facts: facts(modes.ModeInteractive, modes.DecisionAsk, exitcode.OK),
			want:  []string{"blocks", "event no terminal --approve", "finish error/19"}},
		{name: "interactive without a terminal, --approve answers yes",
			facts: func() Facts {
				f := facts(modes.ModeInteractive, modes.DecisionAsk, exitcode.OK)
				f.Approve = true
				return f
			}(),
			edit: func(h *fakeHost) { h.execs = []exec{ok} },
			want: seq("blocks", handedOff)},
		{name: "forceable conflicts: --approve alone does not answer",
			facts: func() Facts {
				f := facts(modes.ModeInteractive, modes.DecisionAsk, exitcode.OK, conflict)
				f.Approve = true
				return f
			}(),
			want: []string{"blocks", "event no terminal --force --approve (resume over the conflicts, confirmed)", "finish error/19"}},
		{name: "forceable conflicts: resume anyway",
			facts:     facts(modes.ModeInteractive, modes.DecisionAsk, exitcode.OK, conflict),
			edit:      func(h *fakeHost) { h.evals = []func(*Facts){resumeClean}; h.execs = []exec{ok} },
			canPrompt: true,
			replies:   []prompttest.Reply{{Index: 0}},
			want:      seq("blocks", "forced", "evaluate", handedOff)},
		{name: "restart from scratch over conflicts is forced",
			facts: facts(modes.ModeInteractive, modes.DecisionAsk, exitcode.OK),
			edit: func(h *fakeHost) {
				h.evals = []func(*Facts){func(f *Facts) { f.Situation.Blocking = []workflow.Finding{conflict} }}
				h.execs = []exec{ok}
			},
			canPrompt: true,
			replies:   []prompttest.Reply{{Index: 1}},
			want:      seq("blocks", "restarted", "event restarting", "evaluate", "forced", handedOff)},
		{name: "restart halts on a finding a restart cannot get past",
			facts: facts(modes.ModeInteractive, modes.DecisionAsk, exitcode.OK),
			edit: func(h *fakeHost) {
				h.evals = []func(*Facts){func(f *Facts) { f.Situation.Blocking = []workflow.Finding{conflict, missing} }}
			},
			canPrompt: true,
			replies:   []prompttest.Reply{{Index: 1}},
			want:      []string{"blocks", "restarted", "event restarting", "evaluate", "event cannot restart", "finish halted/17"}},
		{name: "pre-flight without a terminal",
			facts: facts(modes.ModePreflight, modes.DecisionAsk, exitcode.OK),
			want:  []string{"blocks", "event no terminal --approve", "finish error/19"}},
		{name: "pre-flight proceed typed",
			facts:     facts(modes.ModePreflight, modes.DecisionAsk, exitcode.OK),
			edit:      func(h *fakeHost) { h.execs = []exec{ok} },
			canPrompt: true,
			replies:   []prompttest.Reply{{Text: " Proceed "}},
			want:      seq("blocks", handedOff),
			asked:     []string{modes.QuestionProceed}},
		{name: "pre-flight not approved",
			facts:     facts(modes.ModePreflight, modes.DecisionAsk, exitcode.OK),
			canPrompt: true,
			replies:   []prompttest.Reply{{Text: "no"}},
			want:      []string{"blocks", "event not approved", "finish declined/10"}},
		{name: "halt offers a restart instead; the restart goes on",
			facts: func() Facts {
				f := facts(modes.ModeInteractive, modes.DecisionHalt, exitcode.Cannot, missing)
				f.RestartOK = true
				return f
			}(),
			edit: func(h *fakeHost) {
				h.evals = []func(*Facts){func(f *Facts) { f.Situation.Blocking = []workflow.Finding{conflict} }}
				h.execs = []exec{ok}
			},
			canPrompt: true,
			replies:   []prompttest.Reply{{Index: 0}},
			want:      seq("blocks", "restarted", "event restarting", "evaluate", "forced", handedOff),
			asked:     []string{modes.QuestionInstead}},
		{name: "halt on a stale state offers the cleanup",
			facts: func() Facts {
				f := facts(modes.ModeInteractive, modes.DecisionHalt, exitcode.Cannot, missing)
				f.AgeClass = "stale"
				return f
			}(),
			canPrompt: true,
			replies:   []prompttest.Reply{{Index: 0}},
			want:      []string{"blocks", "cleanup"}},
		{name: "a stale state in a framework's shared file: no cleanup offered",
			facts: func() Facts {
				f := facts(modes.ModeInteractive, modes.DecisionHalt, exitcode.Cannot, missing)
				f.AgeClass, f.Candidate.Source.Kind = "stale", workflow.KindBMADLedger
				return f
			}(),
			canPrompt: true,
			replies:   []prompttest.Reply{{Index: 0}},
			want:      []string{"blocks", "event cancelled", "finish declined/10"}},
		{name: "the restart offered instead halts, naming the cleanup",
			facts: func() Facts {
				f := facts(modes.ModeInteractive, modes.DecisionHalt, exitcode.Cannot, missing)
				f.RestartOK, f.AgeClass = true, "stale"
				return f
			}(),
			edit:      func(h *fakeHost) { h.evals = []func(*Facts){func(*Facts) {}} },
			canPrompt: true,
			replies:   []prompttest.Reply{{Index: 0}},
			want:      []string{"blocks", "restarted", "event restarting", "evaluate", "event cannot restart +cleanup", "finish halted/17"}},
		{name: "the restart offered instead finds the workflow finished",
			facts: func() Facts {
				f := facts(modes.ModeInteractive, modes.DecisionHalt, exitcode.Cannot, missing)
				f.RestartOK = true
				return f
			}(),
			edit:      func(h *fakeHost) { h.evals = []func(*Facts){func(f *Facts) { f.Situation.Terminal = true }} },
			canPrompt: true,
			replies:   []prompttest.Reply{{Index: 0}},
			want:      []string{"blocks", "restarted", "event restarting", "evaluate", "finish halted/17"}},
		{name: "the offer cancelled",
			facts: func() Facts {
				f := facts(modes.ModeInteractive, modes.DecisionHalt, exitcode.Cannot, missing)
				f.RestartOK = true
				return f
			}(),
			canPrompt: true,
			replies:   []prompttest.Reply{{Index: 1}},
			want:      []string{"blocks", "event cancelled", "finish declined/10"}},
		{name: "no offer with --json",
			facts: func() Facts {
				f := facts(modes.ModeInteractive, modes.DecisionHalt, exitcode.Cannot, missing)
				f.RestartOK, f.JSON = true, true
				return f
			}(),
			canPrompt: true,
			want:      []string{"blocks", "finish halted/17"}},
		{name: "the repository file not trusted: nothing runs",
			facts: facts(modes.ModeAutopilot, modes.DecisionResume, exitcode.OK),
			edit:  func(h *fakeHost) { h.trust = errEnded },
			want:  []string{"blocks", "trust"}},
		{name: "shared lease held elsewhere: the lock step ends the run",
			facts: facts(modes.ModeAutopilot, modes.DecisionResume, exitcode.OK),
			edit:  func(h *fakeHost) { h.lockEnd = true },
			want:  []string{"blocks", "trust", "lock"}},
		{name: "stale lock taken over after the confirmation",
			facts: facts(modes.ModeInteractive, modes.DecisionResume, exitcode.OK),
			edit: func(h *fakeHost) {
				h.execs = []exec{{err: stale}, {res: handoff.Result{TookOverStale: &handoff.LockInfo{PID: 42}}}}
			},
			canPrompt: true,
			replies:   []prompttest.Reply{{Yes: true}},
			want: []string{"blocks", "trust", "lock", "execute takeover=false again=false", "execute takeover=true again=false",
				"event dispatched", "event took over", "event handed off", "finish resumed/0"},
			asked: []string{"The lock of sdc:1 is stale (pid 42 on h, started 2026-11-20T11:00:00Z). Take it over?"}},
		{name: "stale lock left in place",
			facts:     facts(modes.ModeInteractive, modes.DecisionResume, exitcode.OK),
			edit:      func(h *fakeHost) { h.execs = []exec{{err: stale}} },
			canPrompt: true,
			replies:   []prompttest.Reply{{Yes: false}},
			want:      []string{"blocks", "trust", "lock", "execute takeover=false again=false", "event lock left", "finish declined/10"}},
		{name: "stale lock in autopilot: never asked, exit 16",
			facts: facts(modes.ModeAutopilot, modes.DecisionResume, exitcode.OK),
			edit:  func(h *fakeHost) { h.execs = []exec{{err: stale}} },
			want:  []string{"blocks", "trust", "lock", "execute takeover=false again=false", "failed locked/16"}},
		{name: "re-handoff: asked, handed off again",
			facts:     facts(modes.ModeInteractive, modes.DecisionResume, exitcode.OK),
			edit:      func(h *fakeHost) { h.execs = []exec{{res: handoff.Result{AlreadyHandedOff: true}}, ok} },
			canPrompt: true,
			replies:   []prompttest.Reply{{Yes: true}},
			want: []string{"blocks", "trust", "lock", "execute takeover=false again=false", "event dispatched", "event again",
				"execute takeover=false again=true", "event handed off", "finish resumed/0"},
			asked: []string{"sdc:1 was already handed off. " + modes.QuestionAgain}},
		{name: "re-handoff declined: nothing to do",
			facts:     facts(modes.ModeInteractive, modes.DecisionResume, exitcode.OK),
			edit:      func(h *fakeHost) { h.execs = []exec{{res: handoff.Result{AlreadyHandedOff: true}}} },
			canPrompt: true,
			replies:   []prompttest.Reply{{Yes: false}},
			want:      []string{"blocks", "trust", "lock", "execute takeover=false again=false", "event dispatched", "event already", "finish none/0"},
			wantEnd:   &End{Outcome: "none", Quiet: true, Reason: ReasonAlreadyHandedOff}},
		{name: "re-handoff in autopilot: not asked",
			facts: facts(modes.ModeAutopilot, modes.DecisionResume, exitcode.OK),
			edit:  func(h *fakeHost) { h.execs = []exec{{res: handoff.Result{AlreadyHandedOff: true}}} },
			want:  []string{"blocks", "trust", "lock", "execute takeover=false again=false", "event dispatched", "event already", "finish none/0"}},
		{name: "unconfirmed handoff handed off again",
			facts: facts(modes.ModeAutopilot, modes.DecisionResume, exitcode.OK),
			edit:  func(h *fakeHost) { h.execs = []exec{{res: handoff.Result{Unconfirmed: true}}} },
			want:  []string{"blocks", "trust", "lock", "execute takeover=false again=false", "event dispatched", "event unconfirmed", "event handed off", "finish resumed/0"}},
		{name: "the command fails: exit 18",
			facts: facts(modes.ModeAutopilot, modes.DecisionResume, exitcode.OK),
			edit:  func(h *fakeHost) { h.execs = []exec{{err: &command.Error{Reason: command.ReasonFailed, Status: 3}}} },
			want:  []string{"blocks", "trust", "lock", "execute takeover=false again=false", "failed error/18"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &fakeHost{t: t, facts: tc.facts}
			if tc.edit != nil {
				tc.edit(h)
			}
			p := prompttest.Script(t, tc.replies...)
			var states []State
			fl := &Flow{Host: h, Prompter: p, CanPrompt: tc.canPrompt, Trace: func(s State) { states = append(states, s) }}
			if err := fl.Act(); err != nil && !errors.Is(err, errEnded) {
				t.Fatalf("Act: %v", err)
			}
			if !reflect.DeepEqual(h.log, tc.want) {
				t.Errorf("steps:\n got %q\nwant %q", h.log, tc.want)
			}
			if len(p.Replies) > 0 {
				t.Errorf("replies left unasked: %v (asked %q)", p.Replies, p.Messages())
			}
			if tc.asked != nil && !reflect.DeepEqual(p.Messages(), tc.asked) {
				t.Errorf("asked %q, want %q", p.Messages(), tc.asked)
			}
			if tc.wantEnd != nil && (h.end == nil || *h.end != *tc.wantEnd) {
				t.Errorf("end %+v, want %+v", h.end, tc.wantEnd)
			}
			if len(states) == 0 || states[0] != StateDecide {
				t.Errorf("states %v: want decide first", states)
			}
			// the shared lock taken is always released, with the outcome
			if len(h.release) > 1 {
				t.Errorf("released %d times", len(h.release))
			}
		})
	}
}

func TestFlowReleasesWithTheOutcome(t *testing.T) {
	cmdErr := &command.Error{Reason: command.ReasonTimeout}
	tests := []struct {
		name    string
		execs   []exec
		replies []prompttest.Reply
		want    string
	}{
		{"handed off", []exec{ok}, nil, "<nil>"},
		{"command failed", []exec{{err: cmdErr}}, nil, cmdErr.Error()},
		{"stale lock kept", []exec{{err: &handoff.StaleLockError{}}}, []prompttest.Reply{{Yes: false}}, "declined: nothing was run"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &fakeHost{t: t, facts: facts(modes.ModeInteractive, modes.DecisionResume, exitcode.OK), execs: tc.execs}
			fl := &Flow{Host: h, Prompter: prompttest.Script(t, tc.replies...), CanPrompt: true}
			_ = fl.Act()
			if len(h.release) != 1 || fmt.Sprint(h.release[0]) != tc.want {
				t.Errorf("released with %v, want %s", h.release, tc.want)
			}
		})
	}
}

func TestFlowApplySaved(t *testing.T) {
	h := &fakeHost{t: t, facts: facts(modes.ModeInteractive, modes.DecisionAsk, exitcode.OK), execs: []exec{ok}}
	fl := &Flow{Host: h, Prompter: prompttest.Script(t), CanPrompt: true}
	if err := fl.ApplySaved(); !errors.Is(err, errEnded) {
		t.Fatalf("ApplySaved: %v", err)
	}
	if want := seq("blocks", handedOff); !reflect.DeepEqual(h.log, want) {
		t.Errorf("steps %q, want %q (a saved plan asks nothing)", h.log, want)
	}
}

func TestFailureOf(t *testing.T) {
	tests := []struct {
		err     error
		code    exitcode.Code
		outcome string
		reason  string
		action  string
		command string
	}{
		{&handoff.LockedError{}, exitcode.Locked, "locked", "", "orchestrate unlock sdc:1", ""},
		{&handoff.StaleLockError{}, exitcode.Locked, "locked", ReasonStaleLock, "--force to take it over", ""},
		{&command.Error{Reason: command.ReasonFailed, Status: 2}, exitcode.Command, "error", ReasonCommandFailed, "Fix the command", command.ReasonFailed},
		{&command.Error{Reason: command.ReasonFailed, Status: 130}, exitcode.Command, "error", ReasonCommandFailed, "Interrupted", command.ReasonInterrupted},
		{&command.Error{Reason: command.ReasonTimeout}, exitcode.Command, "error", ReasonCommandFailed, "handoff.timeout", command.ReasonTimeout},
		{&command.ValueError{Field: "Story"}, exitcode.Cannot, "halted", "", "{{unchecked .Story}}", ""},
		{errors.New("disk full"), exitcode.Error, "error", "", "Check the error above", ""},
	}
	for _, tc := range tests {
		f := FailureOf(fmt.Errorf("wrapped: %w", tc.err), "sdc:1")
		if f.Code != int(tc.code) || f.Outcome != tc.outcome || f.Reason != tc.reason || !strings.Contains(f.Action, tc.action) {
			t.Errorf("%T: got %+v", tc.err, f)
		}
		if got := ""; f.Command != nil {
			got = f.Command.Reason
			if got != tc.command {
				t.Errorf("%T: command reason %q, want %q", tc.err, got, tc.command)
			}
		} else if tc.command != "" {
			t.Errorf("%T: no command result", tc.err)
		}
	}
}

func TestDecisionRules(t *testing.T) {
	f := facts(modes.ModeAutopilot, modes.DecisionHalt, exitcode.Cannot, conflict)
	if !SwitchToInteractive(f, true) || SwitchToInteractive(f, false) {
		t.Error("autopilot halted on conflicts switches only with a terminal")
	}
	g := f
	g.Situation.Blocking = []workflow.Finding{missing}
	if SwitchToInteractive(g, true) {
		t.Error("a missing story is not for a person to decide")
	}
	if !Forceable(f.Situation) || Forceable(g.Situation) {
		t.Error("forceable: conflicts only")
	}
	forced := f.Situation
	forced.Force = true
	if Forceable(forced) {
		t.Error("forced conflicts are not offered again")
	}
	if b, ok := RestartBlocker(modes.Situation{Blocking: []workflow.Finding{conflict, missing}}); !ok || b != missing {
		t.Errorf("RestartBlocker = %v %v", b, ok)
	}
	if _, ok := RestartBlocker(modes.Situation{Blocking: []workflow.Finding{conflict}}); ok {
		t.Error("a conflict does not block a restart")
	}
	i := facts(modes.ModeInteractive, modes.DecisionAsk, exitcode.OK)
	if !CanOfferAgain(i, true) || CanOfferAgain(i, false) {
		t.Error("interactive on a terminal offers the re-handoff")
	}
	for _, m := range []modes.Mode{modes.ModeAutopilot, modes.ModePreflight} {
		i.Mode = m
		if CanOfferAgain(i, true) {
			t.Errorf("%s offers the re-handoff", m)
		}
	}
	if !MovesOn(false, false, modes.ModeAutopilot, 0) || MovesOn(true, false, modes.ModeAutopilot, 0) ||
		MovesOn(false, true, modes.ModeAutopilot, 0) || MovesOn(false, false, modes.ModeInteractive, 0) || MovesOn(false, false, modes.ModeAutopilot, 1000) {
		t.Error("MovesOn: only an unnamed autopilot run without a saved plan moves on, a bounded number of times")
	}
	if !Cancel(modes.ErrInterrupted) || !Cancel(fmt.Errorf("x: %w", modes.ErrDeclined)) || Cancel(errors.New("io")) {
		t.Error("Cancel")
	}
}
