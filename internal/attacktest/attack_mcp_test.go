package attacktest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// An mcpSession is `orchestrate mcp` running in the repository of an env,
// driven with raw JSON-RPC lines over its stdin and stdout. Every stdout
// line is checked: it must be a JSON-RPC 2.0 message, carry no raw escape,
// C1 or bidi character, no escaped ESC/BEL (\u001b, \u0007) that a client
// would print as one, and none of the planted secrets.
type mcpSession struct {
	e      *env
	cmd    *exec.Cmd
	report string // rsswrap's usage report (see wrapped)
	stdin  io.WriteCloser
	lines  chan string
	stderr *bytes.Buffer
	cancel context.CancelFunc
	start  time.Time
	secret []string // strings no stdout line may hold
	next   int
}

// mcpStart starts `orchestrate mcp` with the environment of run (plus
// more) under the attack time limit (the whole session), and initializes
// it as clientName.
func (e *env) mcpStart(clientName string, more ...string) *mcpSession {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), *flagTimeout)
	cmd, report := wrapped(ctx, e.bin, "mcp")
	cmd.Dir = e.repo
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	envv := append(cleanEnv(), "ORCHESTRATE_NOW="+now, "NO_COLOR=1",
		"HOME="+e.home, "XDG_CONFIG_HOME="+filepath.Join(e.home, ".config"), "XDG_CACHE_HOME="+filepath.Join(e.home, ".cache"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	cmd.Env = append(append(envv, e.extra...), more...)
	s := &mcpSession{e: e, cmd: cmd, report: report, lines: make(chan string, 64), stderr: &bytes.Buffer{}, cancel: cancel, next: 100}
	cmd.Stderr = s.stderr
	var err error
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		e.t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	s.start = time.Now()
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 256<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	init := s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": clientName, "version": "1"}})
	if init["error"] != nil {
		e.t.Fatalf("initialize: %v (stderr: %s)", init["error"], s.stderr)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	return s
}

// send writes one line.
func (s *mcpSession) send(line string) {
	s.e.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.e.t.Fatalf("mcp: writing a request: %v (stderr: %s)", err, tail(s.stderr.String()))
	}
}

// check applies the stdout rules to one line: a JSON-RPC message with no
// raw control, C1 or bidi character and no planted secret; the texts a
// client shows (tool result text, prompt messages, descriptions) hold none
// either once decoded. (A JSON document's \u001b escapes stay: a document
// decodes to the same values, as with --json.)
func (s *mcpSession) check(line string) map[string]any {
	t := s.e.t
	t.Helper()
	var msg map[string]any
	if err := json.Unmarshal([]byte(line), &msg); err != nil || msg["jsonrpc"] != "2.0" {
		t.Errorf("mcp: stdout carries a line that is not a JSON-RPC message: %q", tail(line))
		return nil
	}
	shown := []string{line}
	if res, _ := msg["result"].(map[string]any); res != nil {
		d, _ := res["description"].(string)
		shown = append(shown, d)
		for _, key := range []string{"content", "messages"} {
			items, _ := res[key].([]any)
			for _, it := range items {
				m, _ := it.(map[string]any)
				if c, ok := m["content"].(map[string]any); ok {
					m = c
				}
				if text, ok := m["text"].(string); ok {
					shown = append(shown, text)
				}
			}
		}
	}
	for _, text := range shown {
		if i := escapeAt(text); i >= 0 {
			t.Errorf("mcp: a raw escape byte in a message: %q", text[max(0, i-60):min(len(text), i+60)])
		}
		for _, c := range []string{"\u202e", "\u2066", "\u2028"} {
			if i := strings.Index(text, c); i >= 0 {
				t.Errorf("mcp: a raw bidi or separator character in a message: %q", text[max(0, i-60):min(len(text), i+60)])
			}
		}
		for _, sec := range s.secret {
			if strings.Contains(text, sec) {
				t.Errorf("mcp: the secret %q in a message: %s", sec, tail(text))
			}
		}
	}
	return msg
}

// await reads stdout until the answer to id, checking every line.
func (s *mcpSession) await(id int) map[string]any {
	s.e.t.Helper()
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				s.e.t.Fatalf("mcp: stdout closed before the answer to %d (stderr: %s)", id, tail(s.stderr.String()))
			}
			msg := s.check(line)
			if got, ok := msg["id"].(float64); ok && int(got) == id {
				return msg
			}
		case <-time.After(time.Until(s.start.Add(*flagTimeout))):
			s.e.t.Fatalf("mcp: no answer to %d within the %v time limit (stderr: %s)", id, *flagTimeout, tail(s.stderr.String()))
		}
	}
}

