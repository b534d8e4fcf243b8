package handoff

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover"
	"github.com/orchestrate-dev/orchestrate/discover/worksession"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/plan"
)

const fakeAgent = `case "$2" in
ai-session-r1-xyz789) echo "Error: No conversation found with session ID: $2" >&2; exit 1 ;;
"") echo "no id" >&2; exit 2 ;;
*) echo "resumed $2"; exit 0 ;;
esac
`

// the fallback checks the rebuilt context reached the envelope, then
// announces its session.
const fakeFallback = `grep -q 'Found 3 main functions' "$ORCHESTRATE_HANDOFF" || { echo "no breadcrumbs in the envelope" >&2; exit 9; }
grep -q '"previous_ai_session_id": "ai-session-r1-xyz789"' "$1" || { echo "no previous id" >&2; exit 8; }
echo "Started. session_id: new-123"
`

// parentPath is the parent work session's file.
const parentPath = "docs/maestro/work_sessions/wsession-parent-abc123.json"

const parentWithCrumbs = `{
  "id": "wsession-parent-abc123",
  "task_id": "task-001",
  "ai_session_id": "ai-session-r1-xyz789",
  "status": "paused",
  "created_at": "2025-06-03T06:00:00Z",
  "breadcrumbs": [
    {"id": "bc-001", "timestamp": "2025-06-03T06:10:00Z", "message": "Found 3 main functions in component Y", "ai_session_id": "ai-session-r1-xyz789"}
  ],
  "subtasks": [
    {"wsession_id": "wsession-subtask-def456", "task_id": "task-002", "summary": "Y validates input", "status": "completed", "closed_at": "2025-06-03T06:20:00Z"}
  ]
}
`

// agentSessionFixture is a paused parent work session (candidate from discover) and a
// request resuming its AI session.
func agentSessionFixture(t *testing.T) (string, Request) {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		parentPath:      parentWithCrumbs,
		"fake-agent.sh": fakeAgent,
		"fallback.sh":   fakeFallback,
	}
	for p, s := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	withAlive(t, os.Getpid())
	r := &discover.Repo{Root: root, Config: config.Default()}
	cs, _ := worksession.WorkSessionSource.Scan(r)
	if len(cs) != 1 {
		t.Fatalf("%d candidates", len(cs))
	}
	cfg := config.Default().Handoff
	req := Request{
		Root: root, Candidate: cs[0],
		Plan:       plan.Plan{WorkflowType: "work-session", StateSource: parentPath, ResumeFrom: plan.ResumeFrom{Phase: "continue", Agent: "master"}, Decision: "resume"},
		Validation: "clean", Mode: "autopilot", Decision: "resume", Reason: "clean",
		Now:                  t0,
		Lock:                 LockInfo{PID: os.Getpid(), Host: "test-host", User: "tester", StartedAt: t0, Command: "orchestrate resume"},
		LogPath:              filepath.Join(root, ".orchestrate", "log.jsonl"),
		Env:                  []string{"PATH=" + os.Getenv("PATH")},
		Command:              "sh fake-agent.sh --resume {{.AISessionID}}",
		FallbackCommand:      "sh fallback.sh {{.EnvelopePath}}",
		SessionGonePattern:   cfg.SessionGonePattern,
		SessionGoneExitCodes: cfg.SessionGoneExitCodes,
	}
	return root, req
}

func logEvents(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, _ := os.ReadFile(path)
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		if m["event"] == EventDispatched || m["event"] == EventStarted {
			continue
		}
		out = append(out, m)
	}
	return out
}

func eventNames(evs []map[string]any) string {
	var n []string
	for _, e := range evs {
		n = append(n, e["event"].(string))
	}
	return strings.Join(n, ",")
}

// executeUnchanged runs Execute(req), checks that it left every file under
// root as it was, and returns its error.
func executeUnchanged(t *testing.T, root string, req Request) error {
	t.Helper()
	before := snapshot(t, root)
	_, err := Execute(req)
	sameSnapshot(t, before, snapshot(t, root))
	return err
}

func TestAgentSessionFallback(t *testing.T) {
	root, req := agentSessionFixture(t)
	var out, errb bytes.Buffer
	req.Stdout, req.Stderr = &out, &errb
	res, err := Execute(req)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if !strings.Contains(errb.String(), "No conversation found") || !strings.Contains(out.String(), "session_id: new-123") {
		t.Errorf("output not streamed:\n%s\n%s", out.String(), errb.String())
	}
	if res.Command != "sh fallback.sh "+shellQuote(res.EnvelopePath) {
		t.Errorf("command %q", res.Command)
	}
	data, _ := os.ReadFile(filepath.Join(root, parentPath))
	ws, _ := worksession.ParseWorkSession(parentPath, data)
	if ws.AISessionID != "new-123" || ws.Status != "active" || len(ws.Breadcrumbs) != 1 || len(ws.Subtasks) != 1 {
		t.Errorf("work session: %+v", ws)
	}
	if !strings.Contains(string(data), `"resume_count": 1`) {
		t.Errorf("not marked resumed:\n%s", data)
	}
	evs := logEvents(t, req.LogPath)
	if got := eventNames(evs); got != "resume.ai_session_gone,resume.ai_session_new,resume.handed_off" {
		t.Fatalf("events %s", got)
	}
	if evs[0]["ai_session_id"] != "ai-session-r1-xyz789" || evs[0]["exit_status"] != float64(1) {
		t.Errorf("gone event %v", evs[0])
	}
	if evs[1]["ai_session_id"] != "new-123" || evs[1]["previous_ai_session_id"] != "ai-session-r1-xyz789" || evs[1]["recorded_in"] != parentPath {
		t.Errorf("new event %v", evs[1])
	}
	var env Envelope
	raw, _ := os.ReadFile(res.EnvelopePath)
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	if env.Context.AISessionID != "new-123" || env.Context.PreviousAISessionID != "ai-session-r1-xyz789" {
		t.Errorf("envelope ids %q %q", env.Context.AISessionID, env.Context.PreviousAISessionID)
	}
	for _, frag := range []string{"Work session wsession-parent-abc123, task task-001.", "--cookie wsession-parent-abc123", "bc-001 2025-06-03T06:10:00Z: Found 3 main functions", "task-002: Y validates input"} {
		if !strings.Contains(env.Context.Rebuilt, frag) {
			t.Errorf("rebuilt context lacks %q:\n%s", frag, env.Context.Rebuilt)
		}
	}
	if len(env.Context.Breadcrumbs) != 1 || len(env.Context.SubtaskSummaries) != 1 {
		t.Errorf("envelope context %+v", env.Context)
	}
}

