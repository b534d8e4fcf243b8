package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/trust"
)

// loadCase loads a repository with the given .orchestrate.yaml ("" none),
// user config ("" none) and environment, the repository file trusted when
// asked; it also creates the default templates folder when templates is set.
func loadCase(t *testing.T, repo, user string, env map[string]string, trusted, templates bool, explicit string) *Loaded {
	t.Helper()
	root, home := t.TempDir(), t.TempDir()
	e := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
	for k, v := range env {
		e[k] = v
	}
	getenv := func(k string) string { return e[k] }
	repoPath := filepath.Join(root, RepoFileName)
	if repo != "" {
		writeFile(t, repoPath, repo)
	}
	if user != "" {
		writeFile(t, filepath.Join(home, ".config", "orchestrate", "config.yaml"), user)
	}
	if templates {
		writeFile(t, filepath.Join(root, ".orchestrate", "templates", "decision.tmpl"), "forged\n")
	}
	if trusted {
		store, err := trust.Open(getenv)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Trust(repoPath, []byte(repo)); err != nil {
			t.Fatal(err)
		}
	}
	if explicit != "" {
		p := filepath.Join(home, "mine.yaml")
		writeFile(t, p, explicit)
		explicit = p
	}
	cl, err := Load(LoadOptions{Root: root, Explicit: explicit, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// TestTemplatesDirTrust: the repository's templates folder (its default
// .orchestrate/templates, or its own templates_dir) is used only once its
// .orchestrate.yaml is trusted; with no such file, never. A templates_dir
// from the user's config, --config or the environment is the user's and
// is used.
func TestTemplatesDirTrust(t *testing.T) {
	trustEnv := map[string]string{EnvTrustRepoConfig: "1"}
	for _, tc := range []struct {
		name           string
		repo, user     string
		explicit       string
		env            map[string]string
		trusted        bool
		want, wantWarn string
	}{
		{name: "no repository file: the repository's folder is not used", wantWarn: "there is no .orchestrate.yaml to trust"},
		{name: "untrusted repository file", repo: "stories_dir: s\n", wantWarn: ".orchestrate.yaml is not trusted (run 'orchestrate trust' to use them)"},
		{name: "untrusted repository templates_dir", repo: "templates_dir: my/t\n", wantWarn: "is not trusted: ignoring templates_dir"},
		{name: "trusted repository file: its default folder", repo: "stories_dir: s\n", trusted: true, want: ".orchestrate/templates"},
		{name: "trusted repository templates_dir", repo: "templates_dir: my/t\n", trusted: true, want: "my/t"},
		{name: "trusted for one run by the environment", repo: "stories_dir: s\n", env: trustEnv, want: ".orchestrate/templates"},
		{name: "the environment's trust needs a file to trust", env: trustEnv, wantWarn: "there is no .orchestrate.yaml"},
		{name: "user's config names the folder", user: "templates_dir: .orchestrate/templates\n", want: ".orchestrate/templates"},
		{name: "user's config over an untrusted repository", repo: "templates_dir: evil\n", user: "templates_dir: /home/me/t\n", want: "/home/me/t"},
		{name: "environment names the folder", env: map[string]string{"ORCHESTRATE_TEMPLATES_DIR": "t"}, want: "t"},
		{name: "--config names the folder", explicit: "templates_dir: /home/me/t\n", want: "/home/me/t"},
		{name: "--config without it: none", repo: "stories_dir: s\n", trusted: true, explicit: "stories_dir: d\n", wantWarn: "only --config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := loadCase(t, tc.repo, tc.user, tc.env, tc.trusted, true, tc.explicit)
			if cl.Config.TemplatesDir != tc.want {
				t.Errorf("templates_dir = %q, want %q", cl.Config.TemplatesDir, tc.want)
			}
			joined := strings.Join(cl.Warnings, "\n")
			if (tc.wantWarn == "") != (joined == "") || !strings.Contains(joined, tc.wantWarn) {
				t.Errorf("warnings %q, want one containing %q", joined, tc.wantWarn)
			}
		})
	}
	// no folder there: nothing to say
	if cl := loadCase(t, "stories_dir: s\n", "", nil, false, false, ""); len(cl.Warnings) != 0 || cl.Config.TemplatesDir != "" {
		t.Errorf("no folder: warnings %q, dir %q", cl.Warnings, cl.Config.TemplatesDir)
	}
	// trusting at the prompt makes the default folder usable
	cl := loadCase(t, "handoff: {command: 'echo r'}\n", "", nil, false, false, "")
	cfg, err := cl.ApplyTrusted()
	if err != nil || cfg.TemplatesDir != ".orchestrate/templates" {
		t.Errorf("after trust: %q %v", cfg.TemplatesDir, err)
	}
}

// TestUntrustedOnlyTightens: limits and thresholds from an untrusted
// repository file apply only when at least as strict as the default; once
// trusted (or overridden by the user), they apply as written.
func TestUntrustedOnlyTightens(t *testing.T) {
	def := Default()
	for _, tc := range []struct {
		name     string
		repo     string
		loosened string // the keys ignored, comma-separated
		warn     string
		check    func(c Config) bool
	}{
		{"a larger read cap is ignored", "max_file_size: 4000000000\n", "max_file_size",
			"max_file_size '4000000000' (would loosen the 8 MiB read cap)", func(c Config) bool { return c.MaxFileSize == def.MaxFileSize }},
		{"a smaller read cap applies", "max_file_size: 1024\n", "", "", func(c Config) bool { return c.MaxFileSize == 1024 }},
		{"0 is the default", "max_file_size: 0\n", "", "", func(c Config) bool { return c.MaxFileSize == def.MaxFileSize }},
		{"more referenced files is ignored", "max_ref_files: 999999\n", "max_ref_files", "the cap of 20000 referenced files",
			func(c Config) bool { return c.MaxRefFiles == def.MaxRefFiles }},
		{"fewer referenced files applies", "max_ref_files: 10\n", "", "", func(c Config) bool { return c.MaxRefFiles == 10 }},
		{"a re-handoff after 1ns is ignored", "resume: {rehandoff_after: 1ns}\n", "resume.rehandoff_after",
			"resume.rehandoff_after '1ns' (would loosen the 1h autopilot waits before handing a workflow off again)",
			func(c Config) bool { return c.Resume.RehandoffAfter == def.Resume.RehandoffAfter }},
		{"a longer wait applies", "resume: {rehandoff_after: 5h}\n", "", "", func(c Config) bool { return c.Resume.RehandoffAfter == 5*time.Hour }},
		{"never again (0) applies", "resume: {rehandoff_after: 0s}\n", "", "", func(c Config) bool { return c.Resume.RehandoffAfter == 0 }},
		{"a later stale threshold is ignored", "age: {stale: 9000h, fresh: 30m}\n", "age.stale", "the 168h stale threshold",
			func(c Config) bool { return c.Age.Stale == def.Age.Stale && c.Age.Fresh == 30*time.Minute }},
		{"earlier age thresholds apply", "age: {fresh: 1m, recent: 2h, stale: 48h}\n", "", "",
			func(c Config) bool { return c.Age == Age{time.Minute, 2 * time.Hour, 48 * time.Hour} }},
		{"later fresh and recent are ignored", "age: {fresh: 20h, recent: 100h}\n", "age.fresh,age.recent", "age.fresh '20h' (would loosen the 1h fresh threshold), age.recent",
			func(c Config) bool { return c.Age == def.Age }},
		{"any handoff timeout tightens 'none'", "handoff: {timeout: 30s}\n", "", "", func(c Config) bool { return c.Handoff.Timeout == 30*time.Second }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := loadCase(t, tc.repo, "", nil, false, false, "")
			var keys []string
			for _, l := range cl.Repo.Loosened {
				keys = append(keys, l.Key)
			}
			if got := strings.Join(keys, ","); got != tc.loosened {
				t.Errorf("loosened %q, want %q", got, tc.loosened)
			}
			if !tc.check(cl.Config) {
				t.Errorf("untrusted: config %+v", cl.Config)
			}
			joined := strings.Join(cl.Warnings, "\n")
			if (tc.warn == "") != (joined == "") || !strings.Contains(joined, tc.warn) {
				t.Errorf("warnings %q, want one containing %q", joined, tc.warn)
			}
			if tc.warn != "" && !strings.Contains(joined, "run 'orchestrate trust' to use it") {
				t.Errorf("the warning must say how to use it: %q", joined)
			}
			if tc.loosened == "" {
				return
			}
			// trusted: as written
			for _, cl := range []*Loaded{
				loadCase(t, tc.repo, "", nil, true, false, ""),
				loadCase(t, tc.repo, "", map[string]string{EnvTrustRepoConfig: "1"}, false, false, ""),
			} {
				if len(cl.Repo.Loosened) == 0 || len(cl.Warnings) != 0 || tc.check(cl.Config) {
					t.Errorf("trusted: loosened %v, warnings %q, config %+v", cl.Repo.Loosened, cl.Warnings, cl.Config)
				}
			}
			// trusted at the prompt: applied
			cl = loadCase(t, tc.repo, "", nil, false, false, "")
			cfg, err := cl.ApplyTrusted()
			if err != nil || tc.check(cfg) || cl.Repo.loosenedWarning() != "" {
				t.Errorf("after ApplyTrusted: %+v %v", cfg, err)
			}
		})
	}
}

// TestLimitOverriddenByUser: a limit the user's config sets is the user's:
// the repository's value does not apply and nothing is said about it.
func TestLimitOverriddenByUser(t *testing.T) {
	cl := loadCase(t, "max_file_size: 4000000000\n", "max_file_size: 100000000\n", nil, false, false, "")
	if cl.Config.MaxFileSize != 100000000 || len(cl.Repo.Loosened) != 0 || len(cl.Warnings) != 0 {
		t.Errorf("got %d, loosened %v, warnings %q", cl.Config.MaxFileSize, cl.Repo.Loosened, cl.Warnings)
	}
	cl = loadCase(t, "resume: {rehandoff_after: 1ns}\n", "", map[string]string{"ORCHESTRATE_RESUME_REHANDOFF_AFTER": "1ns"}, false, false, "")
	if cl.Config.Resume.RehandoffAfter != 1 || len(cl.Repo.Loosened) != 0 {
		t.Errorf("env: got %v, loosened %v", cl.Config.Resume.RehandoffAfter, cl.Repo.Loosened)
	}
}

// TestLimitTable: every key of limitKeys is a registered number or
// duration, and the comparison goes the way the table says.
func TestLimitTable(t *testing.T) {
	for _, l := range limitKeys {
		spec, ok := keyKinds[l.Key]
		if !ok || (spec.kind != kindInt && spec.kind != kindDuration) {
			t.Errorf("%s: not a registered number or duration", l.Key)
		}
		if l.What(defaultInt(l.Key)) == "" {
			t.Errorf("%s: no words", l.Key)
		}
	}
	for _, tc := range []struct {
		l        limitKey
		val, def int64
		asStrict bool
	}{
		{limitKey{Way: lower}, 5, 10, true},
		{limitKey{Way: lower}, 10, 10, true},
		{limitKey{Way: lower}, 11, 10, false},
		{limitKey{Way: lower}, 0, 10, true},
		{limitKey{Way: lower, Zero: zeroUnbounded}, 0, 10, false},
		{limitKey{Way: lower, Zero: zeroUnbounded}, 99, 0, true},
		{limitKey{Way: higher}, 11, 10, true},
		{limitKey{Way: higher}, 9, 10, false},
		{limitKey{Way: higher, Zero: zeroUnbounded}, 0, 10, true},
		{limitKey{Way: higher, Zero: zeroUnbounded}, 1, 0, false},
	} {
		if got := tc.l.atLeastAsStrict(tc.val, tc.def); got != tc.asStrict {
			t.Errorf("%+v %d vs %d: %v, want %v", tc.l.Way, tc.val, tc.def, got, tc.asStrict)
		}
	}
	if s := sizeText(8 << 20); s != "8 MiB" {
		t.Errorf("sizeText: %q", s)
	}
	for d, want := range map[time.Duration]string{time.Hour: "1h", 168 * time.Hour: "168h", 90 * time.Second: "1m30s", 30 * time.Minute: "30m", 0: "unlimited"} {
		if got := durText(int64(d)); got != want {
			t.Errorf("durText(%v) = %q, want %q", d, got, want)
		}
	}
}
