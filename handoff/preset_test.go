package handoff

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/handoff/agent"
)

// fakePresetAgent puts an executable called name on a PATH of its own that
// records its arguments, one per line, in <root>/argv.txt.
func fakePresetAgent(t *testing.T, root, name string) []string {
	t.Helper()
	bin := t.TempDir()
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > \"$ORCHESTRATE_ROOT/argv.txt\"\n"
	if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"PATH=" + bin + ":/usr/bin:/bin"}
}

func TestExecutePreset(t *testing.T) {
	root, req := fixture(t)
	req.Env = fakePresetAgent(t, root, "claude")
	req.Preset = agent.Claude
	res, err := Execute(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(root, "argv.txt"))
	in := agent.Input{EnvelopePath: res.EnvelopePath, SessionID: "sess-42", WorkflowID: "workflow:sdc-1", Phase: "develop", Agent: "dev"}
	want := strings.Join([]string{"-p", "--resume", "sess-42", agent.Prompt(in)}, "\n") + "\n"
	if string(got) != want {
		t.Errorf("the preset ran with\n%s\nwant (headless: no terminal; resuming the state's session)\n%s", got, want)
	}
	if !strings.HasPrefix(res.Command, "claude -p --resume sess-42 'orchestrate is handing workflow workflow:sdc-1 back") {
		t.Errorf("command = %q", res.Command)
	}
	var handed map[string]any
	for _, ev := range events(t, filepath.Join(root, ".orchestrate", "log.jsonl")) {
		if ev["event"] == EventHandedOff {
			handed = ev
		}
	}
	if handed == nil || handed["handoff_agent"] != "claude" || handed["command"] != res.Command {
		t.Errorf("log record %v", handed)
	}
}

func TestExecutePresetNewSessionAndCommandWins(t *testing.T) {
	root, req := fixture(t)
	req.Env = fakePresetAgent(t, root, "codex")
	req.Candidate.AISessionID = ""
	req.Preset = agent.Codex
	res, err := Execute(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(root, "argv.txt"))
	if !strings.HasPrefix(string(got), "exec\norchestrate is handing you the interrupted workflow workflow:sdc-1: resume it at develop (agent @dev). Read the handoff envelope "+res.EnvelopePath) {
		t.Errorf("new headless codex session: %q", got)
	}

	// handoff.command set too: the template runs, not the preset
	root, req = fixture(t)
	req.Env = fakePresetAgent(t, root, "codex")
	req.Preset = agent.Codex
	req.Command = "echo template > ran.txt"
	if _, err := Execute(req); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "argv.txt")); err == nil {
		t.Error("the preset ran although handoff.command is set")
	}
	if b, _ := os.ReadFile(filepath.Join(root, "ran.txt")); string(b) != "template\n" {
		t.Errorf("the template did not run: %q", b)
	}
}

func TestExecutePresetRefusesOptionSession(t *testing.T) {
	root, req := fixture(t)
	req.Env = fakePresetAgent(t, root, "claude")
	req.Preset = agent.Claude
	req.Candidate.AISessionID = "--dangerously-skip-permissions"
	before := snapshot(t, root)
	_, err := Execute(req)
	var ve *agent.ValueError
	if !errors.As(err, &ve) || ve.Field != "session id" {
		t.Fatalf("err = %v, want a refused session id", err)
	}
	sameSnapshot(t, before, snapshot(t, root))
}

// A headless preset resume whose session is gone (Claude Code's "No
// conversation found", the default handoff.session_gone_pattern) starts a
// new session with the same preset, told to read the envelope, which now
// carries the rebuilt context.
func TestExecutePresetSessionGone(t *testing.T) {
	root, req := fixture(t)
	bin := t.TempDir()
	script := "#!/bin/sh\ncase \"$*\" in *--resume*) echo \"No conversation found with session ID: $3\" >&2; exit 1;; esac\n" +
		"for a in \"$@\"; do printf '%s\\n' \"$a\"; done > \"$ORCHESTRATE_ROOT/argv.txt\"\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	req.Env = []string{"PATH=" + bin + ":/usr/bin:/bin"}
	req.Preset = agent.Claude
	req.SessionGonePattern = `(?i)no conversation found`
	var errOut strings.Builder
	req.Stderr = &errOut
	res, err := Execute(req)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	got, _ := os.ReadFile(filepath.Join(root, "argv.txt"))
	if !strings.HasPrefix(string(got), "-p\norchestrate is handing you the interrupted workflow workflow:sdc-1") {
		t.Errorf("the fallback did not start a new headless session: %q", got)
	}
	if !strings.Contains(errOut.String(), "AI session sess-42 is gone (exit status 1); starting a new session") {
		t.Errorf("stderr: %s", errOut.String())
	}
	if !strings.HasPrefix(res.Command, "claude -p 'orchestrate is handing you") {
		t.Errorf("command = %q", res.Command)
	}
	env, _ := os.ReadFile(res.EnvelopePath)
	if !strings.Contains(string(env), `"previous_ai_session_id"`) || !strings.Contains(string(env), `"rebuilt_context"`) {
		t.Errorf("envelope without the rebuilt context: %s", env)
	}
}
