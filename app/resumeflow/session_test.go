package resumeflow

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/app/loaded"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/handoff/cleanup"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/internal/sharedlife"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/modes/prompttest"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

var testNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

const sdcState = `execution_id: sdc-1
workflow: story-development-cycle
story: "4.2"
updated_at: 2026-11-20T11:30:00Z
current_phase: implement
status: interrupted
mode: interactive
phases_completed:
  - {phase: create, agent: sm, output: docs/stories/4.2.s.md}
  - {phase: validate, agent: po, output: docs/stories/4.2.s.md}
`

const story42 = "# Story 4.2: S\n\n**Status:** InProgress\n\n## Acceptance Criteria\n1. **Given** x\n"

// repo writes files into a new folder (no git) and loads it as a session.
func repo(t *testing.T, files map[string]string) *loaded.Session {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	loc, err := loaded.Resolve(dir)
	if err != nil {
		t.Fatal(err)
	}
	return loaded.Load(loc, config.Default(), testNow)
}

func sdcRepo(t *testing.T) *loaded.Session {
	return repo(t, map[string]string{".orchestrate/workflows/sdc-1.yaml": sdcState, "docs/stories/4.2.s.md": story42})
}

func candidate(t *testing.T, s *loaded.Session, id string) workflow.Candidate {
	t.Helper()
	for _, c := range s.Res.Candidates {
		if c.ID == id {
			return c
		}
	}
	var ids []string
	for _, c := range s.Res.Candidates {
		ids = append(ids, c.ID)
	}
	t.Fatalf("no candidate %s among %v", id, ids)
	return workflow.Candidate{}
}

// liveLock locks id as this live process.
func liveLock(t *testing.T, root, id string) {
	t.Helper()
	host, _ := os.Hostname()
	if _, err := handoff.Acquire(root, id, handoff.LockInfo{PID: os.Getpid(), Host: host, StartedAt: time.Now()}, false); err != nil {
		t.Fatal(err)
	}
}

func TestEvaluateDecidesByMode(t *testing.T) {
	s := sdcRepo(t)
	c := candidate(t, s, "workflow:sdc-1")
	tests := []struct {
		mode     modes.Mode
		decision string
		code     exitcode.Code
	}{
		{modes.ModeAutopilot, modes.DecisionResume, exitcode.OK},
		{modes.ModeInteractive, modes.DecisionAsk, exitcode.OK},
		{modes.ModePreflight, modes.DecisionAsk, exitcode.OK},
	}
	for _, tc := range tests {
		ev, err := Evaluate(s, Input{Candidate: c, Mode: tc.mode, Candidates: 1, Selected: true})
		if err != nil {
			t.Fatalf("%s: %v", tc.mode, err)
		}
		if ev.Plan.Decision != tc.decision || ev.Code != int(tc.code) {
			t.Errorf("%s: decision %s exit %d, want %s %d (%s)", tc.mode, ev.Plan.Decision, ev.Code, tc.decision, tc.code, ev.Plan.Reason)
		}
		if ev.Plan.ResumeFrom.Phase != "implement" {
			t.Errorf("%s: resumes from %q", tc.mode, ev.Plan.ResumeFrom.Phase)
		}
	}
	if _, err := Evaluate(s, Input{Candidate: c, Mode: modes.ModeInteractive, Plan: plan.Options{FromPhase: "nope"}}); err == nil {
		t.Error("an unknown --from-phase is an error")
	}
}

func TestEvaluateMissingStoryHaltsAndOffersRestart(t *testing.T) {
	s := repo(t, map[string]string{".orchestrate/workflows/sdc-1.yaml": sdcState})
	c := candidate(t, s, "workflow:sdc-1")
	ev, err := Evaluate(s, Input{Candidate: c, Mode: modes.ModeInteractive, Selected: true})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Plan.Decision != modes.DecisionHalt || ev.Code != int(exitcode.Cannot) {
		t.Fatalf("decision %s exit %d: %s", ev.Plan.Decision, ev.Code, ev.Plan.Reason)
	}
	if w := ValidationWord(c, &ev.Report); w != ValidationMissing {
		t.Errorf("validation word %q, want missing", w)
	}
	if len(ParityFindings(s, c, modes.ModeAutopilot, false, ev.Findings)) != 0 {
		t.Error("a patchable state has no parity finding")
	}
}

