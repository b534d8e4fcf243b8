package statepatch

import (
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// TestPatchParsesYAMLTwice: a YAML state is parsed once to locate the
// fields (its tree also gives the original's values to verify against) and
// once more as patched; the verification still refuses a patch that would
// change any other field.
func TestPatchParsesYAMLTwice(t *testing.T) {
	parses := 0
	orig, origPatched := decodeYAMLNode, decodePatchedNode
	decodeYAMLNode = func(data []byte) (*yaml.Node, error) {
		parses++
		return orig(data)
	}
	decodePatchedNode = func(data []byte) (*yaml.Node, error) {
		parses++
		return origPatched(data)
	}
	t.Cleanup(func() { decodeYAMLNode, decodePatchedNode = orig, origPatched })

	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name, in string
		wrappers []string
	}{
		{"top level", "id: x\nstatus: paused\nstory: 1.10\nfiles:\n  - a.md\n", nil},
		{"wrapper", "workflow:\n  status: paused\n  resume_count: 2\nother: 1.50\n", []string{"workflow"}},
		{"missing fields", "id: x\nphase: 3\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parses = 0
			out, err := Patch("state.yaml", []byte(tt.in), now, tt.wrappers)
			if err != nil {
				t.Fatal(err)
			}
			if parses != 2 {
				t.Errorf("Patch parsed the YAML %d times, want 2 (original once, patched once)", parses)
			}
			if !strings.Contains(string(out), "2026-11-20T12:00:00Z") {
				t.Errorf("Patch = %q: no resumed_at", out)
			}
			// The verification still compares against the original.
			if err := verifyPatch([]byte(tt.in), nil, append(out, "extra: 1\n"...), false, tt.wrappers, now.Format(time.RFC3339), countIn(t, out, tt.wrappers)); err == nil {
				t.Error("verifyPatch accepted an added field")
			}
			root, err := decodeYAMLNode([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if err := verifyPatch([]byte(tt.in), root, append(out, "extra: 1\n"...), false, tt.wrappers, now.Format(time.RFC3339), countIn(t, out, tt.wrappers)); err == nil {
				t.Error("verifyPatch from the parsed original accepted an added field")
			}
		})
	}
}

// countIn reads back the resume count a patch wrote.
func countIn(t *testing.T, out []byte, wrappers []string) int {
	t.Helper()
	m, err := decodeState(out, false)
	if err != nil {
		t.Fatal(err)
	}
	inner, outer := splitState(m, wrappers)
	v, _ := lookupField(inner, outer, resumeCountKeys)
	n, ok := v.(int)
	if !ok {
		t.Fatalf("resume_count = %#v", v)
	}
	return n
}
