package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/app/mcp"
	"github.com/orchestrate-dev/orchestrate/handoff"
)

// orchestrateBinary is the test binary under the name "orchestrate", which
// TestMain runs as the program (testscript.Main dispatches on argv[0]).
func orchestrateBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "orchestrate")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// mcpRepo is a folder with one interrupted workflow, and the environment
// orchestrate mcp runs in (pinned clock, its own home).
func mcpRepo(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		".orchestrate/workflows/sdc-1.yaml": "execution_id: sdc-1\nworkflow: story-development-cycle\nstory: \"4.2\"\nupdated_at: 2026-11-20T11:30:00Z\ncurrent_phase: implement\nstatus: interrupted\nmode: autopilot\nphases_completed:\n  - {phase: create, agent: sm, output: docs/stories/4.2.s.md}\n  - {phase: validate, agent: po, output: docs/stories/4.2.s.md}\n",
		"docs/stories/4.2.s.md":             "# Story 4.2: S\n\n**Status:** InProgress\n\n## Acceptance Criteria\n1. **Given** x\n",
	}
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	env := append(os.Environ(), "ORCHESTRATE_NOW=2026-11-20T12:00:00Z", "HOME="+home, "XDG_CONFIG_HOME="+home+"/.config", "NO_COLOR=1", "GORACE=atexit_sleep_ms=0")
	return dir, env
}

// The built program over stdio, with the SDK's client: the tools answer,
// a claim holds the lock until it is released, and the log names the holder.
func TestMCPOverStdio(t *testing.T) {
	bin := orchestrateBinary(t)
	dir, env := mcpRepo(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "mcp", "--repo", dir)
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	c, err := mcp.ConnectCommand(ctx, cmd, "e2e-agent")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.ServerName(), "orchestrate ") {
		t.Errorf("serverInfo: %q", c.ServerName())
	}
	res, err := c.Call(ctx, "workflows", nil)
	if err != nil || res.IsError || !strings.Contains(res.Text, `"id": "workflow:sdc-1"`) {
		t.Fatalf("workflows: %v %s", err, res.Text)
	}
	res, err = c.Call(ctx, "plan", map[string]any{"workflow": "nope"})
	if err != nil || !res.IsError || !strings.Contains(res.Text, `"exit_code": 14`) {
		t.Errorf("plan of an unknown workflow: %v %s", err, res.Text)
	}
	res, err = c.Call(ctx, "claim", map[string]any{"workflow": "sdc-1"})
	if err != nil || res.IsError || !strings.Contains(res.Text, `"holder": "e2e-agent"`) {
		t.Fatalf("claim: %v %s", err, res.Text)
	}
	if _, err := os.Stat(handoff.LockPath(dir, "workflow:sdc-1")); err != nil {
		t.Errorf("no lock while claimed: %v", err)
	}
	res, err = c.Call(ctx, "release", map[string]any{"workflow": "workflow:sdc-1", "outcome": "done"})
	if err != nil || res.IsError {
		t.Fatalf("release: %v %s", err, res.Text)
	}
	if _, err := os.Stat(handoff.LockPath(dir, "workflow:sdc-1")); err == nil {
		t.Error("the lock outlived the release")
	}
	res, err = c.Call(ctx, "log", nil)
	if err != nil || !strings.Contains(res.Text, `"holder": "e2e-agent"`) || !strings.Contains(res.Text, `"event": "claim.released"`) {
		t.Errorf("log: %v %s", err, res.Text)
	}
	if err := c.Close(); err != nil {
		t.Errorf("close: %v (stderr: %s)", err, stderr.String())
	}
}

// Only protocol messages reach stdout: every line the program writes is a
// JSON-RPC message, even when a tool fails and warnings are printed (they
// go to stderr).
func TestMCPStdoutIsProtocolOnly(t *testing.T) {
	bin := orchestrateBinary(t)
	dir, env := mcpRepo(t)
	// an untrusted repository configuration: the trust notice goes to stderr
	if err := os.WriteFile(filepath.Join(dir, ".orchestrate.yaml"), []byte("handoff:\n  command: echo hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp", "--repo", dir)
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"workflows","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"claim","arguments":{"workflow":"nope"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"resume_context","arguments":{"workflow":"sdc-1"}}}`,
	}, "\n") + "\n"
	stdin, stdout, sc := startRaw(t, cmd, in)
	seen := map[float64]map[string]any{}
	for len(seen) < 5 && sc.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg["jsonrpc"] != "2.0" {
			t.Fatalf("stdout carries a line that is not a JSON-RPC message: %q", sc.Text())
		}
		if id, ok := msg["id"].(float64); ok {
			seen[id] = msg
		}
	}
	_ = stdin.Close()
	rest := bufio.NewScanner(stdout)
	for rest.Scan() {
		if !json.Valid(rest.Bytes()) {
			t.Errorf("stdout carries a line that is not JSON: %q", rest.Text())
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("orchestrate mcp ended with %v (stderr: %s)", err, stderr.String())
	}
	if len(seen) != 5 {
		t.Fatalf("%d answers, want 5 (stderr: %s)", len(seen), stderr.String())
	}
	for id := 1.0; id <= 5; id++ {
		if seen[id]["error"] != nil {
			t.Errorf("request %v: a protocol failure: %v", id, seen[id]["error"])
		}
	}
	if r, _ := seen[4]["result"].(map[string]any); r == nil || r["isError"] != true {
		t.Errorf("claim of an unknown workflow: not a tool error: %v", seen[4])
	}
	if !strings.Contains(stderr.String(), "waiting for trust") {
		t.Errorf("the trust notice did not go to stderr: %q", stderr.String())
	}
}

