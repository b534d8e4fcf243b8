package cli

import (
	"strings"
	"testing"
)

// TestErrorsPrintedSafely: an error quoting a value (here an argument) is
// printed by Main redacted and with its control characters escaped.
func TestErrorsPrintedSafely(t *testing.T) {
	dir := testRepo(t, map[string]string{"README.md": "x\n", "docs/stories/1.1.x.md": "# Story 1.1: X\n**Status:** InProgress\n"})
	for _, args := range [][]string{
		{"resume", "--mode", "x\x1b[2J\rValidation: clean token=s3cr3t"},
		{"resume", "workflow:nope\x1b]0;pwned\x07 password=s3cr3t"},
	} {
		r := run(t, dir, nil, false, args...)
		if r.code == 0 {
			t.Fatalf("%q: exit 0", args)
		}
		got := r.err.String()
		if strings.ContainsAny(got, "\x1b\x07\r") || strings.Contains(got, "s3cr3t") {
			t.Errorf("%q: stderr %q", args, got)
		}
		if !strings.Contains(got, `\x1b`) {
			t.Errorf("%q: the escape is not shown: %q", args, got)
		}
	}
}
