package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/trust"
)

// Precedence: flag > environment > the user's config > the repository's
// .orchestrate.yaml > default; the repository's privileged keys only from a
// trusted file; its paths only inside the repository.
func TestConfigPrecedence(t *testing.T) {
	const repoCmd = "handoff:\n  command: 'echo repo'\n"
	for _, tc := range []struct {
		name    string
		repo    string            // .orchestrate.yaml ("" none)
		user    string            // $XDG_CONFIG_HOME/orchestrate/config.yaml ("" none)
		env     map[string]string // the injected environment (getenv)
		trusted bool              // the repository file is in the trust store
		changed bool              // ...but was edited since

		command, logPath, templates, stories string
		timeout                              time.Duration
		withheld                             []string
		needs                                bool
		state                                trust.State
		warn                                 string // a warning containing this ("" none)
	}{
		{name: "defaults", command: "", logPath: ".orchestrate/log.jsonl", templates: "none", stories: "docs/stories/**/*.md"},
		{name: "repo untrusted: command withheld, other settings apply",
			repo:    repoCmd + "sources:\n  stories: [\"s/*.md\"]\nhandoff_timeout_is_not_a_key: 1\n",
			command: "", stories: "s/*.md", withheld: []string{"handoff.command"}, needs: true, warn: "unknown key handoff_timeout_is_not_a_key"},
		{name: "repo trusted", repo: repoCmd, trusted: true, command: "echo repo", state: trust.Trusted},
		{name: "repo edited since trusted", repo: repoCmd, trusted: true, changed: true, command: "", withheld: []string{"handoff.command"}, needs: true, state: trust.Changed},
		{name: "repo trusted by the environment", repo: repoCmd, env: map[string]string{EnvTrustRepoConfig: "1"}, command: "echo repo"},
		{name: "user beats untrusted repo", repo: repoCmd, user: "handoff:\n  command: 'echo user'\n", command: "echo user"},
		{name: "user beats trusted repo", repo: repoCmd, trusted: true, user: "handoff:\n  command: 'echo user'\n", command: "echo user", state: trust.Trusted},
		{name: "user beats repo for plain keys", repo: "sources:\n  stories: [\"r/*.md\"]\n", user: "sources:\n  stories: [\"u/*.md\"]\n", stories: "u/*.md"},
		{name: "env beats user", repo: repoCmd, user: "handoff:\n  command: 'echo user'\n", env: map[string]string{"ORCHESTRATE_HANDOFF_COMMAND": "echo env"}, command: "echo env"},
		{name: "env beats untrusted repo, nothing withheld", repo: repoCmd, env: map[string]string{"ORCHESTRATE_HANDOFF_COMMAND": "echo env"}, command: "echo env"},
		{name: "fallback command withheld", repo: "handoff:\n  fallback_command: 'echo fb'\n", withheld: []string{"handoff.fallback_command"}, needs: true},
		{name: "dotted key is the same key", repo: "\"handoff.command\": 'echo dotted'\n", withheld: []string{"handoff.command"}, needs: true},
		{name: "upper-case keys are the same keys", repo: "Handoff:\n  Command: 'echo upper'\n", withheld: []string{"handoff.command"}, needs: true},
		{name: "untrusted paths ignored with a warning", repo: "log_path: my/log.jsonl\ntemplates_dir: my/t\n",
			logPath: ".orchestrate/log.jsonl", templates: "none", withheld: []string{"log_path", "templates_dir"}, warn: "ignoring log_path, templates_dir"},
		{name: "trusted in-repo paths apply", repo: "log_path: my/log.jsonl\ntemplates_dir: my/t\n", trusted: true, logPath: "my/log.jsonl", templates: "my/t", state: trust.Trusted},
		{name: "trusted escaping log_path ignored", repo: "log_path: ../../outside\n", trusted: true, logPath: ".orchestrate/log.jsonl", state: trust.Trusted, warn: "ignoring log_path '../../outside'"},
		{name: "absolute templates_dir ignored", repo: "templates_dir: /etc\n", trusted: true, templates: ".orchestrate/templates", state: trust.Trusted, warn: "ignoring templates_dir '/etc'"},
		{name: "user's absolute log_path honoured", user: "log_path: /var/tmp/o.jsonl\n", logPath: "/var/tmp/o.jsonl"},
		{name: "steering key alone: ignored, not needed", repo: "handoff:\n  session_gone_pattern: '.*'\n", user: "handoff:\n  command: 'echo user'\n",
			command: "echo user", withheld: []string{"handoff.session_gone_pattern"}, warn: "ignoring handoff.session_gone_pattern"},
		{name: "handoff.timeout is not privileged", repo: "handoff:\n  timeout: 30s\n", timeout: 30 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, home := t.TempDir(), t.TempDir()
			env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
			for k, v := range tc.env {
				env[k] = v
			}
			getenv := func(k string) string { return env[k] }
			repoPath := filepath.Join(root, RepoFileName)
			if tc.repo != "" {
				writeFile(t, repoPath, tc.repo)
			}
			if tc.user != "" {
				writeFile(t, filepath.Join(home, ".config", "orchestrate", "config.yaml"), tc.user)
			}
			if tc.trusted {
				store, err := trust.Open(getenv)
				if err != nil {
					t.Fatal(err)
				}
				data := []byte(tc.repo)
				if tc.changed {
					data = append([]byte("# before the edit\n"), data...)
				}
				if err := store.Trust(repoPath, data); err != nil {
					t.Fatal(err)
				}
			}
			cl, err := Load(LoadOptions{Root: root, Explicit: "", Getenv: getenv})
			if err != nil {
				t.Fatal(err)
			}
			cfg := cl.Config
			if cfg.Handoff.Command != tc.command {
				t.Errorf("handoff.command = %q, want %q", cfg.Handoff.Command, tc.command)
			}
			check := func(name, got, want string) {
				if want != "" && got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			check("log_path", cfg.LogPath, tc.logPath)
			if tc.templates == "none" {
				tc.templates = "" // no templates folder: nothing trusts one
				if cfg.TemplatesDir != "" {
					t.Errorf("templates_dir = %q, want none", cfg.TemplatesDir)
				}
			}
			check("templates_dir", cfg.TemplatesDir, tc.templates)
			check("sources.stories", strings.Join(cfg.Sources.Stories, ","), tc.stories)
			if cfg.Handoff.Timeout != tc.timeout {
				t.Errorf("handoff.timeout = %v, want %v", cfg.Handoff.Timeout, tc.timeout)
			}
			var withheld []string
			needs := false
			if cl.Repo != nil {
				withheld, needs = cl.Repo.Withheld, cl.Repo.NeedsTrust()
				if cl.Repo.HasPrivileged() && cl.Repo.State != tc.state {
					t.Errorf("state %v, want %v", cl.Repo.State, tc.state)
				}
			}
			if !slices.Equal(withheld, tc.withheld) || needs != tc.needs {
				t.Errorf("withheld %q (needs trust %v), want %q (%v)", withheld, needs, tc.withheld, tc.needs)
			}
			joined := strings.Join(cl.Warnings, "\n")
			if (tc.warn == "") != (joined == "") || !strings.Contains(joined, tc.warn) {
				t.Errorf("warnings %q, want one containing %q", joined, tc.warn)
			}
			if needs {
				// trusting it at the prompt applies the withheld settings
				cfg, err := cl.ApplyTrusted()
				if err != nil {
					t.Fatal(err)
				}
				if cfg.Handoff.Command == "" && cfg.Handoff.FallbackCommand == "" {
					t.Errorf("after trust: no command applied")
				}
				if cl.Repo.NeedsTrust() {
					t.Error("after trust: still needs trust")
				}
			}
		})
	}
}

