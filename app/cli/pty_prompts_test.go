//go:build linux

package cli

import (
	"testing"

	"golang.org/x/sys/unix"
)

const (
	keyCtrlD = "\x04"
	keyEsc   = "\x1b"
)

// Keys that cancel, at every prompt of an interactive resume: exit 10,
// nothing changed, no stack trace (the end of input is never a default
// answer).
func TestPTYPromptsCancel(t *testing.T) {
	prompts := []struct {
		name     string
		repo     func(*testing.T) string
		args     []string
		question string
	}{
		{"list", multipleRepo, []string{"resume"}, "Which would you like to resume?"},
		{"confirmation", cleanRepo, []string{"resume"}, "Resume this workflow?"},
		{"conflicts", conflictRepo, []string{"resume"}, "Resume this workflow?"},
		{"proceed", cleanRepo, []string{"resume", "--mode", "preflight"}, `Type "proceed"`},
	}
	for _, p := range prompts {
		for _, keys := range []struct {
			name string
			keys []string
		}{
			{"ctrl-d", []string{keyCtrlD}},
			{"esc", []string{keyEsc}},
			{"ctrl-c", []string{keyCtrlC}},
			{"garbage then ctrl-d", []string{"zzz", keyCtrlD}},
			{"proceed then ctrl-d", []string{"proceed", keyCtrlD}},
		} {
			t.Run(p.name+"/"+keys.name, func(t *testing.T) {
				// each case its own repository and terminal: while one
				// waits on its child's output, another's child runs
				t.Parallel()
				dir := p.repo(t)
				before := snapshot(t, dir)
				r := startPTY(t, dir, p.args...)
				r.waitPrompt(p.question)
				r.send(keys.keys...)
				r.expect("Cancelled")
				r.expectExit(10)
				r.hides("Handing off", "=== Resume: QA", "index out of range")
				unchanged(t, dir, before)
			})
		}
	}
}

// Number keys and shortcut letters pick what they say, then Enter answers.
func TestPTYPromptsKeys(t *testing.T) {
	t.Run("c enter cancels", func(t *testing.T) {
		dir := cleanRepo(t)
		before := snapshot(t, dir)
		r := startPTY(t, dir, "resume")
		r.waitPrompt("Resume this workflow?")
		r.expect("y/r/c")
		r.send("c", keyEnter)
		r.expect("Cancelled")
		r.expectExit(10)
		r.hides("Restarting", "Handing off")
		unchanged(t, dir, before)
	})
	t.Run("3 enter cancels", func(t *testing.T) {
		dir := cleanRepo(t)
		before := snapshot(t, dir)
		r := startPTY(t, dir, "resume")
		r.waitPrompt("Resume this workflow?")
		r.send("3", keyEnter)
		r.expectExit(10)
		unchanged(t, dir, before)
	})
	t.Run("r enter restarts", func(t *testing.T) {
		dir := cleanRepo(t)
		r := startPTY(t, dir, "resume")
		r.waitPrompt("Resume this workflow?")
		r.send("r", keyEnter)
		r.expect("Restarting")
		r.expect("Handing off to @sm")
		r.expectExit(0)
	})
	t.Run("2 enter is the second workflow", func(t *testing.T) {
		dir := multipleRepo(t)
		r := startPTY(t, dir, "resume")
		r.waitPrompt("Which would you like to resume?")
		r.expect("2) ")
		r.send("2", keyEnter)
		r.expect("=== Resume: QA Loop for story 3.1 ===")
		r.waitPrompt("Resume this workflow?")
		r.send("y", keyEnter)
		r.expect("Handing off to @")
		r.expectExit(0)
		resumedState(t, dir, "qa/3.1/loop-status.json")
	})
	t.Run("4 enter is none", func(t *testing.T) {
		dir := multipleRepo(t)
		before := snapshot(t, dir)
		r := startPTY(t, dir, "resume")
		r.waitPrompt("Which would you like to resume?")
		r.send("4", keyEnter)
		r.expect("Cancelled")
		r.expectExit(10)
		unchanged(t, dir, before)
	})
	t.Run("conflicts: enter cancels", func(t *testing.T) {
		dir := conflictRepo(t)
		before := snapshot(t, dir)
		r := startPTY(t, dir, "resume")
		r.waitPrompt("Resume this workflow?")
		r.expect("f/r/c")
		r.send(keyEnter)
		r.expect("Cancelled")
		r.expectExit(10)
		unchanged(t, dir, before)
	})
	t.Run("conflicts: f enter forces", func(t *testing.T) {
		dir := conflictRepo(t)
		r := startPTY(t, dir, "resume")
		r.waitPrompt("Resume this workflow?")
		r.send("f", keyEnter)
		r.expect("Handing off to @dev")
		r.expectExit(0)
		resumedState(t, dir, ".orchestrate/workflows/sdc-4.2.yaml")
	})
}

// A 40-column terminal: the options wrap, the keys still pick.
func TestPTYPromptsNarrow(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string
		exit int
	}{
		{"y", []string{"y", keyEnter}, 0},
		{"c", []string{"c", keyEnter}, 10},
		{"ctrl-d", []string{keyCtrlD}, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := cleanRepo(t)
			r := startPTY(t, dir, "resume")
			if err := unix.IoctlSetWinsize(int(r.c.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 40}); err != nil {
				t.Fatal(err)
			}
			r.waitPrompt("Resume this workflow?")
			r.send(tc.keys...)
			r.expectExit(tc.exit)
			r.shows("[r] restart from")
		})
	}
}
