package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
)

// testRepo writes files into a fresh folder and returns it.
func testRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type fakeRun struct {
	out, err bytes.Buffer
	code     int
}

// run calls Main with fake streams (no terminal unless tty), a pinned clock
// and an environment of env only.
func run(t *testing.T, dir string, env map[string]string, tty bool, args ...string) *fakeRun {
	t.Helper()
	r := &fakeRun{}
	sys := System{
		IO:     IOStreams{In: strings.NewReader(""), Out: &r.out, ErrOut: &r.err, OutTTY: tty, ErrTTY: tty},
		Getenv: func(k string) string { return env[k] },
		Now:    func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) },
		Getwd:  func() (string, error) { return dir, nil },
	}
	r.code = Main(args, sys)
	return r
}

const sdcState = `execution_id: sdc-1
workflow: story-development-cycle
story: "4.2"
updated_at: 2026-11-20T11:30:00Z
current_phase: implement
status: interrupted
mode: %s
phases_completed:
  - {phase: create, agent: sm, output: docs/stories/4.2.s.md}
  - {phase: validate, agent: po, output: docs/stories/4.2.s.md}
`

const story42 = "# Story 4.2: S\n\n**Status:** InProgress\n\n## Acceptance Criteria\n1. **Given** x\n"

func modeOf(t *testing.T, r *fakeRun) string {
	t.Helper()
	var doc struct {
		Mode string `json:"mode"`
	}
	if err := json.Unmarshal(r.out.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON (exit %d): %v\n%s\n%s", r.code, err, r.out.String(), r.err.String())
	}
	return doc.Mode
}

// Flag > environment > config file > the mode the workflow was started in > interactive.
func TestModePrecedence(t *testing.T) {
	files := map[string]string{
		".orchestrate/workflows/sdc-1.yaml": strings.Replace(sdcState, "%s", "preflight", 1),
		"docs/stories/4.2.s.md":             story42,
	}
	dir := testRepo(t, files)
	if got := modeOf(t, run(t, dir, nil, false, "resume", "--dry-run", "--json")); got != "preflight" {
		t.Errorf("started-in mode: got %q, want preflight", got)
	}
	if err := os.WriteFile(filepath.Join(dir, ".orchestrate.yaml"), []byte("resume:\n  mode: interactive\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := modeOf(t, run(t, dir, nil, false, "resume", "--dry-run", "--json")); got != "interactive" {
		t.Errorf("config file: got %q, want interactive", got)
	}
	env := map[string]string{"ORCHESTRATE_MODE": "autopilot"} // the injected environment
	if got := modeOf(t, run(t, dir, env, false, "resume", "--dry-run", "--json")); got != "autopilot" {
		t.Errorf("environment: got %q, want autopilot", got)
	}
	if got := modeOf(t, run(t, dir, env, false, "resume", "--dry-run", "--json", "--mode", "preflight")); got != "preflight" {
		t.Errorf("flag: got %q, want preflight", got)
	}
	t.Setenv("ORCHESTRATE_MODE", "autopilot") // the process's own: never read
	if got := modeOf(t, run(t, dir, nil, false, "resume", "--dry-run", "--json")); got != "interactive" {
		t.Errorf("process environment: got %q, want interactive (from the config file)", got)
	}
	os.Unsetenv("ORCHESTRATE_MODE")
	os.Remove(filepath.Join(dir, ".orchestrate.yaml"))
	dir2 := testRepo(t, map[string]string{
		".orchestrate/workflows/sdc-1.yaml": strings.Replace(sdcState, "mode: %s\n", "", 1),
		"docs/stories/4.2.s.md":             story42,
	})
	if got := modeOf(t, run(t, dir2, nil, false, "resume", "--dry-run", "--json")); got != "interactive" {
		t.Errorf("default: got %q, want interactive", got)
	}
}

// A config file's values reach the stages: a custom stories glob finds a
// story that the default glob does not.
func TestConfigFileSources(t *testing.T) {
	dir := testRepo(t, map[string]string{
		"stories/7.1.x.md":   "# Story 7.1: X\n**Status:** InProgress\n",
		".orchestrate.yaml":  "sources:\n  stories: [\"stories/*.md\"]\n",
		"docs/stories/.keep": "",
	})
	r := run(t, dir, nil, false, "status")
	if r.code != 0 || !strings.Contains(r.out.String(), "sdc:7.1") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.out.String(), r.err.String())
	}
	bad := testRepo(t, map[string]string{".orchestrate.yaml": "sources: [unclosed\n"})
	if r := run(t, bad, nil, false, "status"); r.code != cmdutil.ExitUsage || !strings.Contains(r.err.String(), ".orchestrate.yaml line 1: the YAML is malformed: a [ list ] is never closed") {
		t.Errorf("bad config: exit %d, stderr %q", r.code, r.err.String())
	}
}

