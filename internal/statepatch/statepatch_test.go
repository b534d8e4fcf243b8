package statepatch

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestApplyEdits(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		edits []Edit
		want  string
	}{
		{"none", "abc", nil, "abc"},
		{"replace", `{"a": 1}`, []Edit{{Start: 6, End: 7, Text: "2"}}, `{"a": 2}`},
		{"any order", "0123456789", []Edit{{Start: 1, End: 2, Text: "x"}, {Start: 8, End: 9, Text: "y"}, {Start: 4, End: 4, Text: "+"}}, "0x23+4567y9"},
	}
	for _, tt := range tests {
		in := []byte(tt.in)
		if got := string(ApplyEdits(in, tt.edits)); got != tt.want {
			t.Errorf("%s: ApplyEdits = %q, want %q", tt.name, got, tt.want)
		}
		if string(in) != tt.in {
			t.Errorf("%s: the input changed", tt.name)
		}
	}
}

func TestScanTop(t *testing.T) {
	tests := []struct {
		in      string
		members []string
		err     string
	}{
		{`{"id": "a", "work_session": {"x": [1, {"y": 2}]}}`, []string{"id", "work_session"}, ""},
		{` {} `, nil, ""},
		{`[1]`, nil, "not a JSON object"},
		{`{"a": 1} x`, nil, "data after"},
		{`{"a": "unterminated}`, nil, "unterminated"},
		{strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100), nil, "too deep"},
	}
	for _, tt := range tests {
		top, err := ScanTop([]byte(tt.in))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ScanTop(%.30q) err = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ScanTop(%.30q): %v", tt.in, err)
			continue
		}
		var keys []string
		for _, m := range top.Members {
			keys = append(keys, m.Key)
			if tt.in[m.KeyStart:m.KeyEnd] == "" || m.ValEnd <= m.ValStart {
				t.Errorf("member %q spans %+v", m.Key, m)
			}
		}
		if strings.Join(keys, ",") != strings.Join(tt.members, ",") {
			t.Errorf("ScanTop(%.30q) members = %v, want %v", tt.in, keys, tt.members)
		}
	}
	if got := HashHex([]byte("x")); len(got) != 64 {
		t.Errorf("HashHex = %q", got)
	}
}

// TestSameState: sameState answers what comparing Canonical renderings
// answers, NaN and times included.
func TestSameState(t *testing.T) {
	when := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	nan := math.NaN()
	tests := []struct {
		name string
		a, b map[string]any
	}{
		{"equal", map[string]any{"a": "x", "n": 1, "l": []any{"p", 2.5}}, map[string]any{"a": "x", "n": 1, "l": []any{"p", 2.5}}},
		{"value differs", map[string]any{"a": "x"}, map[string]any{"a": "y"}},
		{"key differs", map[string]any{"a": "x"}, map[string]any{"b": "x"}},
		{"NaN", map[string]any{"f": nan}, map[string]any{"f": nan}},
		{"int or float one", map[string]any{"n": 1}, map[string]any{"n": 1.0}},
		{"times", map[string]any{"t": when}, map[string]any{"t": when}},
		{"time zones", map[string]any{"t": when}, map[string]any{"t": when.In(time.FixedZone("x", 3600))}},
		{"nested", map[string]any{"m": map[string]any{"k": []any{nil, true}}}, map[string]any{"m": map[string]any{"k": []any{nil, false}}}},
	}
	for _, tc := range tests {
		want := Canonical(tc.a) == Canonical(tc.b)
		if got := sameState(tc.a, tc.b); got != want {
			t.Errorf("%s: sameState = %v, Canonical comparison says %v", tc.name, got, want)
		}
	}
}