// --config names the one file read, trusted as the user's own: the
// repository's file is not read at all.
// TestConfigInjectedEnvOnly: viper sees the injected environment, never the
// process's own.
func TestConfigInjectedEnvOnly(t *testing.T) {
	for _, tc := range []struct {
		name     string
		process  map[string]string // the real process environment
		injected map[string]string // what getenv returns
		want     string            // resume.mode
	}{
		{name: "process env ignored", process: map[string]string{"ORCHESTRATE_RESUME_MODE": "autopilot", "ORCHESTRATE_MODE": "preflight"}, want: ""},
		{name: "injected long name", injected: map[string]string{"ORCHESTRATE_RESUME_MODE": "autopilot"}, want: "autopilot"},
		{name: "injected short name wins", injected: map[string]string{"ORCHESTRATE_MODE": "preflight", "ORCHESTRATE_RESUME_MODE": "autopilot"}, want: "preflight"},
		{name: "injected over process", process: map[string]string{"ORCHESTRATE_RESUME_MODE": "autopilot"}, injected: map[string]string{"ORCHESTRATE_RESUME_MODE": "interactive"}, want: "interactive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, home := t.TempDir(), t.TempDir()
			for k, v := range tc.process {
				t.Setenv(k, v)
			}
			env := map[string]string{"HOME": home}
			for k, v := range tc.injected {
				env[k] = v
			}
			for _, explicit := range []string{"", filepath.Join(home, "c.yaml")} {
				if explicit != "" {
					writeFile(t, explicit, "stories_dir: docs\n")
				}
				cl, err := Load(LoadOptions{Root: root, Explicit: explicit, Getenv: func(k string) string { return env[k] }})
				if err != nil {
					t.Fatal(err)
				}
				if got := cl.Get("resume.mode"); got != tc.want {
					t.Errorf("explicit %q: resume.mode = %q, want %q", explicit, got, tc.want)
				}
				if cl.Config.Resume.Mode != tc.want {
					t.Errorf("explicit %q: Config.Resume.Mode = %q, want %q", explicit, cl.Config.Resume.Mode, tc.want)
				}
			}
		})
	}
}

