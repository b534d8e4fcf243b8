package handoff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/atomicfile"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

const statePath = ".orchestrate/workflows/sdc-1.yaml"

const stateYAML = `execution_id: sdc-1
workflow: story-development-cycle
updated_at: "2025-06-03T06:15:30Z"
current_phase: 3
status: interrupted
story: "4.2"
context:
  api_token: tok-very-secret-1
  note: "password=hunter2"
`

// fixture is a repository with our workflow state (and an older .bak) and a
// request resuming it.
func fixture(t *testing.T) (string, Request) {
	t.Helper()
	root := t.TempDir()
	full := filepath.Join(root, filepath.FromSlash(statePath))
	os.MkdirAll(filepath.Dir(full), 0o755)
	if err := os.WriteFile(full, []byte(stateYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full+".bak", []byte("status: older\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	withAlive(t, os.Getpid())
	c := workflow.Candidate{
		ID: "workflow:sdc-1", Type: workflow.TypeWorkflow, Key: "sdc-1",
		Source:   workflow.SourceRef{Kind: workflow.KindWorkflowState, Path: statePath, Priority: 3},
		Workflow: workflow.DefSDC, Stories: []string{"4.2"}, Status: "interrupted",
		UpdatedAt: t0.Add(-2 * time.Hour),
		Position:  workflow.PhasePosition(3, 4, "Implementation"),
		Phases: []workflow.Phase{
			{ID: "create", Name: "Create", Agent: "sm", Status: workflow.PhaseCompleted, Outputs: []string{"docs/stories/4.2.md"}},
		},
		AISessionID: "sess-42",
		Context: map[string]any{
			"api_token": "tok-very-secret-1",
			"note":      "password=hunter2",
			"gh":        "ghp_abcdefghijklmnopqrstuvwxyz012345",
			"nested":    map[string]any{"credentials": map[string]any{"user": "bo", "pin": 1234}},
		},
	}
	p := plan.Plan{
		WorkflowType: "workflow", StateSource: statePath,
		ResumeFrom: plan.ResumeFrom{Phase: "develop", Agent: "dev", Inputs: []string{"docs/stories/4.2.md"}},
		Completed: []workflow.Phase{
			{ID: "create", Name: "Create", Agent: "sm", Status: workflow.PhaseCompleted, Outputs: []string{"docs/stories/4.2.md"}},
			{ID: "validate", Name: "Validate", Agent: "po", Status: workflow.PhaseCompleted},
		},
		RemainingPhases: []string{"develop", "review"}, Decision: "resume", Reason: "clean and fresh",
		StateAge: 2 * time.Hour,
	}
	req := Request{
		Root: root, Candidate: c, Plan: p, Validation: "clean",
		Mode: "autopilot", Decision: "resume", Reason: "clean and fresh",
		Now:     t0,
		Lock:    LockInfo{PID: os.Getpid(), Host: "test-host", User: "tester", StartedAt: t0, Command: "orchestrate resume"},
		LogPath: filepath.Join(root, ".orchestrate", "log.jsonl"),
		Env:     []string{"PATH=" + os.Getenv("PATH")},
	}
	return root, req
}

// snapshot maps every regular file under root (but the log) to its content.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == ".orchestrate/log.jsonl" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed:\n%s\n---\n%s", k, v, after[k])
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s was left behind", k)
		}
	}
}

// events reads the orchestration log.
func events(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("log line is not JSON: %s", sc.Text())
		}
		if ev["event"] == EventDispatched || ev["event"] == EventStarted {
			continue // the marker before the command: TestExecuteDispatchMarker checks it
		}
		out = append(out, ev)
	}
	return out
}

