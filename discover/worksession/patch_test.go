package worksession

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

const wsTS = "2026-11-20T12:00:00Z"

// crumb is the breadcrumb the append tests add; its message holds the
// characters a careless re-spacing or HTML escaping would change.
var crumb = BreadcrumbEntry{ID: "b2", Timestamp: wsTS, Message: `a, b: "c" <x>`}

const (
	crumbCompact = `{"id":"b2","timestamp":"2026-11-20T12:00:00Z","message":"a, b: \"c\" <x>"}`
	crumbSpaced  = `{"id": "b2", "timestamp": "2026-11-20T12:00:00Z", "message": "a, b: \"c\" <x>"}`
)

// crumbIndented is the breadcrumb laid out one member a line, its members
// at ind plus two spaces.
func crumbIndented(ind, nl string) string {
	return strings.Join([]string{
		"{",
		ind + `  "id": "b2",`,
		ind + `  "timestamp": "2026-11-20T12:00:00Z",`,
		ind + `  "message": "a, b: \"c\" <x>"`,
		ind + "}",
	}, nl)
}

// checkPatch asserts the patched bytes, that Verify accepts them with the
// expected change, and that Verify refuses them with one more change.
func checkPatch(t *testing.T, in string, out []byte, expect func(map[string]any) error, err error, want string) {
	t.Helper()
	if err != nil {
		t.Fatalf("patch: %v", err)
	}
	if string(out) != want {
		t.Fatalf("patched =\n%s\nwant\n%s", out, want)
	}
	if err := Verify([]byte(in), out, expect); err != nil {
		t.Errorf("Verify refused the patch: %v", err)
	}
	// One more changed byte outside the change is caught.
	tampered := strings.Replace(string(out), `"ws1"`, `"ws0"`, 1)
	if tampered == string(out) {
		t.Fatal("test input holds no ws1 to tamper with")
	}
	if err := Verify([]byte(in), []byte(tampered), expect); err == nil || !strings.Contains(err.Error(), "differs from the intended change") {
		t.Errorf("Verify accepted a tampered patch: %v", err)
	}
}

