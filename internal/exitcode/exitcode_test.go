package exitcode

import (
	"strings"
	"testing"
)

func TestMeaningAndHelp(t *testing.T) {
	tests := []struct {
		code Code
		want string
	}{
		{OK, "resumed, planned (dry run), or nothing to resume"},
		{Usage, "usage error: unknown command or flag, bad arguments, ambiguous workflow name, bad configuration value, bare repository (no work tree)"},
		{Locked, "locked by a live process; or a stale lock whose process is gone (the message says stale, --json outcome locked, reason stale_lock: run orchestrate unlock, or --force); or another runner's live lease on the shared lifecycle (reason held_remotely), or taken over by one while this runner held it: its command was stopped (reason lease_lost)"},
		{Command, "the orchestrator command failed, timed out or was interrupted; rolled back (its own exit status is in the message and in --json)"},
		{NoTTY, "input needed but no terminal (the message names the flag to pass)"},
		{Code(99), ""},
	}
	for _, tt := range tests {
		if got := tt.code.Meaning(); got != tt.want {
			t.Errorf("Code(%d).Meaning() = %q, want %q", tt.code, got, tt.want)
		}
	}
	help := Help()
	joined := strings.ReplaceAll(help, "\n      ", " ") // continuation lines
	for _, c := range All() {
		line := c.Meaning()
		if !strings.Contains(joined, line) {
			t.Errorf("Help() lacks the meaning of %d: %q", c, line)
		}
	}
	if !strings.HasPrefix(help, "Exit codes:\n   0  resumed") {
		t.Errorf("Help() starts %q", help[:30])
	}
}

func TestAllIncreasing(t *testing.T) {
	all := All()
	for i := 1; i < len(all); i++ {
		if all[i] <= all[i-1] {
			t.Fatalf("All() not increasing at %d: %v", i, all)
		}
	}
}
