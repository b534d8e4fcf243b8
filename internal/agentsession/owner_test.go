package agentsession

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestOwners(t *testing.T) {
	home, root := t.TempDir(), "/work/my.repo"
	proj := filepath.Join(home, ".claude", "projects", "-work-my-repo")
	write(t, filepath.Join(proj, "5f1e0c2a-claude.jsonl"), claudeLine("x"), t0)
	day := filepath.Join(home, ".codex", "sessions", "2026", "11", "20")
	write(t, filepath.Join(day, "rollout-2026-11-20T10-00-00-0199a0b1-codex.jsonl"), "{}\n", t0)
	write(t, filepath.Join(day, "rollout-2026-11-20T10-00-00-both-1.jsonl"), "{}\n", t0)
	write(t, filepath.Join(proj, "both-1.jsonl"), "{}\n", t0)
	// another repository's Claude folder: not this root's session
	write(t, filepath.Join(home, ".claude", "projects", "-other", "9999-elsewhere.jsonl"), "{}\n", t0)
	// a symlinked transcript and a FIFO named like one: not sessions
	outside := filepath.Join(t.TempDir(), "x.jsonl")
	write(t, outside, "{}\n", t0)
	if err := os.Symlink(outside, filepath.Join(proj, "link-id.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(day, "rollout-2026-11-20T11-00-00-fifo-id.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home}
	q := Query{Getenv: func(k string) string { return env[k] }, Root: root}
	for _, tc := range []struct{ id, want string }{
		{"5f1e0c2a-claude", Claude},
		{"0199a0b1-codex", Codex},
		{"both-1", "claude,codex"},
		{"9999-elsewhere", ""},
		{"link-id", ""},
		{"fifo-id", ""},
		{"unknown", ""},
		{"", ""},
		{"-rf", ""},
		{"../../etc/passwd", ""},
		{"a/b", ""},
		{"codex", ""}, // a name's tail, not an id
	} {
		if got := strings.Join(Owners(tc.id, q), ","); got != tc.want {
			t.Errorf("Owners(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
	if got := strings.Join(Owners("5f1e0c2a-claude", Query{Getenv: q.Getenv, Root: "relative"}), ","); got != "" {
		t.Errorf("a relative root: %q", got)
	}
	// CODEX_HOME and CLAUDE_CONFIG_DIR move the folders
	env["CODEX_HOME"], env["CLAUDE_CONFIG_DIR"] = t.TempDir(), t.TempDir()
	if got := strings.Join(Owners("0199a0b1-codex", q), ","); got != "" {
		t.Errorf("CODEX_HOME ignored: %q", got)
	}
	if got := strings.Join(Owners("5f1e0c2a-claude", q), ","); got != "" {
		t.Errorf("CLAUDE_CONFIG_DIR ignored: %q", got)
	}
	// no home at all
	if got := strings.Join(Owners("5f1e0c2a-claude", Query{Root: root}), ","); got != "" {
		t.Errorf("no home: %q", got)
	}
}

func TestRolloutID(t *testing.T) {
	for name, want := range map[string]string{
		"rollout-2025-05-07T17-24-21-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl": "5973b6c0-94b8-487b-a530-2aeb6098ae0e",
		"rollout-2025-05-07T17-24-21-x.jsonl":                                    "x",
		"rollout-2025-05-07T17-24-21.jsonl":                                      "",
		"rollout-2025-05-07X17-24-21-x.jsonl":                                    "",
		"rollout-2025-0a-07T17-24-21-x.jsonl":                                    "",
		"rollout-x.jsonl":                                                        "",
		"other-2025-05-07T17-24-21-x.jsonl":                                      "",
	} {
		if got := rolloutID(name); got != want {
			t.Errorf("rolloutID(%q) = %q, want %q", name, got, want)
		}
	}
}