func TestExplicitConfig(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(root, RepoFileName), "handoff: {command: 'echo repo'}\nlog_path: r.jsonl\n")
	explicit := filepath.Join(home, "mine.yaml")
	writeFile(t, explicit, "handoff: {command: 'echo mine'}\n")
	cl, err := Load(LoadOptions{Root: root, Explicit: explicit, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if cl.Config.Handoff.Command != "echo mine" || cl.Config.LogPath != ".orchestrate/log.jsonl" || cl.Repo != nil {
		t.Errorf("got command %q, log %q, repo %v", cl.Config.Handoff.Command, cl.Config.LogPath, cl.Repo)
	}
	if _, err := Load(LoadOptions{Root: root, Explicit: filepath.Join(home, "none.yaml"), Getenv: func(string) string { return "" }}); !isUsage(err) {
		t.Errorf("missing --config file: %v, want a usage error", err)
	}
}

// Every configuration file is read bounded and without blocking; the
// repository's may not be a symlink out of it.
func TestReadConfigFile(t *testing.T) {
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "x.yaml"), "a: 1\n")
	for _, tc := range []struct {
		name   string
		make   func(t *testing.T, path, root string)
		inRepo bool
		want   string // "" ok, "notexist", else part of the error
	}{
		{"regular", func(t *testing.T, p, _ string) { writeFile(t, p, "a: 1\n") }, true, ""},
		{"missing", func(t *testing.T, p, _ string) {}, true, "notexist"},
		{"too big", func(t *testing.T, p, _ string) { writeFile(t, p, strings.Repeat("#", maxFileSize+1)) }, true, "larger than"},
		{"folder", func(t *testing.T, p, _ string) { os.Mkdir(p, 0o755) }, true, "not a regular file"},
		{"fifo", func(t *testing.T, p, _ string) { syscall.Mkfifo(p, 0o644) }, true, "not a regular file"},
		{"symlink inside", func(t *testing.T, p, root string) {
			writeFile(t, filepath.Join(root, "conf", "real.yaml"), "a: 1\n")
			os.Symlink("conf/real.yaml", p)
		}, true, ""},
		{"symlink outside", func(t *testing.T, p, _ string) { os.Symlink(filepath.Join(outside, "x.yaml"), p) }, true, "outside the repository"},
		{"symlink to /dev/zero", func(t *testing.T, p, _ string) { os.Symlink("/dev/zero", p) }, true, "outside the repository"},
		{"user file: symlink out is fine", func(t *testing.T, p, _ string) { os.Symlink(filepath.Join(outside, "x.yaml"), p) }, false, ""},
		{"user file: /dev/zero refused", func(t *testing.T, p, _ string) { os.Symlink("/dev/zero", p) }, false, "not a regular file"},
		{"user file: fifo refused", func(t *testing.T, p, _ string) { syscall.Mkfifo(p, 0o644) }, false, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(root, RepoFileName)
			tc.make(t, p, root)
			in := ""
			if tc.inRepo {
				in = root
			}
			start := time.Now()
			data, err := ReadFile(p, in)
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
			switch tc.want {
			case "":
				if err != nil || string(data) != "a: 1\n" {
					t.Errorf("got %q, %v", data, err)
				}
			case "notexist":
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("got %v, want not-exist", err)
				}
			default:
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("got %v, want an error containing %q", err, tc.want)
				}
			}
		})
	}
}

