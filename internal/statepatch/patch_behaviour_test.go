package statepatch

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

const patchTS = "2026-11-20T12:00:00Z"

var patchNow = time.Date(2026, 11, 20, 13, 0, 0, 0, time.FixedZone("CET", 3600))

// TestPatchExactBytes: a patch rewrites only the three fields, in the
// spelling, quoting and line endings the file uses; every other byte is
// the original's (the want texts are the whole files).
func TestPatchExactBytes(t *testing.T) {
	bom := string(BOM)
	tests := []struct {
		name, path, in string
		wrappers       []string
		want           string
	}{
		{
			name: "json pretty, missing resumed_at inserted first",
			path: "state.json",
			in:   "{\n  \"id\": \"x\",\n  \"status\": \"paused\",\n  \"resume_count\": 2\n}\n",
			want: "{\n  \"resumed_at\": \"" + patchTS + "\",\n  \"id\": \"x\",\n  \"status\": \"active\",\n  \"resume_count\": 3\n}\n",
		},
		{
			name: "json compact camelCase, count kept as text, no extension",
			path: "state",
			in:   `  {"taskId":"x","resumeCount":"4"}`,
			want: `  {"status":"active","resumedAt":"` + patchTS + `","taskId":"x","resumeCount":"5"}`,
		},
		{
			name: "json empty object",
			path: "s.JSON",
			in:   `{}`,
			want: `{"status": "active", "resumed_at": "` + patchTS + `", "resume_count": 1}`,
		},
		{
			name:     "json wrapper: fields in the wrapper, count left at the top",
			path:     "s.json",
			in:       `{"workflow": {"status": "paused"}, "resume_count": 1, "n": 1.50}`,
			wrappers: []string{"missing", "workflow"},
			want:     `{"workflow": {"resumed_at": "` + patchTS + `", "status": "active"}, "resume_count": 2, "n": 1.50}`,
		},
		{
			name: "json null and integral float counts",
			path: "s.json",
			in:   `{"status": null, "resumed_at": null, "resume_count": 2.0}`,
			want: `{"status": "active", "resumed_at": "` + patchTS + `", "resume_count": 3}`,
		},
		{
			name: "json byte-order mark kept",
			path: "s.json",
			in:   bom + `{"status": "done", "resume_count": 0}`,
			want: bom + `{"resumed_at": "` + patchTS + `", "status": "active", "resume_count": 1}`,
		},
		{
			name: "yaml CRLF, comments kept, keys inserted on top",
			path: "state.yaml",
			in:   "# head\r\nid: x\r\nstatus: paused   # note\r\nlist:\r\n  - a\r\n",
			want: "# head\r\nresumed_at: \"" + patchTS + "\"\r\nresume_count: 1\r\nid: x\r\nstatus: active   # note\r\nlist:\r\n  - a\r\n",
		},
		{
			name: "yaml single quotes and camelCase spellings",
			path: "s.yml",
			in:   "status: 'paused'\nresumedAt: '2020-01-01T00:00:00Z'\nresumeCount: 3\n",
			want: "status: 'active'\nresumedAt: '" + patchTS + "'\nresumeCount: 4\n",
		},
		{
			name: "yaml camelCase keys get camelCase insertions",
			path: "s.yaml",
			in:   "taskId: 1.10\nlastStep: x\n",
			want: "status: active\nresumedAt: \"" + patchTS + "\"\nresumeCount: 1\ntaskId: 1.10\nlastStep: x\n",
		},
		{
			name: "yaml empty and null values",
			path: "s.yaml",
			in:   "status:\nresume_count: ~ # none yet\nname: x\n",
			want: "resumed_at: \"" + patchTS + "\"\nstatus: active\nresume_count: 1 # none yet\nname: x\n",
		},
		{
			name: "yaml quoted keys, escaped double quotes",
			path: "s.yaml",
			in:   "\"status\": \"pa\\\"used\"\n'resume_count': '7'\nresumed_at: 2020-01-01T00:00:00Z\n",
			want: "\"status\": \"active\"\n'resume_count': '8'\nresumed_at: " + patchTS + "\n",
		},
		{
			name:     "yaml wrapper with indentation, top-level count",
			path:     "s.yaml",
			in:       "resume_count: 9\nworkflow:\n    status: paused\n    title: \"é ü\"\nother: 1.50\n",
			wrappers: []string{"workflow"},
			want:     "resume_count: 10\nworkflow:\n    resumed_at: \"" + patchTS + "\"\n    status: active\n    title: \"é ü\"\nother: 1.50\n",
		},
		{
			name: "yaml unicode before the field on the same column count",
			path: "s.yaml",
			in:   "名前: \"値\"\nstatus: 'o''k'\n",
			want: "resumed_at: \"" + patchTS + "\"\nresume_count: 1\n名前: \"値\"\nstatus: 'active'\n",
		},
		{
			name: "yaml byte-order mark kept",
			path: "s.yaml",
			in:   bom + "status: paused\nresume_count: 1\nresumed_at: \"x\"\n",
			want: bom + "status: active\nresume_count: 2\nresumed_at: \"" + patchTS + "\"\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.in)
			orig := append([]byte(nil), in...)
			out, err := Patch(tt.path, in, patchNow, tt.wrappers)
			if err != nil {
				t.Fatalf("Patch: %v", err)
			}
			if string(out) != tt.want {
				t.Errorf("Patch =\n%q\nwant\n%q", out, tt.want)
			}
			if !bytes.Equal(in, orig) {
				t.Error("Patch changed its input slice")
			}
			// Apart from the three fields, the state is the same.
			if h1, h2 := Hash(tt.path, orig, tt.wrappers), Hash(tt.path, out, tt.wrappers); h1 != h2 {
				t.Errorf("Hash changed by the patch: %s != %s", h1, h2)
			}
			if !MarkedActive(tt.path, bytes.TrimPrefix(out, BOM), tt.wrappers) {
				t.Error("patched state not MarkedActive")
			}
		})
	}
}

