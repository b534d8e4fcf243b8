package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/config/configtest"
	"github.com/orchestrate-dev/orchestrate/modes"
)

// configEnv is configtest.Env: a repository root, a home and an injected
// environment for a configuration test.
var configEnv = configtest.Env

// A bad mode says where it came from: the flag, the environment variable,
// the configuration file; a mode a higher layer sets wins without an error.
func TestResumeModeSource(t *testing.T) {
	const userFile = "~/.config/orchestrate/config.yaml"
	for _, tc := range []struct {
		name       string
		repo, user string
		explicit   string // a --config file's content
		env        map[string]string
		flag       string
		want       modes.Mode
		err        string
	}{
		{name: "nothing set", want: ""},
		{name: "flag", flag: "bogus", err: `--mode "bogus" is not a mode (autopilot, interactive, preflight)`},
		{name: "short variable", env: map[string]string{"ORCHESTRATE_MODE": "bogus"}, err: `ORCHESTRATE_MODE: "bogus" is not a mode (autopilot, interactive, preflight)`},
		{name: "long variable", env: map[string]string{"ORCHESTRATE_RESUME_MODE": "bogus"}, err: `ORCHESTRATE_RESUME_MODE: "bogus" is not a mode (autopilot, interactive, preflight)`},
		{name: "repository file", repo: "resume:\n  mode: bogus\n", err: `resume.mode in .orchestrate.yaml: "bogus" is not a mode (autopilot, interactive, preflight)`},
		{name: "user file", user: "resume: {mode: nope}\n", err: `resume.mode in ` + userFile + `: "nope" is not a mode (autopilot, interactive, preflight)`},
		{name: "user file over a good repository file", repo: "resume: {mode: autopilot}\n", user: "resume: {mode: nope}\n", err: `resume.mode in ` + userFile + `: "nope"`},
		{name: "--config file", explicit: "resume: {mode: nope}\n", err: `resume.mode in c.yaml: "nope"`},
		{name: "flag over a bad file", repo: "resume:\n  mode: bogus\n", flag: "auto", want: modes.ModeAutopilot},
		{name: "environment over a bad file", user: "resume:\n  mode: bogus\n", env: map[string]string{"ORCHESTRATE_MODE": "preflight"}, want: modes.ModePreflight},
		{name: "good file", repo: "resume:\n  mode: Pre-Flight\n", want: modes.ModePreflight},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, home, getenv := configEnv(t, tc.repo, tc.user, tc.env)
			explicit := ""
			if tc.explicit != "" {
				explicit = "c.yaml"
				writeFile(t, filepath.Join(home, explicit), tc.explicit)
				t.Chdir(home)
			}
			cl, err := config.Load(config.LoadOptions{Root: root, Explicit: explicit, Getenv: getenv})
			if err != nil {
				t.Fatal(err)
			}
			m, err := resumeMode(cl, tc.flag)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) || cmdutil.CodeOf(err) != cmdutil.ExitUsage {
					t.Fatalf("error %v (exit %d), want exit 2 with %s", err, cmdutil.CodeOf(err), tc.err)
				}
				return
			}
			if err != nil || m != tc.want {
				t.Errorf("mode %q, %v; want %q", m, err, tc.want)
			}
		})
	}
}

// `orchestrate trust` without a repository config, with clashing flags,
// and without a home folder.
func TestTrustCommand(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	dir := testRepo(t, map[string]string{"docs/stories/1.1.a.md": "# Story 1.1: A\n**Status:** Done\n"})
	if r := run(t, dir, env, false, "trust"); r.code != 0 || !strings.Contains(r.out.String(), "nothing to trust") {
		t.Errorf("no config: exit %d, %q %q", r.code, r.out.String(), r.err.String())
	}
	if r := run(t, dir, env, false, "trust", "--show", "--revoke"); r.code != cmdutil.ExitUsage {
		t.Errorf("--show --revoke: exit %d", r.code)
	}
	writeFile(t, filepath.Join(dir, config.RepoFileName), "handoff: {command: \"echo \\e[2J\"}\n")
	r := run(t, dir, env, false, "trust")
	if r.code != 0 || !strings.Contains(r.out.String(), `handoff.command: "echo \x1b[2J"`) || strings.Contains(r.out.String(), "\x1b") {
		t.Errorf("trust: exit %d, %q %q", r.code, r.out.String(), r.err.String())
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "orchestrate", "trusted.json")); err != nil {
		t.Errorf("no store: %v", err)
	}
	if r := run(t, dir, nil, false, "trust"); r.code != cmdutil.ExitError || !strings.Contains(r.err.String(), "HOME") {
		t.Errorf("no home: exit %d, %q", r.code, r.err.String())
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

// A configuration problem for the user is exit 2; an I/O error stays 1.
func TestConfigErr(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, cmdutil.ExitOK},
		{"usage", &config.UsageError{Err: errors.New("bad")}, cmdutil.ExitUsage},
		{"wrapped usage", fmt.Errorf("x: %w", &config.UsageError{Err: errors.New("bad")}), cmdutil.ExitUsage},
		{"other", errors.New("disk"), cmdutil.ExitError},
	} {
		if got := cmdutil.CodeOf(configErr(tc.err)); got != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.want)
		}
	}
}
