package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// handoff.agent: a preset name or a usage error; a repository's is withheld
// until trusted (it runs a program); with handoff.command set too the
// command wins and a warning says so.
func TestHandoffAgent(t *testing.T) {
	for _, tc := range []struct {
		name, repo, user string
		env              map[string]string
		agent            string
		findSession      bool
		withheld         []string
		warn, err        string
	}{
		{name: "user preset", user: "handoff:\n  agent: codex\n  find_session: true\n", agent: "codex", findSession: true},
		{name: "env preset", env: map[string]string{"ORCHESTRATE_HANDOFF_AGENT": "gemini"}, agent: "gemini"},
		{name: "unknown preset", user: "handoff:\n  agent: aider\n", err: `handoff.agent in ~/.config/orchestrate/config.yaml: "aider" is not a preset (claude, codex, gemini, cursor, opencode)`},
		{name: "unknown preset from the environment", env: map[string]string{"ORCHESTRATE_HANDOFF_AGENT": "Claude"}, err: `ORCHESTRATE_HANDOFF_AGENT: "Claude" is not a preset`},
		{name: "untrusted repository preset withheld", repo: "handoff:\n  agent: claude\n  find_session: true\n",
			withheld: []string{"handoff.agent", "handoff.find_session"}},
		{name: "command wins", user: "handoff:\n  agent: claude\n  command: 'echo x'\n", agent: "claude",
			warn: "handoff.agent in ~/.config/orchestrate/config.yaml (claude) is ignored: handoff.command is set too"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, home := t.TempDir(), t.TempDir()
			env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
			for k, v := range tc.env {
				env[k] = v
			}
			if tc.repo != "" {
				writeFile(t, filepath.Join(root, RepoFileName), tc.repo)
			}
			if tc.user != "" {
				writeFile(t, filepath.Join(home, ".config", "orchestrate", "config.yaml"), tc.user)
			}
			cl, err := Load(LoadOptions{Root: root, Getenv: func(k string) string { return env[k] }})
			if tc.err != "" {
				var ue *UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want a usage error containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cl.Config.Handoff.Agent != tc.agent || cl.Config.Handoff.FindSession != tc.findSession {
				t.Errorf("agent %q find_session %v, want %q %v", cl.Config.Handoff.Agent, cl.Config.Handoff.FindSession, tc.agent, tc.findSession)
			}
			var withheld []string
			if cl.Repo != nil {
				withheld = cl.Repo.Withheld
				if len(tc.withheld) > 0 && !cl.Repo.NeedsTrust() {
					t.Error("a withheld preset does not ask for trust")
				}
			}
			if strings.Join(withheld, ",") != strings.Join(tc.withheld, ",") {
				t.Errorf("withheld %q, want %q", withheld, tc.withheld)
			}
			joined := strings.Join(cl.Warnings, "\n")
			if (tc.warn == "") != (joined == "") || !strings.Contains(joined, tc.warn) {
				t.Errorf("warnings %q, want one containing %q", joined, tc.warn)
			}
			if len(tc.withheld) > 0 {
				cfg, err := cl.ApplyTrusted()
				if err != nil || cfg.Handoff.Agent != "claude" || !cfg.Handoff.FindSession {
					t.Errorf("after trust: %+v, %v", cfg.Handoff, err)
				}
			}
		})
	}
}