// startRaw starts cmd (an orchestrate mcp), writes in to its stdin, and
// returns its stdin, its stdout and a scanner of its stdout's lines.
func startRaw(t *testing.T, cmd *exec.Cmd, in string) (io.WriteCloser, io.Reader, *bufio.Scanner) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := stdin.Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	return stdin, stdout, sc
}

// A line that is not a JSON-RPC message costs the client an error answer
// (id null: -32700 for a line that is not JSON, -32600 for JSON that is not
// a message), not its session: the requests after it are answered.
func TestMCPBadLinesDoNotEndTheSession(t *testing.T) {
	bin := orchestrateBinary(t)
	dir, env := mcpRepo(t)
	cmd := exec.Command(bin, "mcp", "--repo", dir)
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`this is not json`,
		`{"foo": 1}`,
		``,
		`[]`,
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}\r",
	}, "\n") + "\n"
	stdin, _, sc := startRaw(t, cmd, in)
	var codes []float64
	answered := map[float64]bool{}
	// every answer expected (the server may write them in any order); a
	// missing one ends the session after a while (stdin closed)
	giveUp := time.AfterFunc(20*time.Second, func() { _ = stdin.Close() })
	defer giveUp.Stop()
	for !(answered[2] && len(codes) >= 3) && sc.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg["jsonrpc"] != "2.0" {
			t.Fatalf("stdout carries a line that is not a JSON-RPC message: %q", sc.Text())
		}
		if id, ok := msg["id"].(float64); ok {
			answered[id] = true
			continue
		}
		e, _ := msg["error"].(map[string]any)
		if _, hasID := msg["id"]; !hasID || msg["id"] != nil || e == nil {
			t.Errorf("an answer to a bad line: %q", sc.Text())
			continue
		}
		code, _ := e["code"].(float64)
		codes = append(codes, code)
	}
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("orchestrate mcp ended with %v (stderr: %s)", err, stderr.String())
	}
	if !answered[1] || !answered[2] {
		t.Fatalf("answered %v: the session did not survive the bad lines (stderr: %s)", answered, stderr.String())
	}
	if want := []float64{-32700, -32600, -32600}; len(codes) != len(want) || codes[0] != want[0] || codes[1] != want[1] || codes[2] != want[2] {
		t.Errorf("error codes %v, want %v", codes, want)
	}
}

// A batch costs a client of MCP 2025-06-18 or later one error answer
// (-32600, id null), not its session, as a bad line does; a client of an
// earlier version has its batch answered (an array of answers).
func TestMCPBatchByProtocolVersion(t *testing.T) {
	bin := orchestrateBinary(t)
	dir, env := mcpRepo(t)
	for _, tc := range []struct {
		version   string
		batchOK   bool
		errorCode float64
	}{
		{version: "2025-03-26", batchOK: true},
		{version: "2025-06-18", errorCode: -32600},
		{version: "2025-11-25", errorCode: -32600},
	} {
		t.Run(tc.version, func(t *testing.T) {
			cmd := exec.Command(bin, "mcp", "--repo", dir)
			cmd.Env = env
			var stderr strings.Builder
			cmd.Stderr = &stderr
			stdin, _, sc := startRaw(t, cmd, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+tc.version+`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
			// a client waits for the answer to initialize before it goes on
			if !sc.Scan() || !strings.Contains(sc.Text(), `"id":1`) {
				t.Fatalf("no answer to initialize: %q (stderr: %s)", sc.Text(), stderr.String())
			}
			rest := strings.Join([]string{
				`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
				`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
				`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
			}, "\n") + "\n"
			if _, err := stdin.Write([]byte(rest)); err != nil {
				t.Fatal(err)
			}
			answered := map[float64]bool{}
			var codes []float64
			// the server answers requests concurrently: the answer to 4 may
			// come before the batch's (or its error), so read until every
			// answer expected is in; a missing one ends the session after a
			// while (stdin closed), never a hang
			done := func() bool {
				if tc.batchOK {
					return answered[2] && answered[3] && answered[4]
				}
				return answered[4] && len(codes) > 0
			}
			giveUp := time.AfterFunc(20*time.Second, func() { _ = stdin.Close() })
			defer giveUp.Stop()
			for !done() && sc.Scan() {
				line := sc.Bytes()
				if len(line) > 0 && line[0] == '[' {
					var batch []map[string]any
					if err := json.Unmarshal(line, &batch); err != nil {
						t.Fatalf("a batch answer that is not JSON: %q", line)
					}
					for _, m := range batch {
						if id, ok := m["id"].(float64); ok && m["error"] == nil {
							answered[id] = true
						}
					}
					continue
				}
				var msg map[string]any
				if err := json.Unmarshal(line, &msg); err != nil {
					t.Fatalf("not JSON: %q", line)
				}
				if id, ok := msg["id"].(float64); ok {
					answered[id] = true
				} else if e, _ := msg["error"].(map[string]any); e != nil && msg["id"] == nil {
					code, _ := e["code"].(float64)
					codes = append(codes, code)
				}
			}
			_ = stdin.Close()
			if err := cmd.Wait(); err != nil {
				t.Errorf("orchestrate mcp ended with %v (stderr: %s)", err, stderr.String())
			}
			if !answered[4] {
				t.Fatalf("the request after the batch was not answered: the session ended (stderr: %s)", stderr.String())
			}
			if got := answered[2] && answered[3]; got != tc.batchOK {
				t.Errorf("batch answered %v, want %v", got, tc.batchOK)
			}
			if tc.errorCode != 0 && (len(codes) != 1 || codes[0] != tc.errorCode) {
				t.Errorf("error answers %v, want one %v", codes, tc.errorCode)
			}
			if tc.errorCode == 0 && len(codes) != 0 {
				t.Errorf("error answers %v, want none", codes)
			}
		})
	}
}
