package resumeflow

import (
	"os"
	osexec "os/exec"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/app/loaded"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/internal/sharedlife"
	"github.com/orchestrate-dev/orchestrate/modes"
)

func TestCleanHolder(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"claude-code", "claude-code", ""},
		{"  Codex CLI 1.2  ", "Codex CLI 1.2", ""},
		{"gemini-cli ✓", "gemini-cli ✓", ""},
		{"", "", "no holder"},
		{"   ", "", "no holder"},
		{"bad\x1b[31m", "", "control or format"},
		{"two\nlines", "", "control or format"},
		{"rtl\u202eevil", "", "control or format"},
		{strings.Repeat("a", maxHolder), strings.Repeat("a", maxHolder), ""},
		{strings.Repeat("é", maxHolder+1), "", "at most 100"},
	} {
		got, err := CleanHolder(tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("CleanHolder(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("CleanHolder(%q) error %v, want one saying %q", tc.in, err, tc.err)
		}
	}
}

func TestParseOutcome(t *testing.T) {
	for in, want := range map[string]string{"done": OutcomeDone, " Failed ": OutcomeFailed, "ABANDONED": OutcomeAbandoned, "ok": "", "": ""} {
		got, err := ParseOutcome(in)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("ParseOutcome(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// A claim's answer is autopilot's by construction: the lock gate is
// TakeGate's (code, reason, message, holder), the decision Evaluate's in
// autopilot mode, a failed handoff FailureOf's code and reason.
func TestClaimUsesAutopilotsGates(t *testing.T) {
	const id = "workflow:sdc-1"
	claim := func(s *loaded.Session, sh *Shared) *ClaimError {
		t.Helper()
		cl, e := ClaimWorkflow(ClaimInput{Session: s, Workflow: "sdc-1", Holder: "agent", View: sh})
		if e == nil {
			_ = cl.Release(OutcomeAbandoned, "", testNow)
		}
		return e
	}

	// a live local lock: TakeGate's end, word for word
	s := sdcRepo(t)
	liveLock(t, s.Root, id)
	end, _, _ := TakeGate(s.Root, id, nil, testNow, false)
	if e := claim(s, nil); e == nil || int(e.Code) != end.Code || e.Error() != end.Err.Error() {
		t.Errorf("live lock: claim %v, TakeGate %d %v", e, end.Code, end.Err)
	}

	// another runner's live lease on the shared lifecycle
	s = sdcRepo(t)
	lease := sharedlife.Lock{Workflow: id, Runner: sharedlife.Runner{Owner: "bob", Host: "ci-7"}, Acquired: testNow.Add(-time.Minute), Expires: testNow.Add(time.Hour)}
	sh := &Shared{Remote: "origin", View: sharedlife.View{Locks: map[string]sharedlife.Lock{id: lease}}}
	end, held, _ := TakeGate(s.Root, id, sh, testNow, false)
	e := claim(s, sh)
	if e == nil || int(e.Code) != end.Code || e.Reason != end.Reason || e.Reason != ReasonHeldRemotely || e.Error() != end.Err.Error() || e.Holder == nil || *e.Holder != *held {
		t.Errorf("held remotely: claim %+v, TakeGate %+v", e, end)
	}

	// a halt: autopilot's decision and exit code, with the plan
	s = repo(t, map[string]string{".orchestrate/workflows/sdc-1.yaml": sdcState})
	ev, err := Evaluate(s, Input{Candidate: candidate(t, s, id), Mode: modes.ModeAutopilot, Candidates: 1, Selected: true})
	if err != nil || ev.Plan.Decision != modes.DecisionHalt {
		t.Fatalf("fixture: %v %s", err, ev.Plan.Decision)
	}
	e = claim(s, nil)
	if e == nil || int(e.Code) != ev.Code || e.Plan == nil || e.Plan.Decision != modes.DecisionHalt || !strings.Contains(e.Error(), ev.Plan.Reason) {
		t.Errorf("halt: claim %+v, autopilot %s %d %q", e, ev.Plan.Decision, ev.Code, ev.Plan.Reason)
	}
	if _, err := os.Stat(handoff.LockPath(s.Root, id)); err == nil {
		t.Error("a refused claim took the lock")
	}

	// a stale local lock (its process gone): FailureOf's code and reason
	s = sdcRepo(t)
	host, _ := os.Hostname()
	if _, err := handoff.Acquire(s.Root, id, handoff.LockInfo{PID: deadPID(t), Host: host, StartedAt: testNow.Add(-time.Hour)}, false); err != nil {
		t.Fatal(err)
	}
	e = claim(s, nil)
	if e == nil {
		t.Fatal("a stale lock: the claim went through")
	}
	f := FailureOf(e.Err, id)
	if int(e.Code) != f.Code || e.Reason != f.Reason || f.Reason != ReasonStaleLock || !strings.Contains(e.Error(), "claim with force") {
		t.Errorf("stale lock: claim %d %q %v, FailureOf %d %q", e.Code, e.Reason, e, f.Code, f.Reason)
	}

	// clean: claimed, the lock kept until the release
	s = sdcRepo(t)
	cl, e := ClaimWorkflow(ClaimInput{Session: s, Workflow: "sdc-1", Holder: "agent"})
	if e != nil || cl.Phase != "implement" || cl.EnvelopePath == "" {
		t.Fatalf("clean: %+v %v", cl, e)
	}
	if _, held, _ := handoff.ReadLock(s.Root, id); !held {
		t.Error("the claim does not hold the lock")
	}
	if err := cl.Release(OutcomeDone, "", testNow); err != nil {
		t.Fatal(err)
	}
	if _, held, _ := handoff.ReadLock(s.Root, id); held {
		t.Error("the lock outlived the release")
	}
	// the same phase again: already handed off (exit 0), as resume says
	e = claim(s, nil)
	if e == nil || e.Code != exitcode.OK || e.Reason != ReasonAlreadyHandedOff {
		t.Errorf("after done: %+v", e)
	}
}

// deadPID is the id of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := osexec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	return cmd.ProcessState.Pid()
}
