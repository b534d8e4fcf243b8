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
		{Usage, "usage error (bad flag, ambiguous workflow name)"},
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
	for _, c := range All() {
		line := strings.SplitN(c.Meaning(), " (its own", 2)[0]
		if !strings.Contains(help, line) {
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