// TestPatchRefuses: what cannot be rewritten safely is an error naming the
// field and its line, and nothing is returned to write.
func TestPatchRefuses(t *testing.T) {
	tests := []struct {
		name, path, in string
		wrappers       []string
		want           string
	}{
		{"json syntax", "s.json", `{"status": }`, nil, ""},
		{"json top array", "s.json", `[1]`, nil, ""},
		{"json count text", "s.json", `{"resume_count": "abc"}`, nil, `resume_count is "abc", not a count`},
		{"json count negative", "s.json", `{"resume_count": -1}`, nil, `resume_count is "-1", not a count`},
		{"json count too large", "s.json", `{"resumeCount": 1000000000}`, nil, "resumeCount is 1000000000: too large a count to increment safely"},
		{"yaml count fraction", "s.yaml", "resume_count: 1.5\n", nil, `resume_count is "1.5", not a count`},
		{"yaml syntax", "s.yaml", "a: [\n", nil, "invalid YAML"},
		{"yaml top list", "s.yaml", "- a\n", nil, "mapping"},
		{"yaml flow mapping", "s.yaml", "{status: paused}\n", nil, "flow-style mapping"},
		{"yaml flow wrapper", "s.yaml", "workflow: {status: paused}\n", []string{"workflow"}, "workflow: the state is a flow-style mapping"},
		{"yaml block scalar", "s.yaml", "id: x\nstatus: |\n  paused\n", nil, "status (line 2): the value is a block scalar; not patched"},
		{"yaml anchor", "s.yaml", "status: &s paused\nx: *s\n", nil, "status (line 1): the value has an anchor or a tag"},
		{"yaml tag", "s.yaml", "status: !!str paused\n", nil, "anchor or a tag"},
		{"yaml mapping value", "s.yaml", "status:\n  a: 1\n", nil, "status (line 1): the value is not a scalar"},
		{"yaml value on next line", "s.yaml", "status:\n  paused\n", nil, "the value is not on the key's line"},
		{"yaml plain over lines", "s.yaml", "status: paused\n  still\n", nil, "spans several lines"},
		{"yaml double quoted over lines", "s.yaml", "status: \"pa\n  used\"\n", nil, "a quoted scalar spans several lines"},
		{"yaml single quoted over lines", "s.yaml", "status: 'pa\n  used'\n", nil, "a quoted scalar spans several lines"},
		{"yaml key over lines", "s.yaml", "? status\n: paused\n", nil, "no colon after the key on its line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Patch(tt.path, []byte(tt.in), patchNow, tt.wrappers)
			if err == nil {
				t.Fatalf("Patch accepted it: %q", out)
			}
			if out != nil {
				t.Errorf("Patch returned bytes with its error: %q", out)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestHashAndMarkedActive(t *testing.T) {
	a := []byte("id: x\nstatus: paused\nresume_count: 1\n")
	b := []byte("# moved and recommented\nresume_count: 5\nstatus: active\nid: x\n")
	c := []byte("id: y\nstatus: paused\n")
	if Hash("s.yaml", a, nil) != Hash("s.yaml", b, nil) {
		t.Error("Hash differs for states equal apart from the resume fields")
	}
	if Hash("s.yaml", a, nil) == Hash("s.yaml", c, nil) {
		t.Error("Hash equal for states that differ in id")
	}
	// YAML and JSON of one state hash the same.
	if Hash("s.yaml", a, nil) != Hash("s.json", []byte(`{"id":"x","status":"done"}`), nil) {
		t.Error("Hash differs between YAML and JSON of one state")
	}
	bad := []byte("a: [\n")
	if got := Hash("s.yaml", bad, nil); got != HashHex(bad) {
		t.Errorf("Hash of undecodable content = %s, want the raw hash", got)
	}
	if Hash("s.yaml", append(append([]byte{}, BOM...), a...), nil) != Hash("s.yaml", a, nil) {
		t.Error("a byte-order mark changes the hash")
	}

	active := []struct {
		path, in string
		wrappers []string
		want     bool
	}{
		{"s.yaml", "status: ' Active '\n", nil, true},
		{"s.yaml", "status: paused\n", nil, false},
		{"s.yaml", "id: 1\n", nil, false},
		{"s.json", `{"wf": {"status": "active"}}`, []string{"wf"}, true},
		{"s.json", `{"wf": {"phase": 1}, "status": "ACTIVE"}`, []string{"wf"}, true},
		{"s", `{"status": "active"`, nil, false},
		{"s", "status: active\n", nil, true},
	}
	for _, c := range active {
		if got := MarkedActive(c.path, []byte(c.in), c.wrappers); got != c.want {
			t.Errorf("MarkedActive(%s, %q) = %v, want %v", c.path, c.in, got, c.want)
		}
	}
}
