package tolerant

import (
	"reflect"
	"testing"
)

// TestDecodeYAMLMapNodeMatchesDecodeYAMLMap: decoding the node tree a
// caller already parsed gives what DecodeYAMLMap gives from the text, the
// same values and the same errors.
func TestDecodeYAMLMapNodeMatchesDecodeYAMLMap(t *testing.T) {
	tests := []struct {
		name, in string
		wantErr  string // DecodeError code; "" for success
	}{
		{"plain", "status: active\nresume_count: 2\n", ""},
		{"float text kept", "story: 1.10\nratio: .5\nn: 5\n", ""},
		{"nested", "state:\n  files: [a, b]\n  when: 2026-11-20T12:00:00Z\n", ""},
		{"anchors", "a: &x {k: v}\nb: *x\n", ""},
		{"a list", "- a\n- b\n", "not-a-mapping"},
		{"a scalar", "just text\n", "not-a-mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, wantErr := DecodeYAMLMap([]byte(tt.in))
			node, err := DecodeYAMLNode([]byte(tt.in))
			if err != nil {
				t.Fatalf("DecodeYAMLNode: %v", err)
			}
			got, gotErr := DecodeYAMLMapNode(node)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("DecodeYAMLMapNode = %#v, want %#v", got, want)
			}
			if !reflect.DeepEqual(gotErr, wantErr) {
				t.Errorf("DecodeYAMLMapNode error = %v, want %v", gotErr, wantErr)
			}
			var code string
			if de, ok := gotErr.(*DecodeError); ok {
				code = de.Code
			}
			if code != tt.wantErr {
				t.Errorf("error code = %q, want %q", code, tt.wantErr)
			}
		})
	}
	if _, err := DecodeYAMLMapNode(nil); err == nil {
		t.Error("a nil node decoded")
	}
}
