package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/app/mcp"
	"github.com/orchestrate-dev/orchestrate/handoff"
)

// mcpSystem is the System of the MCP tests: no terminal, a pinned clock,
// env only, this process's pid (a claim's lock is live while it runs).
func mcpSystem(dir string, env map[string]string, stderr *bytes.Buffer) System {
	return System{
		IO:     IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: stderr},
		Getenv: func(k string) string { return env[k] },
		Now:    func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) },
		Getwd:  func() (string, error) { return dir, nil },
		Pid:    os.Getpid(),
	}
}

// mcpClient serves the repository at dir in memory, as `orchestrate mcp
// --repo dir` would, to a client named name.
func mcpClient(t *testing.T, dir string, env map[string]string, name string) (*mcp.Client, *bytes.Buffer) {
	t.Helper()
	var stderr bytes.Buffer
	b := newMCPBackend(Deps{System: mcpSystem(dir, env, &stderr), Repo: dir})
	c, err := mcp.ConnectInMemory(context.Background(), b, mcp.Options{Version: "test"}, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, &stderr
}

func call(t *testing.T, c *mcp.Client, tool string, args map[string]any) mcp.ToolResult {
	t.Helper()
	res, err := c.Call(context.Background(), tool, args)
	if err != nil {
		t.Fatalf("%s: a protocol failure: %v", tool, err)
	}
	return res
}

// field decodes the structured content of res into a map.
func field(t *testing.T, res mcp.ToolResult) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(res.Structured, &m); err != nil {
		t.Fatalf("structured content is not an object: %v\n%s", err, res.Text)
	}
	return m
}

func exitOf(t *testing.T, res mcp.ToolResult) int {
	t.Helper()
	v, ok := field(t, res)["exit_code"].(float64)
	if !ok {
		t.Fatalf("no exit_code in %s", res.Text)
	}
	return int(v)
}

// sdcRepo is a repository with one clean interrupted SDC workflow (sdc-1,
// started in autopilot) and a second one finished.
func sdcRepo(t *testing.T, extra map[string]string) string {
	files := map[string]string{
		".orchestrate/workflows/sdc-1.yaml":  fmt.Sprintf(sdcState, "autopilot"),
		"docs/stories/4.2.s.md":              story42,
		".orchestrate/workflows/done-1.yaml": "execution_id: done-1\nworkflow: story-development-cycle\nstory: \"9.9\"\nstatus: completed\nupdated_at: 2026-11-19T10:00:00Z\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	return testRepo(t, files)
}

// The read-only tools answer with the very documents of status --json
// --all, resume --dry-run --json and log --json; they are annotated
// read-only, claim and release are not; the prompt is listed.
func TestMCPReadOnlyToolsAreTheCLIDocuments(t *testing.T) {
	dir := sdcRepo(t, nil)
	c, _ := mcpClient(t, dir, nil, "test-agent")
	ctx := context.Background()

	tools, err := c.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ro := map[string]bool{}
	for _, tl := range tools {
		ro[tl.Name] = tl.ReadOnly
	}
	want := map[string]bool{"workflows": true, "plan": true, "log": true, "claim": false, "release": false}
	if fmt.Sprint(ro) != fmt.Sprint(want) {
		t.Errorf("tools and their readOnlyHint: %v, want %v", ro, want)
	}
	prompts, err := c.Prompts(ctx)
	if err != nil || strings.Join(prompts, ",") != "resume_context" {
		t.Errorf("prompts: %v %v", prompts, err)
	}

	for _, tc := range []struct {
		tool string
		args map[string]any
		cli  []string
	}{
		{"workflows", nil, []string{"status", "--json", "--all"}},
		{"plan", map[string]any{"workflow": "sdc-1"}, []string{"resume", "--dry-run", "--json", "sdc-1"}},
		{"plan", map[string]any{"workflow": "sdc-1", "mode": "preflight"}, []string{"resume", "--dry-run", "--json", "--mode", "preflight", "sdc-1"}},
		{"log", nil, []string{"log", "--json"}},
	} {
		res := call(t, c, tc.tool, tc.args)
		r := run(t, dir, nil, false, append(tc.cli, "--repo", dir)...)
		if res.IsError {
			t.Errorf("%s: a tool error: %s", tc.tool, res.Text)
		}
		if res.Text != r.out.String() {
			t.Errorf("%s: not the document of orchestrate %s:\n got %s\nwant %s", tc.tool, strings.Join(tc.cli, " "), res.Text, r.out.String())
		}
		var a, b any
		if json.Unmarshal(res.Structured, &a) != nil || json.Unmarshal(r.out.Bytes(), &b) != nil || fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("%s: structured content differs from the CLI's document", tc.tool)
		}
	}
}