// call sends a request and returns its answer.
func (s *mcpSession) call(method string, params any) map[string]any {
	s.e.t.Helper()
	s.next++
	id := s.next
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		s.e.t.Fatal(err)
	}
	s.send(string(b))
	return s.await(id)
}

// tool calls a tool and returns its result text and whether it is a tool
// error; a protocol error fails the test unless protocolOK.
func (s *mcpSession) tool(name string, args map[string]any) (string, bool) {
	s.e.t.Helper()
	msg := s.call("tools/call", map[string]any{"name": name, "arguments": args})
	res, _ := msg["result"].(map[string]any)
	if res == nil {
		return fmt.Sprint(msg["error"]), true
	}
	var text string
	if content, _ := res["content"].([]any); len(content) > 0 {
		if c, _ := content[0].(map[string]any); c != nil {
			text, _ = c["text"].(string)
		}
	}
	isErr, _ := res["isError"].(bool)
	return text, isErr
}

// close ends the session (stdin at its end), checks the rest of stdout and
// the exit (0), and returns stderr.
func (s *mcpSession) close() string {
	s.e.t.Helper()
	return s.end(false)
}

// end is close; with mayFail an exit other than 0 is accepted (the
// server ended the session on bad input), a crash or kill is not.
func (s *mcpSession) end(mayFail bool) string {
	s.e.t.Helper()
	_ = s.stdin.Close()
	for line := range s.lines {
		s.check(line)
	}
	err := s.cmd.Wait()
	s.cancel()
	maxRSS, _ := usage(s.report)
	s.e.t.Logf("orchestrate mcp: %v in %v, peak RSS %d MiB", err, time.Since(s.start).Round(time.Millisecond), maxRSS>>20)
	if err != nil && (!mayFail || s.cmd.ProcessState == nil || s.cmd.ProcessState.ExitCode() <= 0) {
		s.e.t.Errorf("orchestrate mcp ended with %v (stderr: %s)", err, tail(s.stderr.String()))
	}
	if maxRSS > *flagMaxRSS<<20 {
		s.e.t.Errorf("orchestrate mcp: peak RSS %d MiB, over the %d MiB bound", maxRSS>>20, *flagMaxRSS)
	}
	st := s.stderr.String()
	if strings.Contains(st, "panic:") || strings.Contains(st, "goroutine ") {
		s.e.t.Errorf("orchestrate mcp panicked:\n%s", tail(st))
	}
	return st
}

// hostileState is a state file whose values carry a token, terminal
// escapes (YAML "\e" is ESC), a bidi override and a newline.
const hostileState = `execution_id: sdc-esc
workflow: story-development-cycle
story: "4.1"
updated_at: 2026-11-20T11:30:00Z
current_phase: "implement\e]0;pwned\a"
status: interrupted
ai_session_id: "ghp_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5A1b2C3"
context:
  note: "token ghp_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5A1b2C3 then \e[2J\e]52;c;cHduZWQ=\a and \u202etxt.exe and\nforged line"
phases_completed:
  - {phase: create, agent: "sm\e[8m", output: "docs/stories/4.1.a.md"}
`