func TestParityFindings(t *testing.T) {
	s := repo(t, map[string]string{".orchestrate/workflows/flow.yaml": "{execution_id: flow, status: interrupted}\n"})
	c := workflow.Candidate{ID: "workflow:flow", Resumable: true, Status: "interrupted",
		Source: workflow.SourceRef{Kind: workflow.KindWorkflowState, Path: ".orchestrate/workflows/flow.yaml"}}
	wrong := workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Warning, Code: "wrong-type", Path: c.Source.Path}
	got := ParityFindings(s, c, modes.ModeAutopilot, false, []workflow.Finding{wrong, wrong})
	codes := ""
	for _, f := range got {
		codes += f.Code + " "
	}
	if codes != "state-not-updatable autopilot-partial-state " {
		t.Errorf("parity findings %q", codes)
	}
	if got := ParityFindings(s, c, modes.ModeAutopilot, true, nil); got != nil {
		t.Errorf("a finished workflow has parity findings: %v", got)
	}
}

func TestAgentKnown(t *testing.T) {
	s := repo(t, map[string]string{".claude/agents/dev.md": "x", ".claude/agents/notes.txt": "x"})
	cfg := config.Default()
	cfg.AgentDirs = []string{".claude/agents", "missing"}
	cfg.Agents = []string{"@qa"}
	for agent, want := range map[string]bool{"@dev": true, "qa": true, "notes": false, "po": false} {
		known, any := AgentKnown(s.Root, cfg, agent)
		if known != want || !any {
			t.Errorf("%s: known %v any %v", agent, known, any)
		}
	}
	if _, any := AgentKnown(s.Root, config.Config{}, "dev"); any {
		t.Error("no definitions at all")
	}
}