func TestQuoteValue(t *testing.T) {
	for in, want := range map[string]string{
		"claude --resume x": "'claude --resume x'",
		"a\x1b]0;title\x07": `"a\x1b]0;title\a"`,
		"two\nlines":        `"two\nlines"`,
		"rtl\u202e":         `"rtl\u202e"`,
	} {
		if got := QuoteValue(in); got != want {
			t.Errorf("QuoteValue(%q) = %s, want %s", in, got, want)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// isUsage reports whether err is a configuration problem for the user
// (exit 2 in the command layer).
func isUsage(err error) bool {
	var ue *UsageError
	return errors.As(err, &ue)
}

// Overrides (flags such as --mode) win over every other layer, and Get and
// Config both see them.
func TestLoadOverrides(t *testing.T) {
	for _, tc := range []struct {
		name      string
		repo      string
		env       map[string]string
		overrides map[string]any
		want      string // resume.mode
	}{
		{name: "none", repo: "resume: {mode: preflight}\n", want: "preflight"},
		{name: "over the repository file", repo: "resume: {mode: preflight}\n", overrides: map[string]any{"resume.mode": "autopilot"}, want: "autopilot"},
		{name: "over the environment", env: map[string]string{"ORCHESTRATE_MODE": "preflight"}, overrides: map[string]any{"resume.mode": "interactive"}, want: "interactive"},
		{name: "not type-checked here", overrides: map[string]any{"resume.mode": "bogus"}, want: "bogus"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, _, getenv := configEnv(t, tc.repo, "", tc.env)
			cl, err := Load(LoadOptions{Root: root, Getenv: getenv, Overrides: tc.overrides})
			if err != nil {
				t.Fatal(err)
			}
			if got := cl.Get("resume.mode"); got != tc.want {
				t.Errorf("Get = %q, want %q", got, tc.want)
			}
			if cl.Config.Resume.Mode != tc.want {
				t.Errorf("Config.Resume.Mode = %q, want %q", cl.Config.Resume.Mode, tc.want)
			}
		})
	}
}

// A nil Getenv reads nothing (and never the process environment).
func TestLoadNilGetenv(t *testing.T) {
	t.Setenv("ORCHESTRATE_MODE", "autopilot")
	cl, err := Load(LoadOptions{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if got := cl.Get("resume.mode"); got != "" {
		t.Errorf("resume.mode = %q, want none", got)
	}
}