func TestExecuteHandsOff(t *testing.T) {
	root, req := fixture(t)
	counter := filepath.Join(root, "runs.txt")
	req.Command = `test -f .orchestrate/locks/workflow_sdc-1.lock && echo "$ORCHESTRATE_HANDOFF {{.Agent}} {{.WorkflowID}} {{.AISessionID}}" >> runs.txt`
	var out bytes.Buffer
	req.Stdout = &out
	res, err := Execute(req)
	if err != nil {
		t.Fatal(err)
	}
	wantEnv := filepath.Join(root, ".orchestrate", "handoffs", "workflow_sdc-1-1.json")
	if res.EnvelopePath != wantEnv || res.Agent != "dev" || res.Phase != "develop" || res.AlreadyHandedOff || res.ExitStatus != 0 || len(res.IdempotencyKey) != 64 {
		t.Errorf("result = %+v", res)
	}
	runs, _ := os.ReadFile(counter)
	if string(runs) != wantEnv+" dev workflow:sdc-1 sess-42\n" {
		t.Errorf("the command saw %q (it must run while holding the lock)", runs)
	}
	if !strings.HasPrefix(res.Command, "test -f") {
		t.Errorf("command = %q", res.Command)
	}

	// the state: only the three fields changed, the .bak is the previous version
	full := filepath.Join(root, filepath.FromSlash(statePath))
	after, _ := os.ReadFile(full)
	removed, added := lineDiff(stateYAML, string(after))
	sameLines(t, "removed", removed, []string{"status: interrupted\n"})
	sameLines(t, "added", added, []string{"resumed_at: \"2025-06-03T08:15:30Z\"\n", "resume_count: 1\n", "status: active\n"})
	if bak, _ := os.ReadFile(full + ".bak"); string(bak) != stateYAML {
		t.Error(".bak is not the previous state")
	}
	// the lock is gone
	if _, err := os.Lstat(LockPath(root, "workflow:sdc-1")); !errors.Is(err, os.ErrNotExist) {
		t.Error("lock left behind")
	}

	// the envelope
	fi, err := os.Stat(wantEnv)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("envelope: %v %v", fi, err)
	}
	raw, _ := os.ReadFile(wantEnv)
	var env map[string]any
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	get := func(path ...string) any {
		var v any = env
		for _, p := range path {
			m, _ := v.(map[string]any)
			v = m[p]
		}
		return v
	}
	for path, want := range map[string]any{
		"schema":                 EnvelopeSchema,
		"created_at":             "2025-06-03T08:15:30Z",
		"workflow.id":            "workflow:sdc-1",
		"workflow.type":          "workflow",
		"state_source":           statePath,
		"candidate.position":     "2/4 done, at Implementation",
		"candidate.source.kind":  "workflow-state",
		"candidate.status":       "interrupted",
		"plan.resume_from.phase": "develop",
		"mode":                   "autopilot",
		"forced":                 false,
		"restart":                false,
		"context.ai_session_id":  "sess-42",
		"next.agent":             "dev",
		"next.phase":             "develop",
		"idempotency_key":        res.IdempotencyKey,
	} {
		if got := get(strings.Split(path, ".")...); got != want {
			t.Errorf("envelope %s = %v, want %v", path, got, want)
		}
	}
	if phases, _ := get("context", "completed_phases").([]any); len(phases) != 2 {
		t.Errorf("completed phases = %v", phases)
	}
	if bc, ok := get("context", "breadcrumbs").([]any); !ok || len(bc) != 0 {
		t.Errorf("breadcrumbs = %v", get("context", "breadcrumbs"))
	}
	// secrets never reach the envelope or the log
	logRaw, _ := os.ReadFile(req.LogPath)
	for _, secret := range []string{"tok-very-secret-1", "hunter2", "ghp_abcdefghijklmnopqrstuvwxyz012345", "1234"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("envelope holds %q:\n%s", secret, raw)
		}
		if strings.Contains(string(logRaw), secret) {
			t.Errorf("log holds %q", secret)
		}
	}
	if get("context", "saved", "nested", "credentials", "user") != "[REDACTED]" || get("context", "saved", "note") != "password=[REDACTED]" {
		t.Errorf("saved context = %v", get("context", "saved"))
	}

	// the log event
	evs := events(t, req.LogPath)
	if len(evs) != 1 {
		t.Fatalf("log events = %v", evs)
	}
	ev := evs[0]
	for k, want := range map[string]any{
		"event": EventHandedOff, "workflow": "workflow:sdc-1", "type": "workflow", "state_source": statePath,
		"resume_point": "develop", "interruption_seconds": float64(7200), "interruption": "2 hours",
		"validation": "clean", "mode": "autopilot", "decision": "resume", "reason": "clean and fresh",
		"forced": false, "envelope": ".orchestrate/handoffs/workflow_sdc-1-1.json",
		"idempotency_key": res.IdempotencyKey, "exit_status": float64(0), "time": "2025-06-03T08:15:30Z",
	} {
		if ev[k] != want {
			t.Errorf("log %s = %v, want %v", k, ev[k], want)
		}
	}
	if !strings.HasPrefix(ev["command"].(string), "test -f") {
		t.Errorf("log command = %v", ev["command"])
	}

	// running the same resume again: already handed off, nothing run or written
	before := snapshot(t, root)
	res2, err := Execute(req)
	if err != nil {
		t.Fatal(err)
	}
	if !res2.AlreadyHandedOff || res2.EnvelopePath != wantEnv || res2.IdempotencyKey != res.IdempotencyKey {
		t.Errorf("second result = %+v", res2)
	}
	sameSnapshot(t, before, snapshot(t, root))
	if evs := events(t, req.LogPath); len(evs) != 2 || evs[1]["event"] != EventSkipped {
		t.Errorf("log events = %v", evs)
	}

	// the agent moves the state forward: a new resume, a new key, envelope 2
	moved := strings.Replace(string(after), `current_phase: 3`, `current_phase: 4`, 1)
	os.WriteFile(full, []byte(moved), 0o644)
	req.Plan.ResumeFrom.Phase = "review"
	res3, err := Execute(req)
	if err != nil {
		t.Fatal(err)
	}
	if res3.AlreadyHandedOff || res3.IdempotencyKey == res.IdempotencyKey || filepath.Base(res3.EnvelopePath) != "workflow_sdc-1-2.json" {
		t.Errorf("third result = %+v", res3)
	}
	if got, _ := os.ReadFile(full); !strings.Contains(string(got), "resume_count: 2\n") {
		t.Errorf("resume_count not incremented:\n%s", got)
	}
}

