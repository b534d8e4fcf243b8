package workflow

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// storyDecorate returns s in several casings and decorations, all of which
// must map to the same canonical status.
func storyDecorate(s string) []string {
	words := strings.Fields(s)
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	title := strings.Join(words, " ")
	return []string{
		s,
		strings.ToUpper(s),
		title,
		"  " + title + "  ",
		"**" + title + "**",
		"__" + s + "__",
		"*" + s + "*",
		"_" + title + "_",
		"`" + s + "`",
		"✅ " + title,
		title + " ✅",
		"🚧 **" + strings.ToUpper(s) + "** ⏳",
		"❌ " + s,
		"⚠️ " + title, // with a variation selector
		"- " + title,
		title + " - some commentary",
		title + " (with a note)",
		title + ": details",
		title + ", mostly",
		title + " — em dash note",
		title + " – en dash note",
		title + " & more",
		title + ".",
	}
}

func TestCanonicalStatusTable(t *testing.T) {
	// one row per spelling of the status table, written out here (not
	// taken from the implementation) so that an edit to the table shows
	tests := []struct {
		spelling string
		want     Status
	}{
		{"draft", StatusDraft},
		{"backlog", StatusDraft},
		{"ready", StatusReady},
		{"approved", StatusReady},
		{"ready for development", StatusReady},
		{"ready to start", StatusReady},
		{"backlog - ready for development", StatusReady},
		{"inprogress", StatusInProgress},
		{"in progress", StatusInProgress},
		{"in_progress", StatusInProgress},
		{"in-progress", StatusInProgress},
		{"started", StatusInProgress},
		{"inreview", StatusInReview},
		{"in review", StatusInReview},
		{"review", StatusInReview},
		{"ready for review", StatusInReview},
		{"ready for done", StatusInReview},
		{"in_review", StatusInReview},
		{"done", StatusDone},
		{"completed", StatusDone},
		{"complete", StatusDone},
		{"verified", StatusDone},
		{"done - all tasks finished", StatusDone},
		{"completed - 2025-09-01", StatusDone},
		{"blocked", StatusBlocked},
	}
	n := 0
	for _, sp := range storyBuiltinSpellings {
		n += len(sp)
	}
	if n != len(tests)-2 { // the two "done - …" rows have no entry of their own
		t.Errorf("the built-in table has %d spellings, this test %d", n, len(tests)-2)
	}
	for _, tt := range tests {
		for _, raw := range storyDecorate(tt.spelling) {
			if got, _ := CanonicalStatus(raw, nil); got != tt.want {
				t.Errorf("CanonicalStatus(%q) = %s, want %s", raw, got, tt.want)
			}
		}
	}
}

func TestCanonicalStatusDesignSentences(t *testing.T) {
	// every example sentence of the status table, in several casings and decorations
	tests := []struct {
		sentence string
		want     Status
	}{
		{"✅ **COMPLETED** - 2025-09-01", StatusDone},
		{"Done - 100% Complete", StatusDone},
		{"COMPLETED & QA VALIDATED - Production Ready", StatusDone},
		{"Complete (Backend Implementation)", StatusDone},
		{"95% Complete - one task remaining", StatusUnknown},
		{"All stories are in Draft status", StatusUnknown},
	}
	for _, tt := range tests {
		s := tt.sentence
		for _, raw := range []string{s, strings.ToUpper(s), strings.ToLower(s), "**" + s + "**", "`" + s + "`", "✅ " + s, s + " 🚧", "  __" + s + "__  ", "> " + s} {
			if got, _ := CanonicalStatus(raw, nil); got != tt.want {
				t.Errorf("CanonicalStatus(%q) = %s, want %s", raw, got, tt.want)
			}
		}
	}
}