func TestAppendBreadcrumbKeepsLayout(t *testing.T) {
	elem, err := MarshalOrdered(crumb)
	if err != nil || elem != crumbCompact {
		t.Fatalf("MarshalOrdered = %s, %v; want %s", elem, err, crumbCompact)
	}
	tests := []struct {
		name, in, want string
	}{
		{
			name: "pretty, one-line elements",
			in:   "{\n  \"id\": \"ws1\",\n  \"breadcrumbs\": [\n    {\"id\": \"b1\", \"message\": \"first\"}\n  ]\n}\n",
			want: "{\n  \"id\": \"ws1\",\n  \"breadcrumbs\": [\n    {\"id\": \"b1\", \"message\": \"first\"},\n    " + crumbSpaced + "\n  ]\n}\n",
		},
		{
			name: "pretty, indented elements",
			in:   "{\n  \"id\": \"ws1\",\n  \"breadcrumbs\": [\n    {\n      \"id\": \"b1\"\n    }\n  ]\n}",
			want: "{\n  \"id\": \"ws1\",\n  \"breadcrumbs\": [\n    {\n      \"id\": \"b1\"\n    },\n    " + crumbIndented("    ", "\n") + "\n  ]\n}",
		},
		{
			name: "pretty, list missing",
			in:   "{\n  \"id\": \"ws1\"\n}\n",
			want: "{\n  \"id\": \"ws1\",\n  \"breadcrumbs\": [\n    " + crumbIndented("    ", "\n") + "\n  ]\n}\n",
		},
		{
			name: "CRLF, list missing",
			in:   "{\r\n  \"id\": \"ws1\"\r\n}\r\n",
			want: "{\r\n  \"id\": \"ws1\",\r\n  \"breadcrumbs\": [\r\n    " + crumbIndented("    ", "\r\n") + "\r\n  ]\r\n}\r\n",
		},
		{
			name: "pretty, empty list",
			in:   "{\n  \"id\": \"ws1\",\n  \"breadcrumbs\": []\n}",
			want: "{\n  \"id\": \"ws1\",\n  \"breadcrumbs\": [\n    " + crumbIndented("    ", "\n") + "\n  ]\n}",
		},
		{
			name: "compact, other spelling",
			in:   `{"id":"ws1","crumbs":["a"]}`,
			want: `{"id":"ws1","crumbs":["a",` + crumbCompact + `]}`,
		},
		{
			name: "spaced, two elements",
			in:   `{"id": "ws1", "breadcrumbs": ["a",  "b"]}`,
			want: `{"id": "ws1", "breadcrumbs": ["a",  "b",  ` + crumbSpaced + `]}`,
		},
		{
			name: "null list",
			in:   `{"id": "ws1", "breadcrumbs": null}`,
			want: `{"id": "ws1", "breadcrumbs": [` + crumbSpaced + `]}`,
		},
		{
			name: "one-line empty list",
			in:   `{"id": "ws1", "breadcrumbs": []}`,
			want: `{"id": "ws1", "breadcrumbs": [` + crumbSpaced + `]}`,
		},
		{
			name: "wrapped session",
			in:   `{"work_session": {"id": "ws1", "breadcrumbs": []}, "v": 1}`,
			want: `{"work_session": {"id": "ws1", "breadcrumbs": [` + crumbSpaced + `]}, "v": 1}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, expect, err := AppendBreadcrumb([]byte(tt.in), elem)
			checkPatch(t, tt.in, out, expect, err, tt.want)
			ws, _ := ParseWorkSession("ws1.json", out)
			if n := len(ws.Breadcrumbs); n == 0 || ws.Breadcrumbs[n-1].Text != `a, b: "c" <x>` {
				t.Errorf("parsed breadcrumbs = %+v, want the new one last", ws.Breadcrumbs)
			}
		})
	}
}

func TestPatchRefusesWhatItCannotWrite(t *testing.T) {
	if _, _, err := AppendBreadcrumb([]byte(`{"id":"ws1","breadcrumbs":"x"}`), crumbCompact); err == nil || err.Error() != "breadcrumbs is not a list" {
		t.Errorf("AppendBreadcrumb to text: %v", err)
	}
	if _, _, err := UpsertSubtask([]byte(`{"id":"ws1","children":{}}`), SubtaskEntry{WSessionID: "ws2"}); err == nil || err.Error() != "children is not a list" {
		t.Errorf("UpsertSubtask to an object: %v", err)
	}
	for _, bad := range []string{``, `[]`, `{"id": "ws1"`, `{"id": "ws1"} x`} {
		if _, _, err := SetAISessionID([]byte(bad), "x"); err == nil {
			t.Errorf("SetAISessionID(%q) accepted", bad)
		}
		if _, _, err := RawBreadcrumbs([]byte(bad)); err == nil {
			t.Errorf("RawBreadcrumbs(%q) accepted", bad)
		}
	}
	if err := Verify([]byte(`{`), []byte(`{}`), func(map[string]any) error { return nil }); err == nil || !strings.Contains(err.Error(), "the original does not decode") {
		t.Errorf("Verify of a broken original: %v", err)
	}
	if err := Verify([]byte(`{}`), []byte(`{`), func(map[string]any) error { return nil }); err == nil {
		t.Error("Verify accepted a broken patch")
	}
}

func TestSetScalarsSpellingsAndOrder(t *testing.T) {
	in := "{\n  \"id\": \"ws1\",\n  \"state\": \"open\",\n  \"result\": null\n}\n"
	out, expect, err := SetScalars([]byte(in), [][2]string{
		{"status", "closed"},
		{"summary", "a <b> & c"},
		{"closed_at", wsTS},
		{"note", "x"},
	})
	want := "{\n  \"id\": \"ws1\",\n  \"state\": \"closed\",\n  \"result\": \"a <b> & c\",\n  \"closed_at\": \"" + wsTS + "\",\n  \"note\": \"x\"\n}\n"
	checkPatch(t, in, out, expect, err, want)
	ws, _ := ParseWorkSession("ws1.json", out)
	if ws.Status != "closed" || ws.Summary != "a <b> & c" || !ws.ClosedAt.Equal(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("parsed = status %q summary %q closed %v", ws.Status, ws.Summary, ws.ClosedAt)
	}
}

func TestSetAISessionID(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"replaces the spelling present", `{"id":"ws1","aiSessionId":"old","n":1}`, `{"id":"ws1","aiSessionId":"new-1","n":1}`},
		{"null falls back to the first present spelling", `{"id":"ws1","ai_session_id":null,"resume_token":"t"}`, `{"id":"ws1","ai_session_id":null,"resume_token":"new-1"}`},
		{"added at the end", `{"id": "ws1", "n": 1}`, `{"id": "ws1", "n": 1, "ai_session_id": "new-1"}`},
		{"added to a pretty object", "{\n\t\"id\": \"ws1\"\n}", "{\n\t\"id\": \"ws1\",\n\t\"ai_session_id\": \"new-1\"\n}"},
		{"wrapped session, one member: no space after the comma", `{"session": {"id": "ws1"}}`, `{"session": {"id": "ws1","ai_session_id": "new-1"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, expect, err := SetAISessionID([]byte(tt.in), "new-1")
			checkPatch(t, tt.in, out, expect, err, tt.want)
			if ws, _ := ParseWorkSession("ws1.json", out); ws.AISessionID != "new-1" {
				t.Errorf("parsed AISessionID = %q", ws.AISessionID)
			}
		})
	}
}

func TestInsertIntoEmptyObjects(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"one line", `{"session": {}, "id": "ws1"}`, `{"session": {}, "id": "ws1", "ai_session_id": "z"}`},
		{"wrapper empty inline", `{"work_session": {}, "x": "ws1"}`, `{"work_session": {"ai_session_id": "z"}, "x": "ws1"}`},
		{"wrapper empty pretty", "{\"work_session\": {\n  }, \"x\": \"ws1\"}", "{\"work_session\": {\n  \"ai_session_id\": \"z\"\n}, \"x\": \"ws1\"}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, expect, err := SetAISessionID([]byte(tt.in), "z")
			checkPatch(t, tt.in, out, expect, err, tt.want)
		})
	}
}

func TestUpsertSubtask(t *testing.T) {
	entry := SubtaskEntry{WSessionID: "ws2", Summary: "did", Status: "closed", ClosedAt: wsTS}
	tests := []struct {
		name, in string
		entry    SubtaskEntry
		want     string
	}{
		{
			name:  "bare id replaced in place",
			in:    `{"id": "ws1", "subtasks": [" ws2 ", "ws3"]}`,
			entry: entry,
			want:  `{"id": "ws1", "subtasks": [{"wsession_id": "ws2", "summary": "did", "status": "closed", "closed_at": "` + wsTS + `"}, "ws3"]}`,
		},
		{
			name:  "bare id on its own line",
			in:    "{\n  \"id\": \"ws1\",\n  \"subtasks\": [\n    \"ws2\"\n  ]\n}",
			entry: entry,
			want:  "{\n  \"id\": \"ws1\",\n  \"subtasks\": [\n    {\n      \"wsession_id\": \"ws2\",\n      \"summary\": \"did\",\n      \"status\": \"closed\",\n      \"closed_at\": \"" + wsTS + "\"\n    }\n  ]\n}",
		},
		{
			name: "object merged, other members and spellings kept",
			in: "{\n  \"id\": \"ws1\",\n  \"subTasks\": [\n    {\"id\": \"ws9\"},\n    {\n      \"sessionId\": \"ws2\",\n      \"state\": \"open\",\n" +
				"      \"note\": \"keep\"\n    }\n  ]\n}",
			entry: SubtaskEntry{WSessionID: "ws2", TaskID: "T1", Summary: "did", Status: "closed", ClosedAt: wsTS},
			want: "{\n  \"id\": \"ws1\",\n  \"subTasks\": [\n    {\"id\": \"ws9\"},\n    {\n      \"sessionId\": \"ws2\",\n      \"state\": \"closed\",\n" +
				"      \"note\": \"keep\",\n      \"task_id\": \"T1\",\n      \"summary\": \"did\",\n      \"closed_at\": \"" + wsTS + "\"\n    }\n  ]\n}",
		},
		{
			name:  "list missing, compact",
			in:    `{"id":"ws1"}`,
			entry: entry,
			want:  `{"id":"ws1","subtasks":[{"wsession_id":"ws2","summary":"did","status":"closed","closed_at":"` + wsTS + `"}]}`,
		},
		{
			name:  "no match: appended after others of every type",
			in:    `{"id": "ws1", "subtasks": [{"id": "ws9"}, 5, {"id": 2}, {"wsession_id": "ws22"}]}`,
			entry: entry,
			want:  `{"id": "ws1", "subtasks": [{"id": "ws9"}, 5, {"id": 2}, {"wsession_id": "ws22"}, {"wsession_id": "ws2", "summary": "did", "status": "closed", "closed_at": "` + wsTS + `"}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, expect, err := UpsertSubtask([]byte(tt.in), tt.entry)
			checkPatch(t, tt.in, out, expect, err, tt.want)
		})
	}
}

func TestRawBreadcrumbs(t *testing.T) {
	in := `{"session": {"id": "ws1", "breadCrumbs": [
	  {"bc_id": "b1", "ts": "2025-01-01T00:00:00Z", "msg": "multi\n  line   text"},
	  "plain  text",
	  {"id": "b3", "message": {"b": 1, "a": [1, 2]}},
	  {"message": null, "text": "t"},
	  7
	]}}`
	raws, lines, err := RawBreadcrumbs([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	wantRaw := []string{
		`{"bc_id": "b1", "ts": "2025-01-01T00:00:00Z", "msg": "multi\n  line   text"}`,
		`"plain  text"`,
		`{"id": "b3", "message": {"b": 1, "a": [1, 2]}}`,
		`{"message": null, "text": "t"}`,
		`7`,
	}
	var gotRaw []string
	for _, r := range raws {
		gotRaw = append(gotRaw, string(r))
	}
	if !reflect.DeepEqual(gotRaw, wantRaw) {
		t.Errorf("raws =\n%q\nwant\n%q", gotRaw, wantRaw)
	}
	wantLines := []BreadcrumbLine{
		{ID: "b1", Timestamp: "2025-01-01T00:00:00Z", Message: "multi line text"},
		{Message: "plain text"},
		{ID: "b3", Message: `{"b":1,"a":[1,2]}`},
		{Message: "t"},
		{Message: "7"},
	}
	if !reflect.DeepEqual(lines, wantLines) {
		t.Errorf("lines =\n%+v\nwant\n%+v", lines, wantLines)
	}
	for i, r := range raws {
		if !json.Valid(r) {
			t.Errorf("raw %d is not valid JSON", i)
		}
	}
	raws, lines, err = RawBreadcrumbs([]byte(`{"id": "ws1", "breadcrumbs": "none"}`))
	if err != nil || raws != nil || lines != nil {
		t.Errorf("breadcrumbs that are not a list = %v %v %v, want none", raws, lines, err)
	}
}

func TestActivityIsTheNewestTime(t *testing.T) {
	day := func(d int) string { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC).Format(time.RFC3339) }
	tests := []struct {
		name, in string
		want     int
	}{
		{"updated", `{"id":"a","created_at":"` + day(1) + `","updated_at":"` + day(3) + `"}`, 3},
		{"created after updated", `{"id":"a","created_at":"` + day(5) + `","updated_at":"` + day(3) + `"}`, 5},
		{"breadcrumb", `{"id":"a","updated_at":"` + day(3) + `","breadcrumbs":[{"timestamp":"` + day(7) + `","message":"m"}]}`, 7},
		{"resumed", `{"id":"a","updated_at":"` + day(3) + `","resumedAt":"` + day(9) + `"}`, 9},
		{"resumed unreadable", `{"id":"a","updated_at":"` + day(3) + `","resumed_at":"soon"}`, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, _ := ParseWorkSession("a.json", []byte(tt.in))
			if got := Activity(ws); !got.Equal(time.Date(2026, 1, tt.want, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("Activity = %v, want day %d", got, tt.want)
			}
		})
	}
}
