package epic

import (
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/source"
)

// holdsEpicKey is what scanEpics decided before the prefilter: decode, then
// look for the key.
func holdsEpicKey(p string, data []byte) bool {
	m, err := source.DecodeMap(p, data, false)
	if err != nil {
		return false
	}
	_, ok := m[EpicStateKey]
	return ok
}

var prefilterCases = []struct {
	name, path, text string
}{
	{"plain key", "s.yaml", "epic_state:\n  waves: []\n"},
	{"no key", "s.yaml", "workflow_id: x\nphase: 2\n"},
	{"key as a value", "s.yaml", "note: epic_state\n"},
	{"double-quoted escape", "s.yaml", "\"\\x65pic_state\": {}\n"},
	{"escaped line break", "s.yaml", "\"epic_\\\n  state\": {}\n"},
	{"binary tag", "s.yaml", "? !!binary ZXBpY19zdGF0ZQ==\n: {}\n"},
	{"tag directive", "s.yaml", "%TAG !e! tag:yaml.org,2002:\n---\n? !e!binary ZXBpY19zdGF0ZQ==\n: {}\n"},
	{"merge key", "s.yaml", "base: &b {epic_state: {}}\n<<: *b\n"},
	{"json escape", "s.json", "{\"\\u0065pic_state\": {}}"},
	{"json plain", "s.json", "{\"epic_state\": {}}"},
	{"json none", "s.json", "{\"phase\": 1}"},
	{"single-quoted", "s.yaml", "'epic_state': {}\n"},
	{"not yaml", "s.yaml", "a: [\n"},
}

// TestMayHoldEpicKey: the prefilter never skips a file that holds the key.
func TestMayHoldEpicKey(t *testing.T) {
	for _, tc := range prefilterCases {
		t.Run(tc.name, func(t *testing.T) {
			if holdsEpicKey(tc.path, []byte(tc.text)) && !mayHoldEpicKey([]byte(tc.text)) {
				t.Fatalf("%q holds %s but the prefilter skips it", tc.text, EpicStateKey)
			}
		})
	}
	if mayHoldEpicKey([]byte("workflow_id: x\nphase: 2\n")) {
		t.Error("a state without the key, escapes or tags should be skipped")
	}
}

// FuzzMayHoldEpicKey: for any text, a decode that finds the key implies the
// prefilter lets the file through.
func FuzzMayHoldEpicKey(f *testing.F) {
	for _, tc := range prefilterCases {
		f.Add(tc.text, tc.path == "s.json")
	}
	f.Fuzz(func(t *testing.T, text string, asJSON bool) {
		p := "s.yaml"
		if asJSON {
			p = "s.json"
		}
		if holdsEpicKey(p, []byte(text)) && !mayHoldEpicKey([]byte(text)) {
			t.Fatalf("%q holds %s but the prefilter skips it", text, EpicStateKey)
		}
	})
}
