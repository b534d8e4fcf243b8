package attacktest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// breadcrumbSecrets are the families that reached breadcrumbs, envelopes
// and the log in clear, one fake secret each, as `breadcrumb add` gets
// them; leaks are the secrets themselves (those of the state file of
// worksession.txtar too).
var (
	breadcrumbSecrets = []string{
		`{"step": "login", "pass": "Tr0ub4dorPass", "auth": {"user": "svc", "key": "authV4lue"}, "signing_key": "signK3yV4lue", "n": 3}`,
		"connected with pwd=pwdV4lue and encryption_key=encK3yV4lue",
		"ran app --password flagPassw0rd; the password is prosePassw0rd",
		"Set-Cookie: sid=c00kieSid; Path=/; HttpOnly",
		"export DB_PASS=dbPassV4lue && mysql -u root -pmysqlPw9 app",
		"pushed with hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345, ghp_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5A1b2C3 and AKIAIOSFODNN7EXAMPLE",
	}
	leaks = []string{
		"Tr0ub4dorPass", "authV4lue", "signK3yV4lue", "pwdV4lue", "encK3yV4lue", "flagPassw0rd", "prosePassw0rd",
		"c00kieSid", "dbPassV4lue", "mysqlPw9", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345", "ghp_A1b2C3d4E5", "AKIAIOSFODNN7EXAMPLE",
		"stPassJson1", "stAuthV4lue", "stPwdV4lue", "stSignK3y", "stEncK3y", "stFlagPassw0rd", "stProsePassw0rd",
		"stC00kieSid", "stDbPassV4lue", "stMysqlPw9", "hf_StAbCdEfGhIjKlMnOpQrStUvWxYz0123", "AKIAIOSFODNN7STATE01",
	}
)

// noLeak fails the test when a secret appears in s.
func noLeak(t *testing.T, where, s string) {
	t.Helper()
	for _, l := range leaks {
		if strings.Contains(s, l) {
			t.Errorf("%s holds the secret %q", where, l)
		}
	}
}

// Redaction gaps: `{"pass": …}`, `pwd=…`, `{"auth": …}`, signing_key,
// encryption_key, `--password X`, "the password is X", `Set-Cookie:
// sid=…`, `DB_PASS=…`, `mysql -pX`, `hf_…` reached breadcrumbs, envelopes
// and the log. Each family, given to `breadcrumb add` and saved in a state
// file, never appears in the work-session file (committed to git), an
// envelope, the log, stdout or stderr.
func TestAttackRedaction(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeTxtar("worksession.txtar")
	e.commitAll("a work session")
	e.extra = append(e.extra, "ORCHESTRATE_HANDOFF_COMMAND="+e.handoffCommand())
	for i, msg := range breadcrumbSecrets {
		args := []string{"breadcrumb", "add", "--cookie", "ws-red", "--message", msg}
		if i%2 == 1 {
			args = append(args, "--json")
		}
		r := e.run(args...)
		wantCode(t, r, 0)
		noLeak(t, r.String()+" stdout", r.stdout)
		noLeak(t, r.String()+" stderr", r.stderr)
	}
	for _, args := range [][]string{
		{"breadcrumb", "list", "--cookie", "ws-red"},
		{"breadcrumb", "list", "--cookie", "ws-red", "--json"},
		{"resume", "--mode", "autopilot", "work-session:ws-red"},
		{"resume", "--mode", "autopilot", "workflow:sdc-red"},
		{"resume", "--mode", "autopilot", "--dry-run", "--json", "workflow:sdc-red"},
		{"status", "--all", "--json"},
		{"log"},
		{"log", "--json"},
	} {
		r := e.run(args...)
		noLeak(t, r.String()+" stdout", r.stdout)
		noLeak(t, r.String()+" stderr", r.stderr)
	}
	if n := e.agentStarts(); n != 2 {
		t.Errorf("%d agent starts, want 2 (both resumes handed off)", n)
	}
	// every file orchestrate wrote or patched: the work-session file, the
	// envelopes, the log
	redacted := 0
	err := filepath.WalkDir(e.repo, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(e.repo, p)
		if !d.Type().IsRegular() || strings.HasPrefix(filepath.ToSlash(rel), ".orchestrate/workflows/sdc-red.yaml") {
			return nil // the user's own state file, and its backup beside it
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		noLeak(t, rel, string(b))
		redacted += strings.Count(string(b), "[REDACTED]")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"docs/maestro/work_sessions/ws-red.json", ".orchestrate/log.jsonl"} {
		if _, err := os.Stat(filepath.Join(e.repo, filepath.FromSlash(p))); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	env, err := os.ReadFile(filepath.Join(e.repo, ".orchestrate/handoffs/workflow_sdc-red-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, kept := range []string{`"step2": "connected with pwd=[REDACTED]`, `the password is [REDACTED]`, `Set-Cookie: sid=[REDACTED]`} {
		if !strings.Contains(string(env), kept) {
			t.Errorf("the envelope of sdc-red does not carry %q (the saved context is dropped, so the test proves nothing):\n%s", kept, env)
		}
	}
	if redacted == 0 {
		t.Errorf("no [REDACTED] anywhere: the secrets were dropped or never written, so this test proves nothing")
	}
}