func TestTakeGate(t *testing.T) {
	s := sdcRepo(t)
	if _, _, ok := TakeGate(s.Root, "workflow:sdc-1", nil, testNow, false); !ok {
		t.Fatal("an unlocked workflow is taken")
	}
	sh := &Shared{Remote: "origin", View: sharedlife.View{Locks: map[string]sharedlife.Lock{
		"workflow:sdc-1": {Runner: sharedlife.Runner{Owner: "ci", Host: "runner"}, Expires: testNow.Add(time.Hour)},
	}}}
	end, held, ok := TakeGate(s.Root, "workflow:sdc-1", sh, testNow, false)
	if ok || held == nil || end.Code != int(exitcode.Locked) || end.Reason != ReasonHeldRemotely {
		t.Errorf("held remotely: %+v %v %v", end, held, ok)
	}
	var he *sharedlife.HeldError
	if !errors.As(end.Err, &he) {
		t.Errorf("held remotely: %v is not a HeldError", end.Err)
	}
	if _, _, ok := TakeGate(s.Root, "workflow:sdc-1", sh, testNow, true); !ok {
		t.Error("a dry run plans a workflow held elsewhere")
	}
	if _, _, ok := TakeGate(s.Root, "workflow:sdc-1", sh, testNow.Add(2*time.Hour), false); !ok {
		t.Error("an expired lease does not hold")
	}
	liveLock(t, s.Root, "workflow:sdc-1")
	end, held, ok = TakeGate(s.Root, "workflow:sdc-1", nil, testNow, false)
	if ok || held != nil || end.Code != int(exitcode.Locked) || !strings.Contains(end.Err.Error(), "not resuming it twice") {
		t.Errorf("live lock: %+v %v %v", end, held, ok)
	}
	if err := os.WriteFile(handoff.LockPath(s.Root, "workflow:sdc-1"), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	end, _, ok = TakeGate(s.Root, "workflow:sdc-1", nil, testNow, false)
	if ok || !strings.Contains(end.Err.Error(), "is not trusted") || !strings.Contains(end.Err.Error(), ".orchestrate/locks/") {
		t.Errorf("untrusted lock: %+v", end)
	}
}

func TestSharedStep(t *testing.T) {
	held := &sharedlife.HeldError{Workflow: "w"}
	done := &sharedlife.Handoff{Prior: &sharedlife.Record{Event: sharedlife.EventHandedOff}}
	dispatched := &sharedlife.Handoff{Prior: &sharedlife.Record{Event: sharedlife.EventDispatched}}
	tests := []struct {
		name           string
		err            error
		h              *sharedlife.Handoff
		again, movesOn bool
		want           SharedGate
	}{
		{"free", nil, &sharedlife.Handoff{}, false, false, SharedGo},
		{"held, named", held, nil, false, false, SharedHeld},
		{"held, autopilot moves on", held, nil, false, true, SharedSkipHeld},
		{"remote unusable", errors.New("push refused"), nil, false, true, SharedUnusable},
		{"already handed off", nil, done, false, false, SharedAlready},
		{"already, autopilot moves on", nil, done, false, true, SharedSkipDone},
		{"already, --again", nil, done, true, false, SharedGo},
		{"unconfirmed: handed off again", nil, dispatched, false, false, SharedGo},
	}
	for _, tc := range tests {
		if got := SharedStep(tc.err, tc.h, tc.again, tc.movesOn); got != tc.want {
			t.Errorf("%s: gate %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestUnlockVerdicts(t *testing.T) {
	local := []struct {
		st    handoff.LockState
		force bool
		want  UnlockVerdict
		word  string
	}{
		{handoff.LockState{}, false, UnlockNone, "stale"},
		{handoff.LockState{Exists: true, Stale: true}, false, UnlockRemove, "stale"},
		{handoff.LockState{Exists: true, Live: true}, false, UnlockLive, "live (forced)"},
		{handoff.LockState{Exists: true, Live: true}, true, UnlockRemove, "live (forced)"},
		{handoff.LockState{Exists: true, Live: true, Reason: "bad json"}, false, UnlockUntrusted, "live (forced), bad json"},
		{handoff.LockState{Exists: true, Live: true, Reason: "bad json"}, true, UnlockRemove, "live (forced), bad json"},
	}
	for i, tc := range local {
		if got := UnlockLocal(tc.st, tc.force); got != tc.want {
			t.Errorf("local %d: %d, want %d", i, got, tc.want)
		}
		if got := UnlockedWord(tc.st); got != tc.word {
			t.Errorf("local %d: word %q, want %q", i, got, tc.word)
		}
	}
	sh := &Shared{View: sharedlife.View{Locks: map[string]sharedlife.Lock{
		"live": {Expires: testNow.Add(time.Minute)}, "expired": {Expires: testNow.Add(-time.Minute)}}}}
	shared := []struct {
		sh    *Shared
		id    string
		force bool
		want  UnlockVerdict
	}{
		{nil, "live", false, UnlockNone},
		{sh, "none", false, UnlockNone},
		{sh, "expired", false, UnlockRemove},
		{sh, "live", false, UnlockLive},
		{sh, "live", true, UnlockRemove},
	}
	for _, tc := range shared {
		if _, got := UnlockShared(tc.sh, tc.id, testNow, tc.force); got != tc.want {
			t.Errorf("shared %s force=%v: %d, want %d", tc.id, tc.force, got, tc.want)
		}
	}
}

func TestLogUnlockAndCleanup(t *testing.T) {
	s := sdcRepo(t)
	st := handoff.LockState{Exists: true, Live: true, Owner: handoff.LockInfo{PID: 7, Host: "h"}}
	if err := LogUnlock(s.Root, s.LogPath(), "workflow:sdc-1", st, true, handoff.LockInfo{PID: 9, User: "me"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(s.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"event":"unlock"`, `"lock":"live"`, `"forced":true`, `"by_pid":9`, `"owner_pid":7`, "live lock removed with --force"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("log lacks %s:\n%s", want, data)
		}
	}
	// a log that cannot be opened is an error, said by the caller as a warning
	bad := filepath.Join(s.Root, "docs/stories/4.2.s.md/log.jsonl")
	if err := LogUnlock(s.Root, bad, "w", st, false, handoff.LockInfo{}); err == nil {
		t.Error("a log under a file was written")
	}
	if err := LogCleanup(s.Root, bad, cleanup.CleanupPlan{}); err == nil {
		t.Error("a cleanup log under a file was written")
	}
}

// cleanupEvents records the kinds of the events a cleanup shows.
type cleanupEvents []CleanupEventKind

func (e *cleanupEvents) show(ev CleanupEvent) { *e = append(*e, ev.Kind) }

func TestRunCleanup(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(t *testing.T, s *loaded.Session, c *Cleanup)
		canPrompt bool
		replies   []prompttest.Reply
		outcome   string
		code      exitcode.Code
		events    []CleanupEventKind
		err       bool // the run ends with an error, not an End
		archived  bool
	}{
		{name: "cleaned with --yes", setup: func(t *testing.T, s *loaded.Session, c *Cleanup) { c.Yes = true },
			outcome: "cleaned", events: []CleanupEventKind{CleanupHeader, CleanupPlanShown, CleanupDone}, archived: true},
		{name: "confirmed at the prompt", canPrompt: true, replies: []prompttest.Reply{{Yes: true}},
			outcome: "cleaned", events: []CleanupEventKind{CleanupHeader, CleanupPlanShown, CleanupDone}, archived: true},
		{name: "declined", canPrompt: true, replies: []prompttest.Reply{{Yes: false}},
			outcome: "declined", code: exitcode.Declined, events: []CleanupEventKind{CleanupHeader, CleanupPlanShown, CleanupCancelled}},
		{name: "Ctrl-C", canPrompt: true, replies: []prompttest.Reply{{Err: modes.ErrInterrupted}},
			outcome: "declined", code: exitcode.Declined, events: []CleanupEventKind{CleanupHeader, CleanupPlanShown, CleanupCancelled}},
		{name: "the prompt fails", canPrompt: true, replies: []prompttest.Reply{{Err: errors.New("tty gone")}},
			err: true, events: []CleanupEventKind{CleanupHeader, CleanupPlanShown}},
		{name: "no terminal", outcome: "error", code: exitcode.NoTTY, events: []CleanupEventKind{CleanupHeader, CleanupPlanShown}},
		{name: "dry run", setup: func(t *testing.T, s *loaded.Session, c *Cleanup) { c.DryRun = true },
			outcome: "planned", events: []CleanupEventKind{CleanupHeader, CleanupPlanShown, CleanupDryRun}},
		{name: "refused while a live resume holds the lock", setup: func(t *testing.T, s *loaded.Session, c *Cleanup) {
			c.Yes = true
			liveLock(t, s.Root, "workflow:sdc-1")
		}, outcome: "locked", code: exitcode.Locked},
		{name: "refused as a whole", setup: func(t *testing.T, s *loaded.Session, c *Cleanup) {
			c.Yes = true
			c.Plan.Refusal = &cleanup.CleanupRefusal{Reason: "shared", Instead: "x"}
		}, outcome: "refused", code: exitcode.Cannot, events: []CleanupEventKind{CleanupHeader, CleanupRefusedShown}},
		{name: "nothing to do", setup: func(t *testing.T, s *loaded.Session, c *Cleanup) {
			c.Yes = true
			c.Plan = cleanup.CleanupPlan{Candidate: c.Plan.Candidate}
		}, outcome: "nothing", events: []CleanupEventKind{CleanupHeader, CleanupPlanShown, CleanupNothing}},
		{name: "a symlinked archive refuses", setup: func(t *testing.T, s *loaded.Session, c *Cleanup) {
			c.Yes = true
			if err := os.Symlink(t.TempDir(), filepath.Join(s.Root, ".orchestrate", "archive")); err != nil {
				t.Fatal(err)
			}
		}, outcome: "refused", code: exitcode.Cannot, events: []CleanupEventKind{CleanupHeader, CleanupPlanShown}},
		{name: "the shared lock refuses", setup: func(t *testing.T, s *loaded.Session, c *Cleanup) {
			c.Yes = true
			c.SharedLock = func() (func(), error) { return nil, errors.New("held elsewhere") }
		}, err: true, events: []CleanupEventKind{CleanupHeader, CleanupPlanShown}},
		{name: "under the shared lock, released", setup: func(t *testing.T, s *loaded.Session, c *Cleanup) {
			c.Yes = true
			c.SharedLock = func() (func(), error) {
				return func() { c.Root = "released" }, nil
			}
		}, outcome: "cleaned", events: []CleanupEventKind{CleanupHeader, CleanupPlanShown, CleanupDone}, archived: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := sdcRepo(t)
			c := candidate(t, s, "workflow:sdc-1")
			var events cleanupEvents
			cl := Cleanup{Root: s.Root, LogPath: s.LogPath(), Plan: cleanup.PlanCleanupAmong(c, s.Res.Candidates, s.Res.Stories, s.Now),
				CanPrompt: tc.canPrompt, Prompter: prompttest.Script(t, tc.replies...), Show: events.show}
			if tc.setup != nil {
				tc.setup(t, s, &cl)
			}
			end, err := RunCleanup(cl)
			if (err != nil) != tc.err {
				t.Fatalf("error %v, want one: %v", err, tc.err)
			}
			if !tc.err && (end.Outcome != tc.outcome || end.Code != int(tc.code)) {
				t.Errorf("end %+v, want %s/%d", end, tc.outcome, tc.code)
			}
			if strings.Join(kinds(events), ",") != strings.Join(kinds(tc.events), ",") {
				t.Errorf("events %v, want %v", events, tc.events)
			}
			_, serr := os.Stat(filepath.Join(s.Root, ".orchestrate/workflows/sdc-1.yaml"))
			if archived := os.IsNotExist(serr); archived != tc.archived {
				t.Errorf("archived = %v, want %v", archived, tc.archived)
			}
			if tc.archived {
				data, _ := os.ReadFile(s.LogPath())
				if !strings.Contains(string(data), `"event":"cleanup"`) {
					t.Errorf("the cleanup is not logged:\n%s", data)
				}
			}
		})
	}
}

func kinds(ks []CleanupEventKind) []string {
	var out []string
	for _, k := range ks {
		out = append(out, string(rune('0'+k)))
	}
	return out
}

func TestCleanupQuestion(t *testing.T) {
	one := cleanup.CleanupPlan{Resets: make([]cleanup.StoryReset, 1)}
	if got := CleanupQuestion(one); got != "Archive the state and reset 1 story?" {
		t.Error(got)
	}
	if got := CleanupQuestion(cleanup.CleanupPlan{}); got != "Archive the state and reset 0 stories?" {
		t.Error(got)
	}
}

const tornSDC = "execution_id: sdc-5.1\nworkflow: story-development-cycle\nstory: \"5.1\"\ncur\n"

const story51 = `# Story 5.1: Export

**Status:** 🚧 Work in progress

## File List
- src/export.go

## Change Log
| Date | Version | Description | Author |
|------|---------|-------------|--------|
| 2026-11-18 | 1.0 | Initial story creation | Bob (SM) |
| 2026-11-19 | 1.1 | Validated, ready for development | Sarah (PO) |
| 2026-11-20 | 1.2 | Export implemented, tests passing | James (Dev Agent) |
`

func TestRebuildCorrupt(t *testing.T) {
	files := map[string]string{
		".orchestrate/workflows/sdc-5.1.yaml": tornSDC,
		"docs/stories/5.1.export.md":          story51,
		"src/export.go":                       "package src\n",
	}
	tests := []struct {
		name      string
		mode      modes.Mode
		asked     bool
		files     map[string]string
		rebuilt   bool
		wantMode  modes.Mode
		autopilot bool // the rebuilt-needs-confirmation finding is added
	}{
		{name: "interactive", mode: modes.ModeInteractive, files: files, rebuilt: true, wantMode: modes.ModeInteractive},
		{name: "autopilot must confirm", mode: modes.ModeAutopilot, asked: true, files: files, rebuilt: true, wantMode: modes.ModeAutopilot, autopilot: true},
		{name: "nothing to rebuild from", mode: modes.ModeInteractive, files: map[string]string{
			".orchestrate/workflows/wf-9.yaml": "execution_id: wf-9\nworkflow: story-development-cycle\nstory: \"9.9\"\nphases_completed: [create, validate\n"},
			rebuilt: false, wantMode: modes.ModeInteractive},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := repo(t, tc.files)
			all := s.Resumable()
			var c workflow.Candidate
			for _, o := range s.Res.Candidates {
				if strings.HasPrefix(o.ID, "workflow:") {
					c = o
				}
			}
			rb, ok := RebuildCorrupt(s, all, c, tc.mode, tc.asked)
			if !ok {
				t.Fatalf("%s (status %s) not handled as corrupt", c.ID, c.Status)
			}
			if rb.Rebuilt != tc.rebuilt || rb.Mode != tc.wantMode {
				t.Fatalf("rebuilt %v mode %s, want %v %s", rb.Rebuilt, rb.Mode, tc.rebuilt, tc.wantMode)
			}
			if rb.Path != c.Source.Path || rb.Line == 0 || rb.Reason == "" {
				t.Errorf("corruption %+v", rb)
			}
			found := false
			for _, f := range rb.Candidate.Findings {
				found = found || f.Code == "rebuilt-needs-confirmation"
			}
			if found != tc.autopilot {
				t.Errorf("rebuilt-needs-confirmation = %v, want %v", found, tc.autopilot)
			}
			if !tc.rebuilt {
				worded := false
				for _, f := range rb.Candidate.Findings {
					worded = worded || strings.Contains(f.Message, "is corrupt and could not be rebuilt")
				}
				if !worded {
					t.Errorf("the finding does not name the corruption: %v", rb.Candidate.Findings)
				}
				return
			}
			if rb.Next == "" || len(rb.Completed) == 0 {
				t.Errorf("progress: completed %v next %q", rb.Completed, rb.Next)
			}
		})
	}
	s := sdcRepo(t)
	if _, ok := RebuildCorrupt(s, s.Resumable(), candidate(t, s, "workflow:sdc-1"), modes.ModeInteractive, false); ok {
		t.Error("a readable state is not rebuilt")
	}
}

func TestProgressOfAnEpic(t *testing.T) {
	c := workflow.Candidate{Epic: &workflow.Epic{Waves: []workflow.Wave{
		{Number: 1, Stories: []workflow.StoryRef{{ID: "7.1", Status: "done"}, {ID: "7.2"}}},
		{Number: 2, Stories: []workflow.StoryRef{{ID: "7.3"}}},
	}}}
	done, next := progress(c)
	if strings.Join(done, ",") != "story 7.1" || next != "story 7.2 (wave 1)" {
		t.Errorf("done %v next %q", done, next)
	}
	if _, next := progress(workflow.Candidate{}); next != "-" {
		t.Errorf("nothing open: next %q", next)
	}
}

func TestSkipHandedOff(t *testing.T) {
	auto := strings.Replace(sdcState, "mode: interactive", "mode: autopilot", 1)
	s := repo(t, map[string]string{".orchestrate/workflows/sdc-1.yaml": auto, "docs/stories/4.2.s.md": story42})
	c := candidate(t, s, "workflow:sdc-1")
	recent := map[string]handoff.Last{c.ID: {State: handoff.StateHandedOff, At: testNow.Add(-time.Minute), Agent: "dev"}}
	// the state was updated at 11:30: a handoff at 11:40 is its last one
	old := map[string]handoff.Last{c.ID: {State: handoff.StateHandedOff, At: testNow.Add(-20 * time.Minute)}}
	s.Cfg.Resume.RehandoffAfter = 10 * time.Minute

	f := SkipHandedOff(s, []workflow.Candidate{c}, "", func() map[string]handoff.Last { return recent })
	if len(f.Kept) != 0 || len(f.Skipped) != 1 || f.Err == nil {
		t.Errorf("recent: %+v", f)
	}
	f = SkipHandedOff(s, []workflow.Candidate{c}, modes.ModeInteractive, func() map[string]handoff.Last { t.Fatal("history read"); return nil })
	if len(f.Kept) != 1 {
		t.Errorf("interactive keeps everything: %+v", f)
	}
	f = SkipHandedOffShared(s, []workflow.Candidate{c}, modes.ModeAutopilot, func() map[string]handoff.Last { return old }, nil)
	if len(f.Kept) != 1 || !f.Again[c.ID] {
		t.Errorf("handed off long ago: kept for a re-handoff: %+v", f)
	}
	held := &Shared{Remote: "origin", View: sharedlife.View{Locks: map[string]sharedlife.Lock{c.ID: {Expires: testNow.Add(time.Hour)}}}}
	f = SkipHandedOffShared(s, []workflow.Candidate{c}, modes.ModeAutopilot, func() map[string]handoff.Last { return nil }, held)
	if len(f.Skipped) != 1 || !strings.Contains(f.Skipped[0].Why, "shared lifecycle") {
		t.Errorf("held remotely: %+v", f)
	}
	if _, err := History(s); err != nil {
		t.Errorf("History of a repository without a log: %v", err)
	}
}

func TestRequestRecordsTheConfirmation(t *testing.T) {
	s := sdcRepo(t)
	c := candidate(t, s, "workflow:sdc-1")
	h := Handoff{Session: s, Candidate: c, Mode: modes.ModeInteractive}
	h.Plan.Decision, h.Plan.Reason = modes.DecisionAsk, "clean"
	if req := Request(h); req.Decision != modes.DecisionResume || req.Reason != "confirmed by the user: clean" {
		t.Errorf("asked: %s %q", req.Decision, req.Reason)
	}
	h.Approve = true
	if req := Request(h); req.Reason != "approved with --approve: clean" {
		t.Errorf("approved: %q", req.Reason)
	}
	h.Plan.Decision = modes.DecisionResume
	if req := Request(h); req.Reason != "clean" || req.Root != s.Root || req.LogPath != s.LogPath() {
		t.Errorf("resume: %+v", req)
	}
	stale := &handoff.StaleLockError{Owner: handoff.LockInfo{PID: 3, Host: "h"}}
	if _, ask := StaleTakeover(stale, c.ID, true, modes.ModeAutopilot); ask {
		t.Error("autopilot never asks to take a lock over")
	}
	if _, ask := StaleTakeover(errors.New("x"), c.ID, true, modes.ModeInteractive); ask {
		t.Error("only a stale lock is taken over")
	}
}