// mcpRepo is the repository of the MCP attacks: the sdc workflows, the
// work session and saved secrets of worksession.txtar, and the hostile
// state file, committed.
func (e *env) mcpRepo() {
	e.t.Helper()
	e.writeTxtar("sdc.txtar")
	e.writeTxtar("worksession.txtar")
	e.write(".orchestrate/workflows/sdc-esc.yaml", []byte(hostileState))
	e.commitAll("mcp")
}

// Every tool and the prompt over a repository whose state files hold a
// token, secrets and escape sequences: every stdout line is a JSON-RPC
// message, redacted and terminal-safe, for answers and refusals alike
// (a workflow argument holding a token and a bidi override too).
func TestAttackMCPResultsAreSafe(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.mcpRepo()
	s := e.mcpStart("attacker")
	s.secret = append([]string{"ghp_A1b2C3d4E5"}, leaks...)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"workflows", map[string]any{}},
		{"plan", map[string]any{"workflow": "sdc-esc"}},
		{"plan", map[string]any{"workflow": "sdc-red"}},
		{"plan", map[string]any{"workflow": "ghp_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5A1b2C3\u202e\x1b[2J"}},
		{"claim", map[string]any{"workflow": "ghp_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5A1b2C3\u202e"}},
		{"claim", map[string]any{"workflow": "sdc-esc"}},
		{"release", map[string]any{"workflow": "sdc-esc", "outcome": "failed", "note": "password is hunter2Pass and ghp_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5A1b2C3 \x1b[2J"}},
		{"claim", map[string]any{"workflow": "sdc-red"}},
		{"release", map[string]any{"workflow": "ghp_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5A1b2C3\u202e", "outcome": "done"}},
		{"log", map[string]any{"lines": 0}},
	} {
		text, _ := s.tool(c.tool, c.args)
		if text == "" {
			t.Errorf("%s %v: no text", c.tool, c.args)
		}
	}
	for _, wf := range []string{"sdc-esc", "sdc-red", "ghp_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5A1b2C3\u202e\x1b[2J"} {
		msg := s.call("prompts/get", map[string]any{"name": "resume_context", "arguments": map[string]any{"workflow": wf}})
		if msg["error"] != nil {
			t.Errorf("resume_context %q: a protocol error: %v", wf, msg["error"])
		}
	}
	st := s.close()
	if escapeAt(st) >= 0 || strings.Contains(st, "ghp_A1b2C3d4E5") {
		t.Errorf("stderr carries an escape or the token: %q", tail(st))
	}
	// the log and the lock of the claims carry neither
	for _, p := range []string{".orchestrate/log.jsonl"} {
		b, err := os.ReadFile(filepath.Join(e.repo, p))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "ghp_A1b2C3d4E5") || strings.Contains(string(b), "hunter2Pass") || escapeAt(string(b)) >= 0 {
			t.Errorf("%s carries a secret or an escape:\n%s", p, b)
		}
	}
}