// Errors are tool errors carrying the CLI's exit code and message, never
// protocol failures: an unknown id (14), a finished workflow (15), a usage
// error (2), a repository that is not one.
func TestMCPErrorsAreToolErrors(t *testing.T) {
	dir := sdcRepo(t, nil)
	c, _ := mcpClient(t, dir, nil, "test-agent")
	for _, tc := range []struct {
		tool string
		args map[string]any
		code int
		msg  string
	}{
		{"plan", map[string]any{"workflow": "nope-9"}, cmdutil.ExitNotFound, `no workflow matches "nope-9"`},
		{"claim", map[string]any{"workflow": "nope-9"}, cmdutil.ExitNotFound, `no workflow matches "nope-9"`},
		{"claim", map[string]any{"workflow": "done-1"}, cmdutil.ExitTerminal, "done-1 is completed"},
		{"claim", map[string]any{"workflow": ""}, cmdutil.ExitUsage, "name the workflow"},
		{"claim", map[string]any{"workflow": "sdc-1", "holder": "bad\x1b[31mname"}, cmdutil.ExitUsage, "control"},
		{"release", map[string]any{"workflow": "sdc-1", "outcome": "done"}, cmdutil.ExitUsage, "no claim of"},
		{"release", map[string]any{"workflow": "sdc-1", "outcome": "maybe"}, cmdutil.ExitUsage, "want done, failed or abandoned"},
		{"log", map[string]any{"lines": -1}, cmdutil.ExitUsage, "want 0 or more"},
		{"plan", map[string]any{"workflow": "sdc-1", "mode": "--force"}, cmdutil.ExitUsage, `"--force" is not a mode`},
	} {
		res := call(t, c, tc.tool, tc.args)
		if !res.IsError {
			t.Errorf("%s %v: not a tool error: %s", tc.tool, tc.args, res.Text)
			continue
		}
		if got := exitOf(t, res); got != tc.code {
			t.Errorf("%s %v: exit_code %d, want %d", tc.tool, tc.args, got, tc.code)
		}
		if msg, _ := field(t, res)["error"].(string); !strings.Contains(msg, tc.msg) {
			t.Errorf("%s %v: error %q, want it to say %q", tc.tool, tc.args, msg, tc.msg)
		}
		if strings.ContainsRune(res.Text, 0x1b) {
			t.Errorf("%s: an escape character reached the result", tc.tool)
		}
	}
	// not a repository: the CLI's usage error, as a tool error
	empty := t.TempDir()
	c2, _ := mcpClient(t, empty, nil, "test-agent")
	res := call(t, c2, "workflows", nil)
	if !res.IsError || exitOf(t, res) != cmdutil.ExitUsage {
		t.Errorf("workflows outside a repository: %v %s", res.IsError, res.Text)
	}
}