func TestCanonicalStatusExamples(t *testing.T) {
	tests := []struct {
		raw      string
		want     Status
		stripped string
	}{
		// the status table
		{"✅ **COMPLETED** - 2025-09-01", StatusDone, "COMPLETED - 2025-09-01"},
		{"Done - 100% Complete", StatusDone, "Done - 100% Complete"},
		{"COMPLETED & QA VALIDATED - Production Ready", StatusDone, "COMPLETED & QA VALIDATED - Production Ready"},
		{"Complete (Backend Implementation)", StatusDone, "Complete (Backend Implementation)"},
		{"95% Complete - one task remaining", StatusUnknown, "95% Complete - one task remaining"},
		{"All stories are in Draft status", StatusUnknown, "All stories are in Draft status"},
		// the brief and real stories
		{"Ready for Done", StatusInReview, "Ready for Done"},
		{"Ready for Review", StatusInReview, "Ready for Review"},
		{"ready for review", StatusInReview, "ready for review"},
		{"Ready", StatusReady, "Ready"},
		{"Approved", StatusReady, "Approved"},
		{"Backlog - Ready for Development", StatusReady, "Backlog - Ready for Development"},
		{"Backlog", StatusDraft, "Backlog"},
		{"Backlog - groomed next sprint", StatusDraft, "Backlog - groomed next sprint"},
		{"✅ **COMPLETED & QA VALIDATED** - Production Ready", StatusDone, "COMPLETED & QA VALIDATED - Production Ready"},
		{"✅ COMPLETE", StatusDone, "COMPLETE"},
		{"**Done** - Scope Reduced (Advanced Features → Story 4.4)", StatusDone, "Done - Scope Reduced (Advanced Features Story 4.4)"},
		{"✅ **VERIFIED - Implementation Complete**", StatusDone, "VERIFIED - Implementation Complete"},
		{"**COMPLETED** ✅", StatusDone, "COMPLETED"},
		{"**Completed**", StatusDone, "Completed"},
		{"done - anything at all", StatusDone, "done - anything at all"},
		{"completed - 2025-01-01", StatusDone, "completed - 2025-01-01"},
		{"In Progress", StatusInProgress, "In Progress"},
		{"in_progress", StatusInProgress, "in_progress"},
		{"**in_progress**", StatusInProgress, "in_progress"},
		{"IN-PROGRESS 🚧", StatusInProgress, "IN-PROGRESS"},
		{"In  \t Progress", StatusInProgress, "In Progress"},
		{"InReview", StatusInReview, "InReview"},
		{"Blocked: waiting on API", StatusBlocked, "Blocked: waiting on API"},
		{"Started", StatusInProgress, "Started"},
		{"Draft (v2)", StatusDraft, "Draft (v2)"},
		{"Draft(v2)", StatusDraft, "Draft(v2)"},
		// a spelling must be a whole word followed by a separator
		{"Review pending", StatusUnknown, "Review pending"},
		{"Ready-ish", StatusUnknown, "Ready-ish"},
		{"Doneish", StatusUnknown, "Doneish"},
		{"Done/Verified", StatusUnknown, "Done/Verified"},
		{"Not started", StatusUnknown, "Not started"},
		{"IMPLEMENTATION VERIFIED & APPROVED", StatusUnknown, "IMPLEMENTATION VERIFIED & APPROVED"},
		{"Draft → Ready", StatusUnknown, "Draft Ready"},
		// empty and decoration only
		{"", StatusUnknown, ""},
		{"   ", StatusUnknown, ""},
		{"✅ ** **", StatusUnknown, ""},
		{"\xff\xfe Done", StatusDone, "Done"},
	}
	for _, tt := range tests {
		got, stripped := CanonicalStatus(tt.raw, nil)
		if got != tt.want || stripped != tt.stripped {
			t.Errorf("CanonicalStatus(%q) = %s, %q; want %s, %q", tt.raw, got, stripped, tt.want, tt.stripped)
		}
	}
}

func TestCanonicalStatusExtra(t *testing.T) {
	extra := map[string][]string{
		"Done":        {"Shipped", "✅ Released"},
		"in_progress": {"WIP", "Doing"},
		"InReview":    {"awaiting qa"},
		"Ready":       {"ready for done"}, // overrides the built-in InReview spelling
		"Nonsense":    {"whatever"},
	}
	tests := []struct {
		raw  string
		want Status
	}{
		{"Shipped", StatusDone},
		{"**SHIPPED** - v1.2", StatusDone},
		{"Released", StatusDone},
		{"wip", StatusInProgress},
		{"Doing (half way)", StatusInProgress},
		{"Awaiting QA", StatusInReview},
		{"Ready for Done", StatusReady},
		{"Ready for Review", StatusInReview},
		{"whatever", StatusUnknown},
		{"Done", StatusDone},
	}
	for _, tt := range tests {
		if got, _ := CanonicalStatus(tt.raw, extra); got != tt.want {
			t.Errorf("CanonicalStatus(%q, extra) = %s, want %s", tt.raw, got, tt.want)
		}
	}
	if got, _ := CanonicalStatus("Shipped", nil); got != StatusUnknown {
		t.Errorf("without extra, Shipped = %s, want Unknown", got)
	}
}

func TestCanonicalStatusBounded(t *testing.T) {
	raw := "Done - " + strings.Repeat("✅ x ", 1<<20)
	got, stripped := CanonicalStatus(raw, nil)
	if got != StatusDone {
		t.Errorf("status = %s, want Done", got)
	}
	if len(stripped) > MaxStatusLen {
		t.Errorf("stripped text is %d bytes, want at most %d", len(stripped), MaxStatusLen)
	}
}

func FuzzCanonicalStatus(f *testing.F) {
	for _, s := range []string{"Done", "✅ **COMPLETED** - 2025-09-01", "Backlog - Ready for Development", "in_progress", "\xff\xfeDone", ""} {
		f.Add(s)
	}
	valid := map[Status]bool{StatusUnknown: true}
	for _, st := range StatusOrder {
		valid[st] = true
	}
	extra := map[string][]string{"Done": {"shipped"}, "blocked": {"on hold"}}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, ex := range []map[string][]string{nil, extra} {
			st, stripped := CanonicalStatus(raw, ex)
			if !valid[st] {
				t.Fatalf("CanonicalStatus(%q) = %q, not a canonical status", raw, st)
			}
			if len(stripped) > MaxStatusLen || !utf8.ValidString(stripped) {
				t.Fatalf("CanonicalStatus(%q) stripped = %q: too long or invalid UTF-8", raw, stripped)
			}
			if stripped != strings.TrimSpace(stripped) {
				t.Fatalf("CanonicalStatus(%q) stripped = %q: not trimmed", raw, stripped)
			}
			// stripping is idempotent: the stripped text means the same
			if st2, s2 := CanonicalStatus(stripped, ex); st2 != st || s2 != stripped {
				t.Fatalf("CanonicalStatus(%q) = %s, %q but CanonicalStatus(stripped) = %s, %q", raw, st, stripped, st2, s2)
			}
			if stripped == "" && st != StatusUnknown {
				t.Fatalf("CanonicalStatus(%q) = %s from empty text", raw, st)
			}
		}
	})
}
