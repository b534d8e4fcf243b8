package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/app/cli/jsondoc"
	"github.com/orchestrate-dev/orchestrate/modes/prompttest"
)

// --find-session on a terminal: the Codex session of this repository that
// touched the workflow's state is offered through the prompter, and once
// confirmed the codex preset resumes it (headless: stdin is no terminal).
func TestFindSessionConfirmed(t *testing.T) {
	dir := testRepo(t, map[string]string{
		".orchestrate/workflows/sdc-1.yaml": strings.Replace(sdcState, "%s", "interactive", 1),
		"docs/stories/4.2.s.md":             story42,
		".orchestrate.yaml":                 "handoff:\n  agent: codex\n",
	})
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	home, bin := t.TempDir(), t.TempDir()
	rollout := filepath.Join(home, ".codex", "sessions", "2026", "11", "20", "rollout-2026-11-20T11-00-00-0199a.jsonl")
	if err := os.MkdirAll(filepath.Dir(rollout), 0o755); err != nil {
		t.Fatal(err)
	}
	transcript := `{"type":"session_meta","payload":{"id":"0199a","cwd":"` + root + `"}}` + "\n" +
		`{"type":"event_msg","payload":{"type":"user_message","message":"finish story 4.2"}}` + "\n" +
		`{"type":"response_item","payload":{"type":"function_call","arguments":"cat .orchestrate/workflows/sdc-1.yaml"}}` + "\n"
	if err := os.WriteFile(rollout, []byte(transcript), 0o600); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 20, 11, 0, 0, 0, time.UTC)
	if err := os.Chtimes(rollout, at, at); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > \"$ORCHESTRATE_ROOT/argv.txt\"\n"
	if err := os.WriteFile(filepath.Join(bin, "codex"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := prompttest.Answering("yes")
	r := &fakeRun{}
	sys := System{
		IO: IOStreams{In: strings.NewReader(""), Out: &r.out, ErrOut: &r.err, InTTY: true, ErrTTY: true},
		Getenv: func(k string) string {
			return map[string]string{"HOME": home, "ORCHESTRATE_TRUST_REPO_CONFIG": "1"}[k]
		},
		Environ:  func() []string { return []string{"PATH=" + bin + ":/usr/bin:/bin"} },
		Now:      func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) },
		Getwd:    func() (string, error) { return dir, nil },
		Prompter: p,
	}
	r.code = Main([]string{"resume", "--find-session", "sdc-1"}, sys)
	if r.code != cmdutil.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.out.String(), r.err.String())
	}
	asked := strings.Join(p.Messages(), "\n")
	if !strings.Contains(asked, `The state names no agent session. Resume codex session 0199a (last active 1 hour ago, "finish story 4.2"), the most recent of this repository that touched .orchestrate/workflows/sdc-1.yaml?`) {
		t.Errorf("not offered; asked:\n%s", asked)
	}
	argv, _ := os.ReadFile(filepath.Join(dir, "argv.txt"))
	if !strings.HasPrefix(string(argv), "exec\nresume\n0199a\norchestrate is handing workflow") {
		t.Errorf("codex ran with %q", argv)
	}
}

// TestStatusJSONPreset: status --json carries the hand-off preset's
// command (handoff_agent, handoff_command) for a resumable workflow, as
// the human status shows it; none without a preset or when handoff.command
// wins (a refused command, handoff_refused: lifecycle/preset_refused.txtar).
func TestStatusJSONPreset(t *testing.T) {
	tests := []struct {
		name, config      string
		agent, cmd, refus string
	}{
		{"codex", "handoff:\n  agent: codex\n", "codex", "codex exec 'orchestrate is handing you the interrupted workflow workflow:sdc-1: resume it at Implementation (agent @dev)", ""},
		{"claude", "handoff:\n  agent: claude\n", "claude", "claude -p 'orchestrate is handing you the interrupted workflow workflow:sdc-1: resume it at Implementation (agent @dev)", ""},
		{"none", "", "", "", ""},
		{"command wins", "handoff:\n  agent: codex\n  command: 'echo x'\n", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{
				".orchestrate/workflows/sdc-1.yaml": strings.Replace(sdcState, "%s", "interactive", 1),
				"docs/stories/4.2.s.md":             story42,
			}
			if tt.config != "" {
				files[".orchestrate.yaml"] = tt.config
			}
			dir := testRepo(t, files)
			r := run(t, dir, map[string]string{"ORCHESTRATE_TRUST_REPO_CONFIG": "1"}, false, "status", "--json")
			if r.code != cmdutil.ExitOK {
				t.Fatalf("exit %d\n%s", r.code, r.err.String())
			}
			var doc struct {
				Candidates []jsondoc.Candidate `json:"candidates"`
			}
			if err := json.Unmarshal(r.out.Bytes(), &doc); err != nil || len(doc.Candidates) != 1 {
				t.Fatalf("decode: %v\n%s", err, r.out.String())
			}
			c := doc.Candidates[0]
			if c.HandoffAgent != tt.agent || !strings.HasPrefix(c.HandoffCommand, tt.cmd) || (tt.cmd == "") != (c.HandoffCommand == "") ||
				!strings.Contains(c.HandoffRefused, tt.refus) || (tt.refus == "") != (c.HandoffRefused == "") {
				t.Errorf("agent %q command %q refused %q, want %q %q… %q", c.HandoffAgent, c.HandoffCommand, c.HandoffRefused, tt.agent, tt.cmd, tt.refus)
			}
		})
	}
}
