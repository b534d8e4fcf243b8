package config

import (
	"github.com/orchestrate-dev/orchestrate/internal/config/configtest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// configEnv is configtest.Env: a repository root, a home and an injected
// environment for a configuration test.
var configEnv = configtest.Env

// A wrongly typed value is a usage-class error (exit 2) naming the file as
// the user knows it (or the environment variable), the key, the value and
// what was expected; unknown keys are warnings with the nearest valid key.
func TestConfigErrors(t *testing.T) {
	const userFile = "~/.config/orchestrate/config.yaml: "
	for _, tc := range []struct {
		name     string
		repo     string            // .orchestrate.yaml
		user     string            // the user's config
		explicit string            // a --config file's content (as c.yaml)
		env      map[string]string // the injected environment
		err      string            // the whole error ("" none)
		warns    []string          // the warnings, exactly
	}{
		// each kind, wrong
		{name: "duration in the repository file", repo: "age:\n  stale: three days\n",
			err: `.orchestrate.yaml line 2: age.stale: "three days" is not a duration (e.g. 72h, 30m)`},
		{name: "duration in the environment", env: map[string]string{"ORCHESTRATE_AGE_STALE": "3 days"},
			err: `ORCHESTRATE_AGE_STALE: "3 days" is not a duration (e.g. 72h, 30m)`},
		{name: "duration given a map", repo: "handoff:\n  timeout:\n    seconds: 3\n",
			err: `.orchestrate.yaml line 2: handoff.timeout: a map is not a duration (e.g. 72h, 30m)`},
		{name: "list given a map", repo: "agents: {dev: yes}\n",
			err: `.orchestrate.yaml line 1: agents: a map is not a list (e.g. [a, b])`},
		{name: "list of whole numbers in the user's file", user: "handoff:\n  session_gone_exit_codes: [one, 2]\n",
			err: "~/.config/orchestrate/config.yaml line 2: " + `handoff.session_gone_exit_codes: ["one", "2"] is not a list of whole numbers (e.g. [1, 130])`},
		{name: "list of whole numbers in the environment", env: map[string]string{"ORCHESTRATE_HANDOFF_SESSION_GONE_EXIT_CODES": "1,x"},
			err: `ORCHESTRATE_HANDOFF_SESSION_GONE_EXIT_CODES: "1,x" is not a list of whole numbers (e.g. [1, 130])`},
		{name: "whole number", repo: "max_file_size: 8MB\n",
			err: `.orchestrate.yaml line 1: max_file_size: "8MB" is not a whole number (e.g. 20000)`},
		{name: "whole number in the environment", env: map[string]string{"ORCHESTRATE_MAX_REF_FILES": "lots"},
			err: `ORCHESTRATE_MAX_REF_FILES: "lots" is not a whole number (e.g. 20000)`},
		{name: "map given text", repo: "statuses: done\n",
			err: `.orchestrate.yaml line 1: statuses: "done" is not a map of names to lists (e.g. {done: [shipped, released]})`},
		{name: "map entry given a map", repo: "statuses:\n  done: {a: b}\n",
			err: `.orchestrate.yaml line 2: statuses.done: a map is not a list (e.g. [a, b])`},
		{name: "mode given a list", repo: "resume:\n  mode: [autopilot]\n",
			err: `.orchestrate.yaml line 2: resume.mode: ["autopilot"] is not a mode (autopilot, interactive, preflight)`},
		{name: "text given a map", repo: "handoff:\n  command: {run: x}\n",
			err: `.orchestrate.yaml line 2: handoff.command: a map is not text`},
		{name: "a section given a value", repo: "age: old\n",
			err: `.orchestrate.yaml line 1: age: "old" is not a value but a section (age.fresh, age.recent, age.stale)`},
		{name: "every problem of a file", user: "max_ref_files: many\nage:\n  fresh: soon\n",
			err: "~/.config/orchestrate/config.yaml line 3: " + `age.fresh: "soon" is not a duration (e.g. 72h, 30m); ` + "~/.config/orchestrate/config.yaml line 1: " + `max_ref_files: "many" is not a whole number (e.g. 20000)`},
		{name: "the --config file as given", explicit: "age:\n  fresh: never\n", user: "age:\n  fresh: 2h\n",
			err: `c.yaml line 2: age.fresh: "never" is not a duration (e.g. 72h, 30m)`},
		{name: "not YAML", repo: "sources: [unclosed\n", err: `.orchestrate.yaml line 1: the YAML is malformed: a [ list ] is never closed`},
		{name: "a tab in the indentation", repo: "handoff:\n  timeout: 90s\nage:\n\tstale: 72h\n", err: `.orchestrate.yaml line 4: the YAML is malformed: a tab character is not allowed for indentation`},
		{name: "a key written twice", repo: "age:\n  stale: 72h\n  stale: 96h\n", err: `.orchestrate.yaml line 3: the YAML is malformed: the key "stale" is written twice (first at line 2)`},
		{name: "a list, not a map", user: "- a\n- b\n", err: `~/.config/orchestrate/config.yaml line 1: the YAML is malformed: the file must be a map of settings (key: value lines), not a list`},
		{name: "a second colon", repo: "handoff:\n  command: echo a: b\n", err: `.orchestrate.yaml line 2: the YAML is malformed: a ':' where no key was expected`},
		{name: "a quote never closed", explicit: "handoff:\n  command: 'echo\n", err: `c.yaml line 2: the YAML is malformed: a quoted value is never closed`},
		// right values stay right
		{name: "valid values", repo: "age:\n  stale: 72h\nagents: dev\nstatuses:\n  done: shipped\n  review: [in review]\nmax_file_size: 100\nresume:\n  mode: bogus\n",
			user: "handoff:\n  session_gone_exit_codes: [1, 130]\n  timeout: 90\n"},
		{name: "empty entries", repo: "handoff:\nage: {}\nresume:\n  mode:\n"},
		// unknown keys
		{name: "unknown nested key", repo: "handoff:\n  comand: x\n",
			warns: []string{".orchestrate.yaml: unknown key handoff.comand (did you mean handoff.command?): ignored"}},
		{name: "unknown top-level key", repo: "stories_dri: docs\n",
			warns: []string{".orchestrate.yaml: unknown key stories_dri (did you mean stories_dir?): ignored"}},
		{name: "a key in the wrong section", repo: "command: x\nresume:\n  timeout: 1m\n",
			warns: []string{".orchestrate.yaml: unknown key command (did you mean handoff.command?): ignored",
				".orchestrate.yaml: unknown key resume.timeout (did you mean handoff.timeout?): ignored"}},
		{name: "nothing near", repo: "zzz_unrelated_setting: 1\n",
			warns: []string{".orchestrate.yaml: unknown key zzz_unrelated_setting: ignored"}},
		{name: "once per key", repo: "handoff:\n  comand: x\n\"handoff.comand\": y\n",
			warns: []string{".orchestrate.yaml: unknown key handoff.comand (did you mean handoff.command?): ignored"}},
		{name: "in the user's file", user: "handof:\n  command: x\n",
			warns: []string{userFile + "unknown key handof.command (did you mean handoff.command?): ignored"}},
		{name: "in the --config file", explicit: "age:\n  frsh: 1h\n",
			warns: []string{"c.yaml: unknown key age.frsh (did you mean age.fresh?): ignored"}},
		{name: "any sub-key of a map", repo: "statuses:\n  shipped_to_prod: [live]\n  x: [y]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, home, getenv := configEnv(t, tc.repo, tc.user, tc.env)
			explicit := ""
			if tc.explicit != "" {
				explicit = "c.yaml"
				writeFile(t, filepath.Join(home, explicit), tc.explicit)
				t.Chdir(home)
			}
			cl, err := Load(LoadOptions{Root: root, Explicit: explicit, Getenv: getenv})
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) || !isUsage(err) {
					t.Fatalf("error %v, want a usage error with\n%s", err, tc.err)
				}
				if !strings.Contains(tc.err, "where no key") && err.Error() != tc.err {
					t.Errorf("error\n%s\nwant\n%s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cl.Warnings, tc.warns) && (len(cl.Warnings) != 0 || len(tc.warns) != 0) {
				t.Errorf("warnings\n%q\nwant\n%q", cl.Warnings, tc.warns)
			}
		})
	}
}

