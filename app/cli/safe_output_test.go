package cli

import (
	"bytes"
	"encoding/json"
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

func TestWriteJSONRedactsAndEscapes(t *testing.T) {
	var b bytes.Buffer
	err := writeJSON(&b, map[string]any{
		"message": "Authorization: Bearer T",
		"nested":  map[string]any{"password": 42, "ok": "x\u202ey\x1b"},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !json.Valid(b.Bytes()) {
		t.Fatalf("not JSON: %s", out)
	}
	for _, bad := range []string{"Bearer T\"", "42", "\u202e", "\x1b"} {
		if strings.Contains(out, bad) {
			t.Errorf("%q in %s", bad, out)
		}
	}
	var back map[string]any
	_ = json.Unmarshal(b.Bytes(), &back)
	if back["nested"].(map[string]any)["ok"] != "x\u202ey\x1b" {
		t.Errorf("value changed: %v", back)
	}
}
