package bmad6

import (
	"os"
	"reflect"
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseLedgerFlat(t *testing.T) {
	l := ParseLedger(readFixture(t, "ledger_flat.yaml"))
	if !l.HasDevStatus || l.Project != "Parcel Tracker" || l.StoryLocation != "_bmad-output/implementation-artifacts" {
		t.Fatalf("header: %+v", l)
	}
	got := map[string]Entry{}
	for _, e := range l.Entries {
		got[e.Key] = e
	}
	tests := []struct {
		key, raw, comment string
		values            int
		archive           bool
		kind              string
	}{
		{"epic-1", "done", "", 1, false, KeyEpic},
		{"1-2-carrier-webhooks", "done", "merged in 4f2a9c1", 1, false, KeyStory},
		{"epic-1-retrospective", "completed", "", 1, false, KeyRetro},
		{"2-2-shipment-detail", "in-progress", "blocked on carrier API keys until 11-05", 1, false, KeyStory},
		{"2-3-label-printing", "review", "", 1, false, KeyStory},
		{"2-4-bulk-import", "ready-for-dev", "", 1, false, KeyStory}, // the commented-out line is no entry
		{"2-6-legacy-export", "archive/2-6-legacy-export.md", "", 1, true, KeyStory},
		{"3-1-billing", "in-progress", "", 2, false, KeyStory},
	}
	prefixes := Prefixes(l.Entries)
	for _, tt := range tests {
		e, ok := got[tt.key]
		if !ok {
			t.Errorf("%s: missing", tt.key)
			continue
		}
		if e.Raw != tt.raw || e.Comment != tt.comment || len(e.Values) != tt.values || e.Archive != tt.archive {
			t.Errorf("%s: got %+v", tt.key, e)
		}
		if k := KeyKind(tt.key, prefixes); k != tt.kind {
			t.Errorf("%s: kind %s, want %s", tt.key, k, tt.kind)
		}
	}
	if _, ok := got["status"]; ok {
		t.Error("the sprints: list leaked into development_status")
	}
	if e := got["3-1-billing"]; !reflect.DeepEqual(e.Values, []string{"backlog", "in-progress"}) {
		t.Errorf("duplicate values: %v", e.Values)
	}
}

func TestParseLedgerNested(t *testing.T) {
	l := ParseLedger(readFixture(t, "ledger_nested.yaml"))
	want := map[string]string{"epic-1": "in-progress", "1-1-orchard-map": "done", "1-2-harvest-log": "in-progress", "1-3-weather-feed": "backlog"}
	if len(l.Entries) != len(want) {
		t.Fatalf("entries: %+v", l.Entries)
	}
	for _, e := range l.Entries {
		if want[e.Key] != e.Raw {
			t.Errorf("%s = %q, want %q", e.Key, e.Raw, want[e.Key])
		}
	}
	if l.Entries[2].Comment != "pairing with Lea" {
		t.Errorf("nested comment: %q", l.Entries[2].Comment)
	}
	if l.StoryLocation != "{project-root}/docs/sprint-artifacts" {
		t.Errorf("quoted header: %q", l.StoryLocation)
	}
}

func TestParseLedgerNotALedger(t *testing.T) {
	for _, in := range []string{"", "stories:\n  - id: 1\n    status: done\n", "development_status: done\n", "epic-1:\n  development_status:\n    1-1-x: done\n"} {
		if l := ParseLedger([]byte(in)); l.HasDevStatus || len(l.Entries) != 0 {
			t.Errorf("%q: read as a ledger: %+v", in, l)
		}
	}
}

func TestStoryID(t *testing.T) {
	tests := map[string]string{
		"2-4-user-login": "2.4", "2-4a-login": "2.4a", "2b-1-setup": "2b.1", "6-2-0-infra": "6.2.0",
		"5-3-2-sub": "5.3.2", "qa-1-smoke": "", "0-1-bootstrap": "0.1", "7-intro": "", "12345678901-1-x": "",
	}
	for key, want := range tests {
		if got := StoryID(key); got != want {
			t.Errorf("StoryID(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestKeyKind(t *testing.T) {
	entries := []Entry{{Key: "ab-01"}, {Key: "ab-01-1-login"}, {Key: "epic-6-2"}, {Key: "epic-hardening"}, {Key: "epic-2b-retrospective"}, {Key: "2-1-x"}}
	p := Prefixes(entries)
	want := map[string]string{"ab-01": KeyEpic, "ab-01-1-login": KeyStory, "epic-6-2": KeyEpic, "epic-hardening": KeyEpic, "epic-2b-retrospective": KeyRetro, "2-1-x": KeyStory}
	for _, e := range entries {
		if got := KeyKind(e.Key, p); got != want[e.Key] {
			t.Errorf("%s: %s, want %s", e.Key, got, want[e.Key])
		}
	}
}

func TestCanonical(t *testing.T) {
	tests := map[string]workflow.Status{
		"backlog": workflow.StatusBacklog, "todo": workflow.StatusBacklog, "future-backlog": workflow.StatusBacklog,
		"drafted": workflow.StatusDraft, "ready-for-dev": workflow.StatusReady, "Approved": workflow.StatusReady,
		"in-progress": workflow.StatusInProgress, "in_progress": workflow.StatusInProgress, "done-parcial": workflow.StatusInProgress,
		"review": workflow.StatusInReview, "ready-for-review": workflow.StatusInReview,
		"done": workflow.StatusDone, "deployed": workflow.StatusDone, "**Done** — shipped": workflow.StatusDone,
		"`review` (waiting on Ana)": workflow.StatusInReview, "✅ done": workflow.StatusDone, "blocked, API keys": workflow.StatusBlocked,
		"dev-complete": workflow.StatusUnknown, "contexted": workflow.StatusUnknown, "moved-to-epic-4": workflow.StatusUnknown,
		"deferred-to-v2": workflow.StatusUnknown, "in progress now": workflow.StatusUnknown, "": workflow.StatusUnknown,
	}
	for raw, want := range tests {
		if got := Canonical(raw); got != want {
			t.Errorf("Canonical(%q) = %s, want %s", raw, got, want)
		}
	}
}