// Colour only on a terminal, never with NO_COLOR or --no-color.
func TestColour(t *testing.T) {
	dir := testRepo(t, map[string]string{
		".orchestrate/workflows/sdc-1.yaml": strings.Replace(sdcState, "%s", "interactive", 1),
		"docs/stories/4.2.s.md":             story42,
	})
	esc := "\x1b["
	if r := run(t, dir, nil, true, "resume", "--dry-run"); !strings.Contains(r.out.String(), esc) {
		t.Errorf("terminal: no colour in\n%s", r.out.String())
	}
	if r := run(t, dir, nil, false, "resume", "--dry-run"); strings.Contains(r.out.String(), esc) {
		t.Errorf("not a terminal: colour in\n%q", r.out.String())
	}
	if r := run(t, dir, map[string]string{"NO_COLOR": "1"}, true, "resume", "--dry-run"); strings.Contains(r.out.String(), esc) {
		t.Errorf("NO_COLOR: colour in\n%q", r.out.String())
	}
	if r := run(t, dir, nil, true, "--no-color", "resume", "--dry-run"); strings.Contains(r.out.String(), esc) {
		t.Errorf("--no-color: colour in\n%q", r.out.String())
	}
}

func TestUsageErrors(t *testing.T) {
	dir := testRepo(t, map[string]string{"docs/stories/1.1.a.md": "# Story 1.1: A\n**Status:** Done\n"})
	for _, args := range [][]string{
		{"status", "--bogus"},
		{"resume", "--dry-run", "--mode", "sideways"},
		{"resume", "a", "b"},
		{"resume", "--restart", "--from-phase", "x"},
		{"unlock"},
		{"log", "-n", "-1"},
		{"--log-level", "loud", "status"},
		{"--repo", filepath.Join(dir, "nope"), "status"},
	} {
		r := run(t, dir, nil, false, args...)
		if r.code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, r.code, cmdutil.ExitUsage, r.err.String())
		}
		if r.out.Len() != 0 {
			t.Errorf("%v: wrote to stdout: %q", args, r.out.String())
		}
	}
}

// Without a terminal, a question is a clear error naming the flag (exit 19).
func TestNoTerminalNamesTheFlag(t *testing.T) {
	dir := testRepo(t, map[string]string{
		".orchestrate/workflows/sdc-1.yaml": strings.Replace(sdcState, "%s", "interactive", 1),
		"docs/stories/4.2.s.md":             story42,
	})
	r := run(t, dir, nil, false, "resume")
	if r.code != cmdutil.ExitNoTTY || !strings.Contains(r.err.String(), "--approve") {
		t.Errorf("interactive: exit %d, stderr %q", r.code, r.err.String())
	}
	r = run(t, dir, nil, false, "resume", "--mode", "preflight")
	if r.code != cmdutil.ExitNoTTY || !strings.Contains(r.err.String(), "--approve") {
		t.Errorf("preflight: exit %d, stderr %q", r.code, r.err.String())
	}
	if _, err := os.Stat(filepath.Join(dir, ".orchestrate", "locks")); err == nil {
		entries, _ := os.ReadDir(filepath.Join(dir, ".orchestrate", "locks"))
		if len(entries) > 0 {
			t.Errorf("a lock was left behind: %v", entries)
		}
	}
}
