//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// On a terminal the preset starts the agent's interactive session (no -p),
// and the agent gets the terminal as its standard input.
func TestPTYPresetInteractive(t *testing.T) {
	dir := cleanRepo(t)
	if err := os.WriteFile(filepath.Join(dir, ".orchestrate.yaml"), []byte("handoff:\n  agent: claude\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	script := "#!/bin/sh\n{ if [ -t 0 ]; then echo tty; else echo notty; fi; for a in \"$@\"; do printf '%s\\n' \"$a\"; done; } > \"$ORCHESTRATE_ROOT/argv.txt\"\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := startPTYEnv(t, dir, []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "ORCHESTRATE_TRUST_REPO_CONFIG=1"}, "resume")
	r.waitPrompt("Resume this workflow?")
	r.send(keyEnter)
	r.expect("Handing off to @dev")
	r.expectExit(0)
	argv, err := os.ReadFile(filepath.Join(dir, "argv.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(argv), "\n"), "\n")
	if len(lines) != 2 || lines[0] != "tty" || !strings.HasPrefix(lines[1], "orchestrate is handing you the interrupted workflow ") {
		t.Errorf("the interactive preset ran as %q (want the terminal and one prompt argument, no -p)", lines)
	}
}