// claim hands the workflow off as autopilot would, with the client's name
// as the holder, keeps the lock until release; a second claim is refused
// (16 while held, already handed off once released done); again hands it
// off once more; failed/abandoned make it interrupted again; the session's
// end releases what is still claimed.
func TestMCPClaimRelease(t *testing.T) {
	dir := sdcRepo(t, nil)
	c, _ := mcpClient(t, dir, nil, "test-agent")

	res := call(t, c, "claim", map[string]any{"workflow": "sdc-1"})
	if res.IsError {
		t.Fatalf("claim: %s", res.Text)
	}
	doc := field(t, res)
	if doc["holder"] != "test-agent" || doc["workflow"] != "workflow:sdc-1" || doc["phase"] != "implement" || doc["outcome"] != "claimed" {
		t.Errorf("claim document: %s", res.Text)
	}
	env, _ := doc["envelope"].(map[string]any)
	if env == nil || env["idempotency_key"] != doc["idempotency_key"] {
		t.Errorf("the envelope is not returned whole: %s", res.Text)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(doc["envelope_path"].(string)))); err != nil {
		t.Errorf("envelope not written: %v", err)
	}
	owner, held, err := handoff.ReadLock(dir, "workflow:sdc-1")
	if err != nil || !held || owner.PID != os.Getpid() || !strings.Contains(owner.Command, "claimed by test-agent") {
		t.Fatalf("the lock is not held for the claim: %+v %v %v", owner, held, err)
	}
	logText, _ := os.ReadFile(filepath.Join(dir, ".orchestrate", "log.jsonl"))
	if !strings.Contains(string(logText), `"holder":"test-agent"`) || !strings.Contains(string(logText), `"event":"resume.handed_off"`) {
		t.Errorf("the log does not record the handoff to the holder:\n%s", logText)
	}
	state, _ := os.ReadFile(filepath.Join(dir, ".orchestrate", "workflows", "sdc-1.yaml"))
	if !strings.Contains(string(state), "status: active") {
		t.Errorf("the state is not marked resumed:\n%s", state)
	}

	// the envelope is a resource while the claim is held: the one returned
	text, _, err := c.ReadResource(context.Background(), "orchestrate://envelope/sdc-1")
	var fromResource map[string]any
	if err != nil || json.Unmarshal([]byte(text), &fromResource) != nil || fromResource["idempotency_key"] != env["idempotency_key"] {
		t.Errorf("envelope resource: %q, %v", text, err)
	}
	if _, _, err := c.ReadResource(context.Background(), "orchestrate://envelope/done-1"); err == nil {
		t.Error("the envelope of a workflow not claimed here is found")
	}

	// held: a second claim is refused as resume refuses it (16); the plan says locked
	res = call(t, c, "claim", map[string]any{"workflow": "sdc-1", "holder": "other-agent"})
	if !res.IsError || exitOf(t, res) != cmdutil.ExitLocked || !strings.Contains(res.Text, "claimed by test-agent") {
		t.Errorf("second claim while held: %s", res.Text)
	}
	if r := run(t, dir, nil, false, "resume", "--mode", "autopilot", "--json", "sdc-1", "--repo", dir); r.code != cmdutil.ExitLocked {
		t.Errorf("resume while claimed: exit %d, want 16\n%s", r.code, r.err.String())
	}

	// release done: the lock is freed, the outcome logged
	res = call(t, c, "release", map[string]any{"workflow": "workflow:sdc-1", "outcome": "done", "note": "implemented, token=ghp_abcdefghijklmnopqrstuvwxyz0123456789"})
	if res.IsError {
		t.Fatalf("release: %s", res.Text)
	}
	if _, held, _ := handoff.ReadLock(dir, "workflow:sdc-1"); held {
		t.Error("the lock is still held after release")
	}
	logText, _ = os.ReadFile(filepath.Join(dir, ".orchestrate", "log.jsonl"))
	if !strings.Contains(string(logText), `"event":"claim.released"`) || !strings.Contains(string(logText), `"outcome":"done"`) {
		t.Errorf("release not logged:\n%s", logText)
	}
	if strings.Contains(string(logText), "ghp_abcdefghij") {
		t.Error("a secret in the release note reached the log in clear")
	}
	if _, _, err := c.ReadResource(context.Background(), "orchestrate://envelope/sdc-1"); err == nil {
		t.Error("the envelope is still a resource after the release")
	}

	// the same phase again: refused as resume refuses it (already handed off, exit 0)
	res = call(t, c, "claim", map[string]any{"workflow": "sdc-1"})
	if !res.IsError || exitOf(t, res) != cmdutil.ExitOK || field(t, res)["reason"] != "already_handed_off" {
		t.Errorf("claim after done: %s", res.Text)
	}
	// again: handed off once more; released abandoned, it is interrupted again
	res = call(t, c, "claim", map[string]any{"workflow": "sdc-1", "again": true})
	if res.IsError {
		t.Fatalf("claim again: %s", res.Text)
	}
	if res = call(t, c, "release", map[string]any{"workflow": "sdc-1", "outcome": "abandoned"}); res.IsError { // the name claim took
		t.Fatalf("release abandoned: %s", res.Text)
	}
	res = call(t, c, "claim", map[string]any{"workflow": "sdc-1", "holder": "second-agent"})
	if res.IsError {
		t.Fatalf("claim after abandoned: %s", res.Text)
	}
	// the session ends without a release: released as abandoned, lock freed
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, held, _ := handoff.ReadLock(dir, "workflow:sdc-1"); held {
		t.Error("the lock outlived the session")
	}
	logText, _ = os.ReadFile(filepath.Join(dir, ".orchestrate", "log.jsonl"))
	if n := strings.Count(string(logText), `"outcome":"abandoned"`); n != 2 {
		t.Errorf("%d abandoned releases logged, want 2:\n%s", n, logText)
	}
}

