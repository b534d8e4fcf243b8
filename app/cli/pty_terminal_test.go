//go:build linux

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
)

// status on a terminal of 60 columns: every line fits, cut with "…"; the
// ids stay unique prefixes; --wide shows everything whole.
func TestPTYStatusNarrow(t *testing.T) {
	dir := multipleRepo(t)
	r := startPTYOn(t, newTerminalSize(t, 60, 40), dir, []string{"COLUMNS="}, "status")
	r.expectExit(0)
	out := r.text()
	if !strings.Contains(out, "…") {
		r.fail("nothing was cut at 60 columns")
	}
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if w := termsafe.Width(l); w > 60 {
			r.fail("a line is %d columns wide at 60: %q", w, l)
		}
	}
	r.shows("ID", "POSITION", "SOURCE")
	for _, id := range []string{"qa-loop:3.1", "workflow:sdc-4.2"} {
		found := false
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(l)
			if len(f) > 0 && strings.HasPrefix(id, strings.TrimSuffix(f[0], "…")) {
				found = true
			}
		}
		if !found {
			r.fail("no row starts with (a prefix of) %s", id)
		}
	}

	wide := startPTYOn(t, newTerminalSize(t, 60, 40), dir, []string{"COLUMNS="}, "status", "--wide")
	wide.expectExit(0)
	wide.hides("…")
	wide.shows(".orchestrate/workflows/sdc-4.2.yaml", "docs/specs/login/.pipeline-state.json")

	// COLUMNS overrides the terminal's width
	wider := startPTYOn(t, newTerminalSize(t, 60, 40), dir, []string{"COLUMNS=200"}, "status")
	wider.expectExit(0)
	wider.hides("…")
}

// The multiple-workflows block of a dry run fits a narrow terminal too.
func TestPTYMultipleNarrow(t *testing.T) {
	dir := multipleRepo(t)
	r := startPTYOn(t, newTerminalSize(t, 60, 40), dir, []string{"COLUMNS="}, "resume", "--dry-run")
	r.exit()
	out := r.text()
	start := strings.Index(out, "=== Multiple Interrupted Workflows Found ===")
	if start < 0 {
		r.fail("no multiple block")
	}
	block := strings.SplitN(out[start:], "\n\n", 3)[1]
	for _, l := range strings.Split(block, "\n") {
		if w := termsafe.Width(l); w > 60 {
			r.fail("a line of the list is %d columns wide at 60: %q", w, l)
		}
	}
	if !strings.Contains(block, "…") {
		r.fail("nothing was cut in the list at 60 columns:\n%s", block)
	}
}

// autopilotRepo has two interrupted workflows, both started in autopilot
// (testdata/script/resume_autopilot_recorded.txtar); with mixed, a third,
// the most recent, started in interactive mode.
func autopilotRepo(t *testing.T, mixed bool) string {
	steps := []gitStep{
		{when: "2026-11-20T09:00:00Z", msg: "stories"},
		{when: "2026-11-20T11:15:00Z", msg: "sdc: started", paths: []string{".orchestrate/workflows"}},
	}
	if mixed {
		steps = append(steps, gitStep{when: "2026-11-20T11:30:00Z", msg: "sdc 5.1: started",
			copies: map[string]string{".orchestrate/workflows/sdc-5.1.yaml": "sdc-5.1.yaml"}, paths: []string{".orchestrate/workflows/sdc-5.1.yaml"}})
	}
	return repoFromScript(t, "resume_autopilot_recorded.txtar", steps...)
}

// Workflows started in autopilot, no --mode, on a terminal: autopilot's
// rule takes the most recent; no pick list, no question.
func TestPTYAutopilotRecordedNeverPrompts(t *testing.T) {
	dir := autopilotRepo(t, false)
	r := startPTY(t, dir, "resume")
	r.expect("Handing off to @dev")
	r.expectExit(0)
	r.hides("Which would you like to resume?", "Multiple Interrupted Workflows", "Resume this workflow?")
	resumedState(t, dir, ".orchestrate/workflows/sdc-4.2.yaml")
}