func TestExecuteFailingCommandRollsBack(t *testing.T) {
	for _, withBak := range []bool{true, false} {
		root, req := fixture(t)
		if !withBak {
			os.Remove(filepath.Join(root, filepath.FromSlash(statePath)) + ".bak")
		}
		// an earlier, completed handoff of another resume stays untouched
		os.MkdirAll(HandoffsDir(root), 0o700)
		os.WriteFile(filepath.Join(HandoffsDir(root), "workflow_sdc-1-1.json"), []byte(`{"schema":"orchestrate-handoff/v1","idempotency_key":"old"}`), 0o600)
		before := snapshot(t, root)
		req.Command = "echo started > started.txt; rm started.txt; exit 3"
		res, err := Execute(req)
		var ce *CommandError
		if !errors.As(err, &ce) || ce.Status != 3 || res.ExitStatus != 3 {
			t.Fatalf("err = %v, res = %+v; want *CommandError 3", err, res)
		}
		sameSnapshot(t, before, snapshot(t, root))
		if _, err := os.Lstat(LockPath(root, "workflow:sdc-1")); !errors.Is(err, os.ErrNotExist) {
			t.Error("lock left behind")
		}
		evs := events(t, req.LogPath)
		if len(evs) != 1 || evs[0]["event"] != EventFailed || evs[0]["exit_status"] != float64(3) || evs[0]["error"] == nil {
			t.Errorf("log = %v", evs)
		}
	}
}

func TestExecuteAtomicFailureDuringStateWrite(t *testing.T) {
	root, req := fixture(t)
	before := snapshot(t, root)
	renames := 0
	atomicfile.Failpoint = func(step string) error {
		if step == "rename" {
			renames++
			if renames == 2 { // 1: the .bak, 2: the state file
				return errors.New("power cut")
			}
		}
		return nil
	}
	defer func() { atomicfile.Failpoint = nil }()
	req.Command = "touch ran.txt"
	_, err := Execute(req)
	if err == nil || !strings.Contains(err.Error(), "power cut") {
		t.Fatalf("err = %v", err)
	}
	atomicfile.Failpoint = nil
	sameSnapshot(t, before, snapshot(t, root))
	if evs := events(t, req.LogPath); len(evs) != 1 || evs[0]["event"] != EventFailed {
		t.Errorf("log = %v", evs)
	}
}