// The gates are autopilot's: a stale workflow halts (17, with the plan);
// an untrusted repository configuration that would run a program is
// refused with the CLI's 19, naming orchestrate trust.
func TestMCPClaimGates(t *testing.T) {
	stale := strings.Replace(fmt.Sprintf(sdcState, "autopilot"), "2026-11-20T11:30:00Z", "2026-10-01T11:30:00Z", 1)
	dir := testRepo(t, map[string]string{".orchestrate/workflows/sdc-1.yaml": stale, "docs/stories/4.2.s.md": story42})
	c, _ := mcpClient(t, dir, nil, "test-agent")
	res := call(t, c, "claim", map[string]any{"workflow": "sdc-1"})
	if !res.IsError || exitOf(t, res) != cmdutil.ExitCannot || field(t, res)["plan"] == nil {
		t.Errorf("claim of a stale workflow: %s", res.Text)
	}
	if _, err := os.Stat(filepath.Join(dir, ".orchestrate", "log.jsonl")); err == nil {
		t.Error("a refused claim wrote the log")
	}
	// the context is still given, saying a claim would be refused
	if _, text, err := c.Prompt(context.Background(), "resume_context", map[string]string{"workflow": "sdc-1"}); err != nil || !strings.Contains(text, "decision in autopilot: halt") || !strings.Contains(text, "A claim would be refused") {
		t.Errorf("resume_context of a stale workflow: %v\n%s", err, text)
	}

	dir = sdcRepo(t, map[string]string{".orchestrate.yaml": "handoff:\n  command: echo hi\n"})
	env := map[string]string{"XDG_CONFIG_HOME": t.TempDir()}
	c, _ = mcpClient(t, dir, env, "test-agent")
	res = call(t, c, "claim", map[string]any{"workflow": "sdc-1"})
	if !res.IsError || exitOf(t, res) != cmdutil.ExitNoTTY || !strings.Contains(res.Text, "orchestrate trust") {
		t.Errorf("claim in an untrusted repository: %s", res.Text)
	}
	if _, held, _ := handoff.ReadLock(dir, "workflow:sdc-1"); held {
		t.Error("a refused claim took the lock")
	}
}

