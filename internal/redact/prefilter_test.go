package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

// holdsRuleWord is what pass checks rule by rule: whether the lower-case
// text holds any rule's word (and, for a rule with case-sensitive words,
// one of those as written).
func holdsRuleWord(s string) bool {
	lower := strings.ToLower(s)
	for i := range rules {
		r := &rules[i]
		if containsAny(lower, r.words) && (r.cased == nil || containsAny(s, r.cased)) {
			return true
		}
	}
	return false
}

func TestNoRuleWords(t *testing.T) {
	tests := []struct {
		in   string
		skip bool
	}{
		{"", true},
		{"src/mod001/pkg/file-00001.go", true},
		{"3_implementation", true},
		{"PASSWORD", false},
		{"my_Api_Key", false},
		{"see https://x", false},
		{"Bearer", false},
		{"\u212Aey", false}, // Kelvin sign: lower-cases to ASCII k
		{"each task is done", true},
		{"SK0123", false},
		{"key-value", false},
		{"caf\u00e9", false}, // any non-ASCII byte: the full check decides
		{"x" + pem, false},
	}
	for _, tc := range tests {
		if got := noRuleWords(tc.in); got != tc.skip {
			t.Errorf("noRuleWords(%q) = %v, want %v", tc.in, got, tc.skip)
		}
		if noRuleWords(tc.in) && holdsRuleWord(tc.in) {
			t.Errorf("%q holds a rule word but would be skipped", tc.in)
		}
	}
	for i := range rules {
		r := &rules[i]
		words := r.words
		if r.cased != nil {
			words = r.cased
		}
		for _, w := range words {
			ins := []string{w, "x" + w + "y"}
			if r.cased == nil {
				ins = append(ins, strings.ToUpper(w))
			}
			for _, in := range ins {
				if noRuleWords(in) {
					t.Errorf("rule %s: %q would be skipped", r.name, in)
				}
			}
		}
	}
}

// FuzzNoRuleWords: text the prefilter skips holds no rule word, so pass
// returns it unchanged exactly as without the prefilter.
func FuzzNoRuleWords(f *testing.F) {
	for _, s := range []string{"", "src/a.go", "Token", "\u212A", "q~x", "a3T"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if noRuleWords(s) && holdsRuleWord(s) {
			t.Fatalf("%q holds a rule word but would be skipped", s)
		}
	})
}

// FuzzUnquote: unquote reads any JSON string as json.Unmarshal does.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`""`, `"a"`, `"a\"b"`, `"\u00e9"`, "\"\xff\"", `"caf` + "\u00e9" + `"`, "\"\xef\xbf\xbd\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var want string
		if raw == "" || raw[0] != '"' || stringEnd([]byte(raw), 0) != len(raw) || json.Unmarshal([]byte(raw), &want) != nil {
			return // not one JSON string token: never given to unquote
		}
		if got := unquote([]byte(raw)); got != want {
			t.Fatalf("unquote(%q) = %q, want %q", raw, got, want)
		}
	})
}

// TestJSONMemberNames: names repeated across objects and levels redact
// their values each time, and a secret name's memo does not leak to the
// next member.
func TestJSONMemberNames(t *testing.T) {
	in := `{"password":"a","x":{"password":"b","n":"plain"},"password":"c","list":[{"token":1},{"name":"n"},{"token":"t"}],"name":"m"}`
	want := `{"password":"[REDACTED]","x":{"password":"[REDACTED]","n":"plain"},"password":"[REDACTED]","list":[{"token":"[REDACTED]"},{"name":"n"},{"token":"[REDACTED]"}],"name":"m"}`
	if got := string(JSON([]byte(in))); got != want {
		t.Errorf("JSON:\n got %s\nwant %s", got, want)
	}
}