func TestExecuteFailpoints(t *testing.T) {
	for _, step := range []string{"lock", "state", "envelope", "command", "log"} {
		t.Run(step, func(t *testing.T) {
			root, req := fixture(t)
			before := snapshot(t, root)
			req.Command = "true"
			req.Failpoint = func(s string) error {
				if s == step {
					return errors.New("injected")
				}
				return nil
			}
			if _, err := Execute(req); err == nil || !strings.Contains(err.Error(), "injected") {
				t.Fatalf("err = %v", err)
			}
			sameSnapshot(t, before, snapshot(t, root))
			evs := events(t, req.LogPath)
			if len(evs) == 0 || evs[len(evs)-1]["event"] != EventFailed {
				t.Errorf("log = %v", evs)
			}
			// and the resume can be done afterwards
			req.Failpoint = nil
			if res, err := Execute(req); err != nil || res.AlreadyHandedOff {
				t.Errorf("retry: %+v %v", res, err)
			}
		})
	}
}

func TestExecuteLocks(t *testing.T) {
	root, req := fixture(t)
	withAlive(t, os.Getpid(), 4242)
	writeLock(t, root, "workflow:sdc-1", LockInfo{PID: 4242, Host: "test-host", StartedAt: t0}, 0o600)
	before := snapshot(t, root)
	var le *LockedError
	if _, err := Execute(req); !errors.As(err, &le) {
		t.Fatalf("live lock: err = %v", err)
	}
	sameSnapshot(t, before, snapshot(t, root))

	withAlive(t, os.Getpid()) // 4242 died
	var se *StaleLockError
	if _, err := Execute(req); !errors.As(err, &se) || se.Owner.PID != 4242 {
		t.Fatalf("stale lock: err = %v", err)
	}
	sameSnapshot(t, before, snapshot(t, root))
	if evs := events(t, req.LogPath); len(evs) != 0 {
		t.Errorf("a lock failure logs nothing: %v", evs)
	}
	req.TakeOverStale = true
	res, err := Execute(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.TookOverStale == nil || res.TookOverStale.PID != 4242 {
		t.Errorf("TookOverStale = %+v", res.TookOverStale)
	}
	if _, ok, _ := ReadLock(root, "workflow:sdc-1"); ok {
		t.Error("lock left behind")
	}
}

// A resume killed while its orchestrator ran may have handed the work over
// already: the next attempt must not hand it off a second time (the
// dispatch marker in the log says so), even when it takes over the lock.
func TestExecuteAfterCrashIsNotHandedOffAgain(t *testing.T) {
	root, req := fixture(t)
	req.Failpoint = func(s string) error {
		if s == "command" {
			panic("crash")
		}
		return nil
	}
	func() {
		defer func() { _ = recover() }()
		_, _ = Execute(req)
	}()
	req.Failpoint = nil
	req.TakeOverStale = true
	withAlive(t) // the crashed process is gone
	res, err := Execute(req)
	if err != nil {
		t.Fatal(err)
	}
	if !res.AlreadyHandedOff || filepath.Base(res.EnvelopePath) != "workflow_sdc-1-1.json" {
		t.Errorf("result = %+v", res)
	}
	got, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(statePath)))
	if !strings.Contains(string(got), "resume_count: 1") {
		t.Errorf("state marked twice:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(root, ".orchestrate", "handoffs", "workflow_sdc-1-2.json")); err == nil {
		t.Error("a second envelope was written")
	}
}

// The dispatch marker is logged before the command runs, and a rolled-back
// (failed) resume may be retried.
func TestExecuteDispatchMarker(t *testing.T) {
	_, req := fixture(t)
	req.Command = "exit 3"
	if _, err := Execute(req); err == nil {
		t.Fatal("want the command's failure")
	}
	data, _ := os.ReadFile(req.LogPath)
	if !bytes.Contains(data, []byte(EventDispatched)) || !bytes.Contains(data, []byte(EventFailed)) {
		t.Fatalf("log:\n%s", data)
	}
	if loggedHandedOff(req.Root, req.LogPath, mustKey(t, data)) {
		t.Error("a failed resume counts as handed off")
	}
	req.Command = ""
	res, err := Execute(req)
	if err != nil || res.AlreadyHandedOff {
		t.Fatalf("retry after a failure: %+v, %v", res, err)
	}
}

func mustKey(t *testing.T, log []byte) string {
	t.Helper()
	var ev struct {
		Key string `json:"idempotency_key"`
	}
	line := bytes.SplitN(log, []byte("\n"), 2)[0]
	if err := json.Unmarshal(line, &ev); err != nil || ev.Key == "" {
		t.Fatalf("no key in %s", line)
	}
	return ev.Key
}

