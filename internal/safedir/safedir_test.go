package safedir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseGitConfig(t *testing.T) {
	type kv struct {
		Section, Key, Value string
		Null                bool
	}
	tests := []struct {
		name string
		in   string
		want []kv
	}{
		{name: "plain", in: "[safe]\n\tdirectory = /a/b\n", want: []kv{{"safe", "directory", "/a/b", false}}},
		{name: "case and spaces", in: "[Safe]\n  Directory=/a b  \n", want: []kv{{"safe", "directory", "/a b", false}}},
		{name: "quoted and comment", in: "[safe]\ndirectory = \"/a # b\" # comment\n", want: []kv{{"safe", "directory", "/a # b", false}}},
		{name: "escapes", in: "[safe]\ndirectory = /a\\\\b\\\"c\n", want: []kv{{"safe", "directory", `/a\b"c`, false}}},
		{name: "continued line", in: "[safe]\ndirectory = /a\\\n/b\n", want: []kv{{"safe", "directory", "/a/b", false}}},
		{name: "no value", in: "[safe]\ndirectory\n", want: []kv{{"safe", "directory", "", true}}},
		{name: "empty value", in: "[safe]\ndirectory =\n", want: []kv{{"safe", "directory", "", false}}},
		{name: "subsection", in: "[safe \"x\"]\ndirectory = /a\n", want: []kv{{"safe.x", "directory", "/a", false}}},
		{name: "key on the header line", in: "[safe] directory = /a\n", want: []kv{{"safe", "directory", "/a", false}}},
		{name: "comments and junk", in: "# c\n; c\n[core]\nbare = false\n=junk\n[safe]\ndirectory=*", want: []kv{{"core", "bare", "false", false}, {"safe", "directory", "*", false}}},
		{name: "broken header", in: "[safe\ndirectory = /a\n", want: []kv{{"", "directory", "/a", false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []kv
			parseGitConfig(tt.in, func(s, k, v string, null bool) { got = append(got, kv{s, k, v, null}) })
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func FuzzParseGitConfig(f *testing.F) {
	for _, s := range []string{"[safe]\ndirectory = /a\n", "[safe \"x\"] directory = \"a\\\n b\" ; c", "[", "\\", "a=\"", "[a]b\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := 0
		parseGitConfig(s, func(section, key, value string, null bool) {
			n++
			if len(value) > len(s) || key == "" {
				t.Fatalf("key %q value %q from %q", key, value, s)
			}
		})
		if n > len(s) {
			t.Fatalf("%d variables from %d bytes", n, len(s))
		}
	})
}

// TestCheckOwnership decides as git's ensure_valid_ownership, with the
// system's answers injected.
func TestCheckOwnership(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "repo")
	must(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	other := filepath.Join(base, "other")
	must(t, os.MkdirAll(other, 0o755))
	d := Repo{Root: root, GitDir: filepath.Join(root, ".git")}
	global := filepath.Join(base, "gitconfig")
	tests := []struct {
		name   string
		euid   int
		owners map[string]int // default 1000
		config string         // the global file ("" none)
		env    map[string]string
		ok     bool
	}{
		{name: "own repository", euid: 1000, ok: true},
		{name: "another user's", euid: 1001, ok: false},
		{name: "root on another user's", euid: 0, ok: false},
		{name: "root through sudo by the owner", euid: 0, env: map[string]string{"SUDO_UID": "1000"}, ok: true},
		{name: "root through sudo by another", euid: 0, env: map[string]string{"SUDO_UID": "1002"}, ok: false},
		{name: "git folder of another", euid: 1000, owners: map[string]int{filepath.Join(root, ".git"): 7}, ok: false},
		{name: "exact path", euid: 1001, config: "[safe]\n\tdirectory = " + root + "\n", ok: true},
		{name: "star", euid: 1001, config: "[safe]\ndirectory = *\n", ok: true},
		{name: "parent with /*", euid: 1001, config: "[safe]\ndirectory = " + base + "/*\n", ok: true},
		{name: "other path", euid: 1001, config: "[safe]\ndirectory = " + other + "\n", ok: false},
		{name: "sibling prefix", euid: 1001, config: "[safe]\ndirectory = " + root + "x/*\n", ok: false},
		{name: "reset by empty", euid: 1001, config: "[safe]\ndirectory = *\ndirectory =\n", ok: false},
		{name: "set again after reset", euid: 1001, config: "[safe]\ndirectory =\ndirectory = " + root + "\n", ok: true},
		{name: "subsection is not safe", euid: 1001, config: "[safe \"x\"]\ndirectory = *\n", ok: false},
		{name: "home", euid: 1001, config: "[safe]\ndirectory = ~/repo\n", env: map[string]string{"HOME": base}, ok: true},
		{name: "environment config", euid: 1001, env: map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory", "GIT_CONFIG_VALUE_0": root}, ok: true},
		{name: "global file off", euid: 1001, config: "[safe]\ndirectory = *\n", env: map[string]string{"GIT_CONFIG_GLOBAL": "/dev/null"}, ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"GIT_CONFIG_NOSYSTEM": "1", "HOME": filepath.Join(base, "nohome")}
			_ = os.Remove(global)
			if tt.config != "" {
				must(t, os.WriteFile(global, []byte(tt.config), 0o644))
				env["GIT_CONFIG_GLOBAL"] = global
			}
			for k, v := range tt.env {
				env[k] = v
			}
			e := ownerEnv{
				euid:   func() int { return tt.euid },
				getenv: func(k string) string { return env[k] },
				owner: func(p string) (int, error) {
					if uid, ok := tt.owners[p]; ok {
						return uid, nil
					}
					return 1000, nil
				},
			}
			err := checkOwnership(d, e)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok %v", err, tt.ok)
			}
			if err != nil {
				if !errors.Is(err, ErrDubiousOwnership) {
					t.Errorf("%v is not ErrDubiousOwnership", err)
				}
				if want := "git config --global --add safe.directory " + root; !strings.Contains(err.Error(), want) {
					t.Errorf("%q does not advise %q", err, want)
				}
			}
		})
	}
}

// TestSafeDirectoryIncludes follows include.path as git does: where the
// directive stands, relative to the including file, ~/ from HOME, at most
// maxIncludeDepth deep; never includeIf, and never without end.
func TestSafeDirectoryIncludes(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "repo")
	must(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	d := Repo{Root: root, GitDir: filepath.Join(root, ".git")}
	grant := "[safe]\n\tdirectory = " + root + "\n"
	// chain(n) writes chain-1 … chain-n, each including the next, the last
	// granting; it returns chain-1's path
	chain := func(dir string, n int) string {
		must(t, os.MkdirAll(dir, 0o755))
		for i := 1; i <= n; i++ {
			body := grant
			if i < n {
				body = fmt.Sprintf("[include]\n\tpath = chain-%d\n", i+1)
			}
			must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("chain-%d", i)), []byte(body), 0o644))
		}
		return filepath.Join(dir, "chain-1")
	}
	tests := []struct {
		name   string
		files  map[string]string // below base
		global string            // the global file's text
		env    map[string]string
		ok     bool
	}{
		{name: "relative include", files: map[string]string{"inc/safe.conf": grant}, global: "[include]\n\tpath = inc/safe.conf\n", ok: true},
		{name: "absolute include", files: map[string]string{"abs.conf": grant}, global: "[include]\npath = " + filepath.Join(base, "abs.conf") + "\n", ok: true},
		{name: "home include", files: map[string]string{"home/.safe": grant}, global: "[include]\npath = ~/.safe\n", env: map[string]string{"HOME": filepath.Join(base, "home")}, ok: true},
		{name: "nested, relative to the including file", files: map[string]string{"a/one.conf": "[include]\npath = ../b/two.conf\n", "b/two.conf": grant}, global: "[include]\npath = a/one.conf\n", ok: true},
		{name: "reset by an include after", files: map[string]string{"reset.conf": "[safe]\ndirectory =\n"}, global: "[safe]\ndirectory = *\n[include]\npath = reset.conf\n", ok: false},
		{name: "granted after an include that resets", files: map[string]string{"reset.conf": "[safe]\ndirectory =\n"}, global: "[include]\npath = reset.conf\n[safe]\ndirectory = *\n", ok: true},
		{name: "missing include", global: "[include]\npath = nowhere.conf\n", ok: false},
		{name: "includeIf is not followed", files: map[string]string{"if.conf": grant}, global: "[includeIf \"gitdir:" + root + "/\"]\npath = if.conf\n", ok: false},
		{name: "include in a subsection is not an include", files: map[string]string{"sub.conf": grant}, global: "[include \"x\"]\npath = sub.conf\n", ok: false},
		{name: "~user is not followed", files: map[string]string{"u.conf": grant}, global: "[include]\npath = ~nobody/u.conf\n", ok: false},
		{name: "ten deep", global: "[include]\npath = " + chain(filepath.Join(base, "ten"), 10) + "\n", ok: true},
		{name: "eleven deep is past git's bound", global: "[include]\npath = " + chain(filepath.Join(base, "eleven"), 11) + "\n", ok: false},
		{name: "self include ends", files: map[string]string{"self.conf": "[include]\npath = self.conf\n"}, global: "[include]\npath = self.conf\n", ok: false},
		{name: "fan-out ends", files: map[string]string{"fan.conf": strings.Repeat("[include]\npath = fan.conf\n", 40)}, global: "[include]\npath = fan.conf\n", ok: false},
		{name: "environment include, absolute", files: map[string]string{"env.conf": grant}, env: map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "include.path", "GIT_CONFIG_VALUE_0": filepath.Join(base, "env.conf")}, ok: true},
		{name: "environment include, relative", files: map[string]string{"env.conf": grant}, env: map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "include.path", "GIT_CONFIG_VALUE_0": "env.conf"}, ok: false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(base, fmt.Sprintf("case-%d", i))
			for name, body := range tt.files {
				p := filepath.Join(dir, name)
				if strings.HasPrefix(name, "home/") || name == "abs.conf" || name == "env.conf" {
					p = filepath.Join(base, name)
				}
				must(t, os.MkdirAll(filepath.Dir(p), 0o755))
				must(t, os.WriteFile(p, []byte(body), 0o644))
			}
			must(t, os.MkdirAll(dir, 0o755))
			global := filepath.Join(dir, "gitconfig")
			must(t, os.WriteFile(global, []byte(tt.global), 0o644))
			env := map[string]string{"GIT_CONFIG_NOSYSTEM": "1", "HOME": filepath.Join(base, "nohome"), "GIT_CONFIG_GLOBAL": global}
			for k, v := range tt.env {
				env[k] = v
			}
			e := ownerEnv{
				euid:   func() int { return 1001 },
				getenv: func(k string) string { return env[k] },
				owner:  func(string) (int, error) { return 1000, nil },
			}
			if err := checkOwnership(d, e); (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