// A bool key's wrong value (no shipped key is a bool yet: one is
// registered for the test).
func TestConfigBoolKey(t *testing.T) {
	keyKinds["resume.confirm"] = keySpec{kindBool, reflect.TypeOf(false)}
	t.Cleanup(func() { delete(keyKinds, "resume.confirm") })
	for _, tc := range []struct {
		val  any
		want string
	}{
		{true, ""}, {"false", ""}, {"1", ""},
		{"maybe", "true or false"},
		{map[string]any{"a": 1}, "true or false"},
	} {
		if got := checkValue("resume.confirm", tc.val); got != tc.want {
			t.Errorf("checkValue(%v) = %q, want %q", tc.val, got, tc.want)
		}
	}
	_, err := checkLayer(configSource{Name: "x.yaml"}, map[string]any{"resume.confirm": "maybe"})
	if err == nil || err.Error() != `x.yaml: resume.confirm: "maybe" is not true or false` {
		t.Errorf("got %v", err)
	}
}

// Every key the defaults register is known to the checks, with the kind
// of its Go type.
func TestConfigKeysRegistered(t *testing.T) {
	for _, k := range newViper().AllKeys() {
		if _, ok := keyKinds[k]; !ok {
			if _, sub := underMap(k); !sub {
				t.Errorf("default key %s is not in keyKinds", k)
			}
		}
	}
	for k, want := range map[string]keyKind{
		"age.stale": kindDuration, "agents": kindList, "handoff.session_gone_exit_codes": kindIntList,
		"max_ref_files": kindInt, "statuses": kindMap, "resume.mode": kindMode, "handoff.command": kindText,
	} {
		if got := keyKinds[k].kind; got != want {
			t.Errorf("%s: kind %v, want %v", k, got, want)
		}
	}
}

func TestNearestKey(t *testing.T) {
	for in, want := range map[string]string{
		"handoff.comand":           "handoff.command",
		"age.stal":                 "age.stale",
		"statuse":                  "statuses",
		"mode":                     "resume.mode",
		"timeout":                  "handoff.timeout",
		"nothing_like_it":          "",
		strings.Repeat("a", 10000): "",
	} {
		if got := nearestKey(in); got != want {
			t.Errorf("nearestKey(%.20q) = %q, want %q", in, got, want)
		}
	}
}

// The test helper writes the file Load reads.
func TestConfigtestRepoFile(t *testing.T) {
	if configtest.RepoFile != RepoFileName {
		t.Fatalf("configtest.RepoFile = %q, RepoFileName = %q", configtest.RepoFile, RepoFileName)
	}
}