func TestExecuteKeepsStateTheOrchestratorChanged(t *testing.T) {
	root, req := fixture(t)
	full := filepath.Join(root, filepath.FromSlash(statePath))
	req.Command = "printf 'status: paused\\n' > " + statePath + "; exit 1"
	_, err := Execute(req)
	var ce *CommandError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "left as it is") {
		t.Fatalf("err = %v", err)
	}
	if got, _ := os.ReadFile(full); string(got) != "status: paused\n" {
		t.Errorf("the orchestrator's state was clobbered: %q", got)
	}
}

func TestExecuteStoryIsNeverEdited(t *testing.T) {
	root, req := fixture(t)
	story := "docs/stories/4.2.login.md"
	os.MkdirAll(filepath.Join(root, "docs/stories"), 0o755)
	os.WriteFile(filepath.Join(root, story), []byte("# Story 4.2: Login\n\n**Status:** InProgress\n"), 0o644)
	req.Candidate.ID, req.Candidate.Type = "sdc:4.2", workflow.TypeSDC
	req.Candidate.Source = workflow.SourceRef{Kind: workflow.KindStory, Path: story, Priority: 4}
	before := snapshot(t, root)
	res, err := Execute(req)
	if err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, root)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed", k)
		}
	}
	if _, ok := after[".orchestrate/handoffs/sdc_4.2-1.json"]; !ok || res.EnvelopePath == "" {
		t.Errorf("no envelope: %v", after)
	}
	// a spec pipeline folder is not edited either
	os.MkdirAll(filepath.Join(root, "docs/specs/login"), 0o755)
	os.WriteFile(filepath.Join(root, "docs/specs/login/requirements.json"), []byte(`{"a":1}`), 0o644)
	req.Candidate.ID, req.Candidate.Type = "spec:login", workflow.TypeSpec
	req.Candidate.Source = workflow.SourceRef{Kind: workflow.KindSpec, Path: "docs/specs/login", Priority: 6}
	if _, err := Execute(req); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "docs/specs/login/requirements.json")); string(got) != `{"a":1}` {
		t.Error("spec artifact changed")
	}
}

func TestExecuteProgressNotPatchable(t *testing.T) {
	root, req := fixture(t)
	// markdown that is not in the progress-file format cannot be marked resumed
	os.WriteFile(filepath.Join(root, "progress.md"), []byte("# Notes\n\nprose\n"), 0o644)
	req.Candidate.ID, req.Candidate.Type = "progress:x", workflow.TypeProgress
	req.Candidate.Source = workflow.SourceRef{Kind: workflow.KindProgress, Path: "progress.md", Priority: 3}
	before := snapshot(t, root)
	if _, err := Execute(req); !errors.Is(err, ErrNotPatchable) {
		t.Fatalf("err = %v", err)
	}
	sameSnapshot(t, before, snapshot(t, root))
}

func TestRedactJSON(t *testing.T) {
	in := `{"a":"token=abc123","password":"p","apiKey":42,"list":["sk-abcdefghijklmnopqrstuvwxyz"],"ok":"fine","n":1.5,"b":true,"z":null,"idempotency_key":"k"}`
	out, err := redactJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":"token=[REDACTED]","password":"[REDACTED]","apiKey":"[REDACTED]","list":["[REDACTED]"],"ok":"fine","n":1.5,"b":true,"z":null,"idempotency_key":"k"}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

func TestNextEnvelopePath(t *testing.T) {
	root := t.TempDir()
	dir := HandoffsDir(root)
	os.MkdirAll(dir, 0o700)
	p, _ := nextEnvelopePath(root, "sdc:4.2")
	if filepath.Base(p) != "sdc_4.2-1.json" {
		t.Errorf("first = %s", p)
	}
	for _, n := range []string{"sdc_4.2-1.json", "sdc_4.2-3.json", "sdc_4.2-1-1.json", "sdc_4.21-9.json"} {
		os.WriteFile(filepath.Join(dir, n), []byte("{}"), 0o600)
	}
	p, _ = nextEnvelopePath(root, "sdc:4.2")
	if filepath.Base(p) != "sdc_4.2-4.json" {
		t.Errorf("next = %s", p)
	}
	if _, ok := FindByKey(root, "nope"); ok {
		t.Error("FindByKey found a key that is not there")
	}
}
