package resumeflow

import (
	"strings"
	"testing"
)

func TestCleanHolder(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"claude-code", "claude-code", ""},
		{"  Codex CLI 1.2  ", "Codex CLI 1.2", ""},
		{"gemini-cli ✓", "gemini-cli ✓", ""},
		{"", "", "no holder"},
		{"   ", "", "no holder"},
		{"bad\x1b[31m", "", "control or format"},
		{"two\nlines", "", "control or format"},
		{"rtl\u202eevil", "", "control or format"},
		{strings.Repeat("a", maxHolder), strings.Repeat("a", maxHolder), ""},
		{strings.Repeat("é", maxHolder+1), "", "at most 100"},
	} {
		got, err := CleanHolder(tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("CleanHolder(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("CleanHolder(%q) error %v, want one saying %q", tc.in, err, tc.err)
		}
	}
}

func TestParseOutcome(t *testing.T) {
	for in, want := range map[string]string{"done": OutcomeDone, " Failed ": OutcomeFailed, "ABANDONED": OutcomeAbandoned, "ok": "", "": ""} {
		got, err := ParseOutcome(in)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("ParseOutcome(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
