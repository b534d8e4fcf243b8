package jsondoc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestWriteJSONRedactsAndEscapes(t *testing.T) {
	var b bytes.Buffer
	err := Write(&b, map[string]any{
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

func TestWantsJSON(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"resume", "--json"}, true},
		{[]string{"--json=true", "status"}, true},
		{[]string{"status", "--json=false"}, false},
		{[]string{"status"}, false},
		{[]string{"resume", "--", "--json"}, false},
	}
	for _, tt := range tests {
		if got := WantsJSON(tt.args); got != tt.want {
			t.Errorf("WantsJSON(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
