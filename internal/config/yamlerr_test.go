package config

import (
	"errors"
	"strings"
	"testing"
)

// The YAML library's words never reach a message, and no file makes
// keyLines panic.
func FuzzKeyLines(f *testing.F) {
	for _, s := range []string{"a:\n\tb: 1\n", "age:\n  stale: 72h\n  stale: 1h\n", "- a\n", "a: [1\n", "a: 'x\n", "a: *x\n", "a: !t x\n", "a:\n  b:\n    c: 1\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := keyLines(".orchestrate.yaml", []byte(s))
		if err == nil {
			return
		}
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Fatalf("not a usage error: %v", err)
		}
		if msg := err.Error(); !strings.HasPrefix(msg, ".orchestrate.yaml") || strings.Contains(msg[len(".orchestrate.yaml"):], "yaml:") {
			t.Fatalf("message %q", msg)
		}
	})
}

func TestKeyLines(t *testing.T) {
	lines, err := keyLines("c.yaml", []byte("# comment\nage:\n  stale: 72h\n\"handoff.command\": x\nHandoff:\n  Timeout: 1m\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"age": 2, "age.stale": 3, "handoff.command": 4, "handoff": 5, "handoff.timeout": 6}
	for k, n := range want {
		if lines[k] != n {
			t.Errorf("line of %s = %d, want %d (%v)", k, lines[k], n, lines)
		}
	}
}