// Among several workflows, one started in autopilot chosen from the list
// is resumed in interactive mode: it is confirmed before the handoff.
func TestPTYChosenAutopilotIsConfirmed(t *testing.T) {
	dir := autopilotRepo(t, true)
	r := startPTY(t, dir, "resume")
	r.waitPrompt("Which would you like to resume?")
	r.expect("none (cancel)")
	r.send(keyDown, keyEnter) // the second: sdc 4.2, started in autopilot
	r.expect("resumed in interactive mode")
	r.expect("=== Resume: SDC for story 4.2 ===")
	r.waitPrompt("Resume this workflow?")
	r.send(keyEnter) // yes
	r.expect("Handing off to @dev")
	r.expectExit(0)
	resumedState(t, dir, ".orchestrate/workflows/sdc-4.2.yaml")
}

// Autopilot halted on the most recent of two workflows and switched to
// interactive mode: the choice is offered, and the other one can be taken.
func TestPTYAutopilotSwitchOffersChoice(t *testing.T) {
	other := "execution_id: sdc-4.3\nworkflow: story-development-cycle\nstory: \"4.3\"\nstarted_at: 2026-11-20T09:00:00Z\nupdated_at: 2026-11-20T11:00:00Z\ncurrent_phase: 3\ncurrent_agent: dev\nstatus: interrupted\nphases_completed:\n  - {phase: create, agent: sm, output: docs/stories/4.3.export.md}\n"
	dir := repoFromScript(t, "example1_clean.txtar",
		gitStep{when: "2026-11-20T10:00:00Z", msg: "stories 4.2 and 4.3", updates: map[string]string{
			".orchestrate/workflows/sdc-4.3.yaml": other,
			"docs/stories/4.3.export.md":          "# Story 4.3: Export\n\n**Status:** InProgress\n\n## Acceptance Criteria\n1. CSV.\n",
		}},
		gitStep{when: "2026-11-20T11:15:00Z", msg: "sdc 4.2: implementation started", paths: []string{".orchestrate/workflows/sdc-4.2.yaml"}},
		gitStep{when: "2026-11-20T11:40:00Z", msg: "search: trim the query", author: "Bruno Costa",
			updates: map[string]string{"src/search.ts": "export const search = (q: string) => q.trim();\n"}, paths: []string{"src/search.ts"}},
	)
	r := startPTY(t, dir, "resume", "--mode", "autopilot")
	r.expect("Autopilot stopped")
	r.expect("switching to interactive mode")
	r.waitPrompt("Which would you like to resume?")
	r.send(keyDown, keyEnter) // the second: sdc 4.3, clean
	r.expect("=== Resume: SDC for story 4.3 ===")
	r.waitPrompt("Resume this workflow?")
	r.send(keyEnter)
	r.expect("Handing off to @dev")
	r.expectExit(0)
	if n := strings.Count(r.text(), "=== Multiple Interrupted Workflows Found ==="); n != 1 {
		r.fail("the list heading is shown %d times, want once", n)
	}
	resumedState(t, dir, ".orchestrate/workflows/sdc-4.3.yaml")
}

// With stdout not the terminal (a pipe, a file), the menu still reads in
// order on the terminal: its heading, the question with the options, the
// hint; the heading is not left on stdout to arrive after the question.
func TestPTYMenuOrderStdoutPiped(t *testing.T) {
	dir := multipleRepo(t)
	outFile, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer outFile.Close()
	r := startPTYCmd(t, newTerminal(t), dir, nil, func(c *exec.Cmd) { c.Stdout = outFile }, "resume")
	r.waitPrompt("Which would you like to resume?")
	r.send(keyCtrlC)
	r.expectExit(10)
	out := r.text()
	head, question, hint := strings.Index(out, "=== Multiple Interrupted Workflows Found ==="), strings.Index(out, "Which would you like to resume?"), strings.Index(out, "Enter")
	if head < 0 || question < 0 || hint < 0 || !(head < question && question < hint) {
		r.fail("the menu is out of order on the terminal: heading at %d, question at %d, hint at %d", head, question, hint)
	}
	b, err := os.ReadFile(outFile.Name())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "Multiple Interrupted Workflows") {
		t.Errorf("the menu's heading went to stdout, away from its question:\n%s", b)
	}
}