func TestAgentSessionGoneWithoutFallback(t *testing.T) {
	root, req := agentSessionFixture(t)
	req.FallbackCommand = ""
	var errb bytes.Buffer
	req.Stderr = &errb
	err := executeUnchanged(t, root, req)
	var ce *CommandError
	if !errors.As(err, &ce) || ce.Status != 1 {
		t.Fatalf("err = %v", err)
	}
	if got := eventNames(logEvents(t, req.LogPath)); got != "resume.ai_session_gone,resume.failed" {
		t.Errorf("events %s", got)
	}
	if !strings.Contains(errb.String(), "the failure stands") {
		t.Errorf("stderr %s", errb.String())
	}
}

func TestAgentSessionFallbackFails(t *testing.T) {
	root, req := agentSessionFixture(t)
	req.FallbackCommand = "sh -c 'exit 4'"
	err := executeUnchanged(t, root, req)
	var ce *CommandError
	if !errors.As(err, &ce) || ce.Status != 4 || ce.Command != "sh -c 'exit 4'" {
		t.Fatalf("err = %v", err)
	}
}

func TestAgentSessionOtherFailureStands(t *testing.T) {
	root, req := agentSessionFixture(t)
	req.Command = "sh -c 'echo boom >&2; exit 1' {{.AISessionID}}"
	err := executeUnchanged(t, root, req)
	var ce *CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v", err)
	}
	if got := eventNames(logEvents(t, req.LogPath)); got != "resume.failed" {
		t.Errorf("events %s", got)
	}
}

func TestAgentSessionGoneByExitCode(t *testing.T) {
	root, req := agentSessionFixture(t)
	req.Command = "sh -c 'exit 3' x {{.AISessionID}}"
	req.SessionGonePattern = ""
	req.SessionGoneExitCodes = []int{3}
	req.FallbackCommand = "echo 'new session id=abc_9'"
	if _, err := Execute(req); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(root, parentPath))
	if !strings.Contains(string(data), `"ai_session_id": "abc_9"`) {
		t.Errorf("not recorded:\n%s", data)
	}
	// both parts configured: both must hold
	root, req = agentSessionFixture(t)
	req.Command = "sh -c 'echo No conversation found; exit 1' x {{.AISessionID}}"
	req.SessionGoneExitCodes = []int{3}
	if err := executeUnchanged(t, root, req); err == nil {
		t.Fatal("exit 1 is not listed: want the failure")
	}
}

func TestAgentSessionNoIDInFallbackOutput(t *testing.T) {
	root, req := agentSessionFixture(t)
	req.FallbackCommand = "echo started"
	var errb bytes.Buffer
	req.Stderr = &errb
	if _, err := Execute(req); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(root, parentPath))
	if !strings.Contains(string(data), `"ai_session_id": "ai-session-r1-xyz789"`) {
		t.Errorf("id changed:\n%s", data)
	}
	if !strings.Contains(errb.String(), "names no session id") {
		t.Errorf("stderr %s", errb.String())
	}
}

func TestAgentSessionLaterFailureRollsBack(t *testing.T) {
	root, req := agentSessionFixture(t)
	req.Failpoint = func(step string) error {
		if step == "log" {
			return errors.New("boom")
		}
		return nil
	}
	if err := executeUnchanged(t, root, req); err == nil {
		t.Fatal("want an error")
	}
}

func TestAgentSessionBadPattern(t *testing.T) {
	_, req := agentSessionFixture(t)
	req.SessionGonePattern = "("
	if _, err := Execute(req); err == nil || !strings.Contains(err.Error(), "session_gone_pattern") {
		t.Fatalf("err = %v", err)
	}
}

func TestNewSessionID(t *testing.T) {
	re := regexp.MustCompile(DefaultSessionIDPattern)
	for out, want := range map[string]string{
		"session_id: new-123": "new-123",
		"Session ID=abc":      "abc",
		"resuming session id old-1 failed; session-id new2": "new2",
		"nothing here":       "",
		`{"session_id":"x"}`: "",
	} {
		if got := newSessionID(re, out, "old-1"); got != want {
			t.Errorf("%q: got %q, want %q", out, got, want)
		}
	}
}

func TestCaptureKeepsHeadAndTail(t *testing.T) {
	c := &capture{}
	c.add([]byte("session_id: first\n"))
	c.add(bytes.Repeat([]byte("x"), 3*captureMax))
	c.add([]byte("\nlast line"))
	s := c.String()
	if !strings.HasPrefix(s, "session_id: first") || !strings.HasSuffix(s, "last line") || len(s) > 2*captureMax+1 {
		t.Errorf("len %d", len(s))
	}
}