// resume_context is the envelope's content as text, without claiming; a
// refusal is the prompt's answer, not a protocol failure.
func TestMCPResumeContextPrompt(t *testing.T) {
	dir := sdcRepo(t, nil)
	c, _ := mcpClient(t, dir, nil, "test-agent")
	ctx := context.Background()
	desc, text, err := c.Prompt(ctx, "resume_context", map[string]string{"workflow": "sdc-1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"workflow:sdc-1", "Next phase: implement", "- create (agent sm): docs/stories/4.2.s.md", `"idempotency_key"`, "call the claim tool"} {
		if !strings.Contains(text, want) {
			t.Errorf("resume_context lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(desc, "workflow:sdc-1") {
		t.Errorf("description %q", desc)
	}
	if _, err := os.Stat(filepath.Join(dir, ".orchestrate")); err == nil {
		if _, held, _ := handoff.ReadLock(dir, "workflow:sdc-1"); held {
			t.Error("the prompt took the lock")
		}
		if _, err := os.Stat(filepath.Join(dir, ".orchestrate", "handoffs")); err == nil {
			t.Error("the prompt wrote an envelope")
		}
	}
	// claimed: the holder may still read the context (the lock hides nothing)
	if res := call(t, c, "claim", map[string]any{"workflow": "sdc-1"}); res.IsError {
		t.Fatalf("claim: %s", res.Text)
	}
	if _, text, err := c.Prompt(ctx, "resume_context", map[string]string{"workflow": "sdc-1"}); err != nil || !strings.Contains(text, "Next phase: implement") {
		t.Errorf("resume_context while claimed: %v\n%s", err, text)
	}
	desc, text, err = c.Prompt(ctx, "resume_context", map[string]string{"workflow": "nope-9"})
	if err != nil {
		t.Fatalf("an unknown workflow is a protocol failure: %v", err)
	}
	if desc != "refused" || !strings.Contains(text, `"exit_code": 14`) {
		t.Errorf("unknown workflow: %q\n%s", desc, text)
	}
}

// With lifecycle.remote the claim takes the shared lock on the remote and
// appends the records with the holder as the runner: another clone's claim
// is refused (16, held_remotely) while it is held; released done, the
// records say handed off and the other clone's claim is already handed off.
func TestMCPClaimSharedRemote(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not on PATH")
	}
	base := t.TempDir()
	gitRun := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	seed := filepath.Join(base, "seed")
	if err := os.MkdirAll(filepath.Join(seed, ".orchestrate", "workflows"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitRun(seed, "init", "-q")
	_ = os.MkdirAll(filepath.Join(seed, "docs", "stories"), 0o755)
	_ = os.WriteFile(filepath.Join(seed, ".orchestrate", "workflows", "sdc-1.yaml"), []byte(fmt.Sprintf(sdcState, "autopilot")), 0o644)
	_ = os.WriteFile(filepath.Join(seed, "docs", "stories", "4.2.s.md"), []byte(story42), 0o644)
	gitRun(seed, "add", "-A")
	gitRun(seed, "commit", "-q", "-m", "work", "--date", "2026-11-20T11:30:00Z")
	gitRun(base, "init", "-q", "--bare", "remote.git")
	gitRun(seed, "push", "-q", "../remote.git", "HEAD:refs/heads/main")
	gitRun(base, "--git-dir=remote.git", "symbolic-ref", "HEAD", "refs/heads/main")
	gitRun(base, "clone", "-q", "remote.git", "a")
	gitRun(base, "clone", "-q", "remote.git", "b")
	env := map[string]string{"ORCHESTRATE_REMOTE": "origin", "PATH": os.Getenv("PATH"), "HOME": base, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}

	ca, errA := mcpClient(t, filepath.Join(base, "a"), env, "agent-a")
	cb, errB := mcpClient(t, filepath.Join(base, "b"), env, "agent-b")
	res := call(t, ca, "claim", map[string]any{"workflow": "sdc-1"})
	if res.IsError {
		t.Fatalf("claim in clone a: %s\n%s", res.Text, errA)
	}
	if field(t, res)["shared_remote"] != "origin" {
		t.Errorf("the claim does not say it holds the shared lock: %s", res.Text)
	}
	refs := gitRun(base, "--git-dir=remote.git", "for-each-ref", "--format=%(refname)", "refs/orchestrate/")
	if !strings.Contains(refs, "refs/orchestrate/locks/") || !strings.Contains(refs, "refs/orchestrate/records/") {
		t.Fatalf("no shared lock or records on the remote:\n%s", refs)
	}
	res = call(t, cb, "claim", map[string]any{"workflow": "sdc-1"})
	if !res.IsError || exitOf(t, res) != cmdutil.ExitLocked || field(t, res)["reason"] != "held_remotely" || !strings.Contains(res.Text, "agent-a") {
		t.Errorf("claim in clone b while a holds it: %s\n%s", res.Text, errB)
	}
	if res = call(t, ca, "release", map[string]any{"workflow": "workflow:sdc-1", "outcome": "done"}); res.IsError {
		t.Fatalf("release: %s", res.Text)
	}
	refs = gitRun(base, "--git-dir=remote.git", "for-each-ref", "--format=%(refname)", "refs/orchestrate/")
	if strings.Contains(refs, "refs/orchestrate/locks/") {
		t.Errorf("the shared lock outlived the release:\n%s", refs)
	}
	records := gitRun(base, "--git-dir=remote.git", "log", "--format=%B", "refs/orchestrate/records/workflow_3asdc-1")
	if !strings.Contains(records, `"owner":"agent-a"`) || !strings.Contains(records, `"event":"handed_off"`) {
		t.Errorf("the shared records do not name the holder's handoff:\n%s", records)
	}
	res = call(t, cb, "claim", map[string]any{"workflow": "sdc-1"})
	if !res.IsError || field(t, res)["reason"] != "already_handed_off" {
		t.Errorf("claim in clone b after a released done: %s\n%s", res.Text, errB)
	}
}
