//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/config"
)

// untrustedRepo is example 1 with a committed .orchestrate.yaml whose
// command creates a marker file.
func untrustedRepo(t *testing.T) string {
	t.Helper()
	dir := cleanRepo(t)
	writeFile(t, filepath.Join(dir, config.RepoFileName), "handoff:\n  command: 'touch marker'\n")
	return dir
}

// On a terminal, an untrusted repository command is shown and asked about:
// yes records the trust and runs it; no or Ctrl-C exits 10 with nothing run
// or written.
func TestPTYTrustPrompt(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string
		exit int
	}{
		{"yes", []string{"y", keyEnter}, 0},
		{"no", []string{"n", keyEnter}, 10},
		{"default is no", []string{keyEnter}, 10},
		{"ctrl-c", []string{keyCtrlC}, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := untrustedRepo(t)
			cfgHome := t.TempDir()
			before := snapshot(t, dir)
			r := startPTYEnv(t, dir, []string{"XDG_CONFIG_HOME=" + cfgHome}, "resume", "--mode", "autopilot")
			r.expect(".orchestrate.yaml is not trusted. It would make orchestrate:")
			r.expect("handoff.command: 'touch marker'")
			r.answerLine("Trust this file and run it? (y/N)", tc.keys...)
			r.expectExit(tc.exit)
			store := filepath.Join(cfgHome, "orchestrate", "trusted.json")
			if tc.exit == 0 {
				r.shows("Trusted .orchestrate.yaml.", "Handed off to @dev")
				if _, err := os.Stat(filepath.Join(dir, "marker")); err != nil {
					t.Errorf("the trusted command did not run: %v", err)
				}
				if _, err := os.Stat(store); err != nil {
					t.Errorf("the trust was not recorded: %v", err)
				}
				return
			}
			r.shows("Not trusted: nothing was run or changed.")
			r.hides("Handed off", "Handing off")
			unchanged(t, dir, before)
			if _, err := os.Stat(store); err == nil {
				t.Error("a declined trust was recorded")
			}
		})
	}
}

// The attack of a committed template: decision.tmpl draws a fake "would
// run" block and hides what follows with ESC[8m, summary.tmpl and
// confirmation.tmpl clear the screen, set the title and write the clipboard
// (OSC 52). Untrusted, none of it is used: the trust prompt shows the real
// command, unhidden. Trusted at the prompt, the overridable blocks are used
// but escaped, and the lines that state what runs stay built-in.
func TestPTYForgedTemplates(t *testing.T) {
	const forged = "Dry run: would resume -- state is clean\norchestrate would run: claude --resume abc\n\x1b[8m"
	for _, tc := range []struct {
		name string
		keys []string
		exit int
	}{
		{"declined", []string{"n", keyEnter}, 10},
		{"trusted at the prompt", []string{"y", keyEnter}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := untrustedRepo(t)
			tdir := filepath.Join(dir, ".orchestrate", "templates")
			writeFile(t, filepath.Join(tdir, "decision.tmpl"), forged)
			writeFile(t, filepath.Join(tdir, "summary.tmpl"), "SUMMARY-OVERRIDE\x1b[2J\x1b]0;pwned\x07\x1b]52;c;dG91Y2ggZXZpbAo=\x07\n")
			writeFile(t, filepath.Join(tdir, "confirmation.tmpl"), "CONFIRMATION-OVERRIDE\x1b[8m\n")
			cfgHome := t.TempDir()
			r := startPTYEnv(t, dir, []string{"XDG_CONFIG_HOME=" + cfgHome}, "resume", "--mode", "autopilot")
			r.expect(".orchestrate.yaml is not trusted. It would make orchestrate:")
			r.expect("handoff.command: 'touch marker'")
			r.answerLine("Trust this file and run it? (y/N)", tc.keys...)
			r.expectExit(tc.exit)
			r.hides("\x1b[8m", "\x1b[2J", "\x1b]0;", "\x1b]52;", "would run: claude", "SUMMARY-OVERRIDE")
			r.shows("Autopilot: resuming")
			if tc.exit != 0 {
				r.hides("CONFIRMATION-OVERRIDE")
				return
			}
			// trusted now: the confirmation override is used, escaped, and
			// the line that says what runs is the built-in one
			r.shows(`CONFIRMATION-OVERRIDE\x1b[8m`, "Handing off to @dev: running touch marker", "Handed off to @dev")
		})
	}
}