// Malformed, unknown and huge input: broken JSON, a JSON-RPC batch, wrong
// types, an unknown method and tool, arguments that are not objects, a
// 12 MiB and a 32 MiB argument and a 64 MiB line with no JSON in it, each sent while a
// claim is held. Each is a JSON-RPC error, a tool error, or the end of the
// session with an error on stderr (the SDK ends a session on a line that
// is not JSON) — never a crash, a hang or a blow-up — and stdout carries
// only protocol messages. When the session ends, the claim is released
// (no lock is left behind).
func TestAttackMCPMalformedInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.mcpRepo()
	huge := func(n int) string {
		return `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"plan","arguments":{"workflow":"` + strings.Repeat("A", n) + `"}}}`
	}
	for i, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"plan","arguments":{"workflow":`,
		`not json at all`,
		`[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"plan","arguments":{"workflow":42,"restart":"yes"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"no/such/method","params":{}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"rm -rf /","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"claim","arguments":"--force"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"log","arguments":{"lines":-99999999999}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"resume_context"}}`,
		"\x1b]0;pwned\x07",
		huge(12 << 20), // over the guard's 1 MiB line bound: an error answer, the session goes on
		huge(32 << 20), // over it: the session ends
		"",
	} {
		s := e.mcpStart("attacker")
		if text, isErr := s.tool("claim", map[string]any{"workflow": "sdc-1"}); isErr {
			t.Fatalf("claim: %s", tail(text))
		}
		if line == "" { // 64 MiB of garbage on one line
			chunk := bytes.Repeat([]byte("x"), 1<<20)
			for k := 0; k < 64; k++ {
				if _, err := s.stdin.Write(chunk); err != nil {
					break // the server stopped reading: it ended the session
				}
			}
			_, _ = s.stdin.Write([]byte("\n"))
		} else {
			_, _ = io.WriteString(s.stdin, line+"\n")
		}
		// a valid request after it: answered, or the session has ended
		s.next++
		_, _ = io.WriteString(s.stdin, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{}}`+"\n", s.next))
		answered := false
		if len(line) < 16<<20 && json.Valid([]byte(line)) && strings.HasPrefix(line, "{") {
			// a well-formed message the server must answer, and go on
			if msg := s.await(s.next); msg["result"] == nil {
				t.Errorf("input %d: tools/list after it: %v", i, msg)
			}
			answered = true
		}
		// then the client goes away (an incomplete message waits for the
		// rest of its bytes until then, as a stream decoder does)
		_ = s.stdin.Close()
		for l := range s.lines {
			msg := s.check(l)
			if got, ok := msg["id"].(float64); ok && int(got) == s.next {
				answered = true
			}
		}
		stderr := s.end(true)
		t.Logf("input %d: answered after it: %v; stderr: %s", i, answered, tail(stderr))
		if l, _ := os.ReadDir(filepath.Join(e.repo, ".orchestrate/locks")); len(l) > 0 {
			t.Errorf("input %d: the claim's lock outlived the session: %v", i, l)
		}
	}
	if e.agentStarts() != 0 {
		t.Error("an agent started")
	}
}

// Tool arguments that look like flags or carry escapes and newlines:
// `--force`, `--all`, `-h`, `--repo=/`, `--dry-run=false`, a newline
// forging a second argument. Each is data: a usage error or "no workflow
// matches"; nothing is claimed, locked or written, no agent runs, and
// the tools still answer with the repository of the server (never /).
func TestAttackMCPFlagLikeArguments(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.mcpRepo()
	e.extra = append(e.extra, "ORCHESTRATE_HANDOFF_COMMAND="+e.handoffCommand())
	before := snapshot(t, e.repo, false)
	s := e.mcpStart("attacker")
	for _, wf := range []string{"--force", "--all", "-h", "--repo=/", "--dry-run=false", "sdc-1\n--force", "\x1b[2J--json"} {
		if text, isErr := s.tool("plan", map[string]any{"workflow": wf}); !isErr {
			t.Errorf("plan %q: answered as a workflow: %s", wf, tail(text))
		}
	}
	for _, args := range []map[string]any{
		{"workflow": "sdc-1", "mode": "--force"},
		{"workflow": "sdc-1", "mode": "autopilot --force"},
		{"workflow": "sdc-1", "from_phase": "--restart"},
		{"workflow": "sdc-1", "from_phase": "implement\n--force"},
	} {
		if text, isErr := s.tool("plan", args); !isErr && !strings.Contains(text, `"dry_run"`) && !strings.Contains(text, "exit_code") {
			t.Errorf("plan %v: %s", args, tail(text))
		}
	}
	if text, _ := s.tool("workflows", map[string]any{}); !strings.Contains(text, "workflow:sdc-1") {
		t.Errorf("workflows: not this repository's: %s", tail(text))
	}
	for _, wf := range []string{"--force", "-h", "--all"} {
		if text, isErr := s.tool("claim", map[string]any{"workflow": wf}); !isErr {
			t.Errorf("claim %q: claimed: %s", wf, tail(text))
		}
	}
	s.close()
	sameFiles(t, "the repository", before, snapshot(t, e.repo, false))
	if n := e.agentStarts(); n != 0 {
		t.Errorf("%d agents started", n)
	}
}

// A workflow argument naming a path outside the repository (absolute,
// climbing with ../, a symlink in the repository pointing out, a state
// file outside): not found; nothing outside is read into a result or
// written, nothing in the repository either.
func TestAttackMCPWorkflowPathOutside(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.mcpRepo()
	outside := filepath.Join(e.dir, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	foreign := strings.Replace(strings.Replace(hostileState, "sdc-esc", "sdc-outside", 1), "ghp_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5A1b2C3", "OUTSIDE-MARK", -1)
	if err := os.WriteFile(filepath.Join(outside, "sdc-outside.yaml"), []byte(foreign), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(e.repo, "link-out")); err != nil {
		t.Fatal(err)
	}
	beforeOut := snapshot(t, outside, false)
	before := snapshot(t, e.repo, false)
	s := e.mcpStart("attacker")
	s.secret = []string{"OUTSIDE-MARK"}
	for _, wf := range []string{filepath.Join(outside, "sdc-outside.yaml"), "../outside/sdc-outside.yaml", "../../../../../../etc/passwd", "link-out/sdc-outside.yaml", "/etc/passwd", "workflow:../../outside/sdc-outside"} {
		for _, tool := range []string{"plan", "claim"} {
			if text, isErr := s.tool(tool, map[string]any{"workflow": wf}); !isErr {
				t.Errorf("%s %q: answered: %s", tool, wf, tail(text))
			}
		}
		s.call("prompts/get", map[string]any{"name": "resume_context", "arguments": map[string]any{"workflow": wf}})
	}
	s.close()
	sameFiles(t, "outside", beforeOut, snapshot(t, outside, false))
	sameFiles(t, "the repository", before, snapshot(t, e.repo, false))
}

// A hostile holder name: option-like, with escapes or a newline, a bidi
// override, 10,000 characters, a token. Control and format characters and
// over-long names are refused before anything is locked; an option-like
// name is only a name; no escape reaches the lock file or the log.
func TestAttackMCPHostileHolder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.mcpRepo()
	s := e.mcpStart("x\x1b]0;pwned\x07")
	for _, h := range []string{"ev\x1b[2Jil", "two\nlines", "bidi\u202eexe", strings.Repeat("h", 10000), "\x00"} {
		if text, isErr := s.tool("claim", map[string]any{"workflow": "sdc-1", "holder": h}); !isErr {
			t.Errorf("claim by %q: claimed: %s", tail(h), tail(text))
		}
	}
	if _, err := os.Stat(filepath.Join(e.repo, ".orchestrate/locks")); err == nil {
		if ents, _ := os.ReadDir(filepath.Join(e.repo, ".orchestrate/locks")); len(ents) > 0 {
			t.Errorf("a refused holder left a lock: %v", ents)
		}
	}
	// the client's own name holds an escape: a claim without holder is refused too
	if text, isErr := s.tool("claim", map[string]any{"workflow": "sdc-1"}); !isErr {
		t.Errorf("claim by the client name with an escape: claimed: %s", tail(text))
	}
	text, isErr := s.tool("claim", map[string]any{"workflow": "sdc-1", "holder": "--force"})
	if isErr || !strings.Contains(text, `"holder": "--force"`) {
		t.Errorf("claim by --force (a name): %v %s", isErr, tail(text))
	}
	if text, isErr := s.tool("claim", map[string]any{"workflow": "sdc-1", "holder": "other"}); !isErr || !strings.Contains(text, `"exit_code": 16`) {
		t.Errorf("a second claim while held: %v %s", isErr, tail(text))
	}
	s.close()
	b, _ := os.ReadFile(filepath.Join(e.repo, ".orchestrate/log.jsonl"))
	if escapeAt(string(b)) >= 0 || strings.Contains(string(b), `\u001b`) {
		t.Errorf("the log carries an escape:\n%s", b)
	}
}

// Two `orchestrate mcp` servers claim the same workflow at the same moment:
// exactly one wins, the other is refused (16, locked, or already handed
// off), and the log records one handoff.
func TestAttackMCPConcurrentClaims(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.mcpRepo()
	for round := 0; round < 3; round++ {
		wf := []string{"sdc-1", "sdc-red", "sdc-esc"}[round]
		a, b := e.mcpStart("agent-a"), e.mcpStart("agent-b")
		var wg sync.WaitGroup
		var mu sync.Mutex
		texts := map[string]string{}
		won := 0
		// both requests are written before either answer is read
		for _, s := range []*mcpSession{a, b} {
			s.next++
			args, _ := json.Marshal(map[string]any{"name": "claim", "arguments": map[string]any{"workflow": wf}})
			s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, s.next, args))
		}
		for _, s := range []*mcpSession{a, b} {
			wg.Add(1)
			go func(s *mcpSession) {
				defer wg.Done()
				msg := s.awaitNoFatal(s.next)
				res, _ := msg["result"].(map[string]any)
				mu.Lock()
				defer mu.Unlock()
				if res != nil && res["isError"] != true {
					won++
				}
				texts[fmt.Sprint(s.cmd.Process.Pid)] = fmt.Sprint(res)
			}(s)
		}
		wg.Wait()
		if won != 1 {
			t.Errorf("%s: %d claims won, want exactly 1: %v", wf, won, texts)
		}
		a.close()
		b.close()
	}
}

// awaitNoFatal is await for a goroutine: a failure is reported, an empty
// answer returned.
func (s *mcpSession) awaitNoFatal(id int) map[string]any {
	deadline := time.After(time.Until(s.start.Add(*flagTimeout)))
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				s.e.t.Errorf("mcp: stdout closed before the answer to %d (stderr: %s)", id, tail(s.stderr.String()))
				return nil
			}
			var msg map[string]any
			if json.Unmarshal([]byte(line), &msg) != nil {
				s.e.t.Errorf("mcp: not JSON on stdout: %q", tail(line))
				continue
			}
			if got, ok := msg["id"].(float64); ok && int(got) == id {
				return msg
			}
		case <-deadline:
			s.e.t.Errorf("mcp: no answer to %d within the time limit", id)
			return nil
		}
	}
}

// An untrusted .orchestrate.yaml setting handoff.command (and one setting
// handoff.agent with a `claude` in the repository): a claim is refused with
// the trust message (19), nothing runs, nothing is written or locked; the
// read-only tools answer and run nothing either.
func TestAttackMCPUntrustedConfig(t *testing.T) {
	t.Parallel()
	for name, cfg := range map[string]string{
		"command": "handoff:\n  command: %q\n",
		"agent":   "handoff:\n  agent: claude\n# %q\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.mcpRepo()
			e.write(".orchestrate.yaml", []byte(fmt.Sprintf(cfg, e.handoffCommand())))
			e.write("claude", []byte("#!/bin/sh\necho x >> '"+e.marker()+"'\n"))
			if err := os.Chmod(filepath.Join(e.repo, "claude"), 0o755); err != nil {
				t.Fatal(err)
			}
			e.commitAll("untrusted config")
			before := snapshot(t, e.repo, false)
			s := e.mcpStart("attacker", "PATH=.:"+os.Getenv("PATH"))
			for _, tool := range []string{"workflows", "plan", "log"} {
				s.tool(tool, map[string]any{})
			}
			text, isErr := s.tool("claim", map[string]any{"workflow": "sdc-1"})
			if !isErr || !strings.Contains(text, `"exit_code": 19`) || !strings.Contains(text, "orchestrate trust") {
				t.Errorf("claim under an untrusted config: %v %s", isErr, tail(text))
			}
			s.call("prompts/get", map[string]any{"name": "resume_context", "arguments": map[string]any{"workflow": "sdc-1"}})
			s.close()
			if n := e.agentStarts(); n != 0 {
				t.Errorf("the repository's command ran %d times", n)
			}
			sameFiles(t, "the repository", before, snapshot(t, e.repo, false))
		})
	}
}
