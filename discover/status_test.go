package discover

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/orchestrate-dev/orchestrate/workflow"
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
	// one row per spelling of the table in DESIGN §3, written out here (not
	// taken from the implementation) so that an edit to the table shows
	tests := []struct {
		spelling string
		want     workflow.Status
	}{
		{"draft", workflow.StatusDraft},
		{"backlog", workflow.StatusDraft},
		{"ready", workflow.StatusReady},
		{"approved", workflow.StatusReady},
		{"ready for development", workflow.StatusReady},
		{"ready to start", workflow.StatusReady},
		{"backlog - ready for development", workflow.StatusReady},
		{"inprogress", workflow.StatusInProgress},
		{"in progress", workflow.StatusInProgress},
		{"in_progress", workflow.StatusInProgress},
		{"in-progress", workflow.StatusInProgress},
		{"started", workflow.StatusInProgress},
		{"inreview", workflow.StatusInReview},
		{"in review", workflow.StatusInReview},
		{"review", workflow.StatusInReview},
		{"ready for review", workflow.StatusInReview},
		{"ready for done", workflow.StatusInReview},
		{"in_review", workflow.StatusInReview},
		{"done", workflow.StatusDone},
		{"completed", workflow.StatusDone},
		{"complete", workflow.StatusDone},
		{"verified", workflow.StatusDone},
		{"done - all tasks finished", workflow.StatusDone},
		{"completed - 2025-09-01", workflow.StatusDone},
		{"blocked", workflow.StatusBlocked},
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
	// every example sentence of DESIGN §3, in several casings and decorations
	tests := []struct {
		sentence string
		want     workflow.Status
	}{
		{"✅ **COMPLETED** - 2025-09-01", workflow.StatusDone},
		{"Done - 100% Complete", workflow.StatusDone},
		{"COMPLETED & QA VALIDATED - Production Ready", workflow.StatusDone},
		{"Complete (Backend Implementation)", workflow.StatusDone},
		{"95% Complete - one task remaining", workflow.StatusUnknown},
		{"All stories are in Draft status", workflow.StatusUnknown},
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
		want     workflow.Status
		stripped string
	}{
		// DESIGN §3
		{"✅ **COMPLETED** - 2025-09-01", workflow.StatusDone, "COMPLETED - 2025-09-01"},
		{"Done - 100% Complete", workflow.StatusDone, "Done - 100% Complete"},
		{"COMPLETED & QA VALIDATED - Production Ready", workflow.StatusDone, "COMPLETED & QA VALIDATED - Production Ready"},
		{"Complete (Backend Implementation)", workflow.StatusDone, "Complete (Backend Implementation)"},
		{"95% Complete - one task remaining", workflow.StatusUnknown, "95% Complete - one task remaining"},
		{"All stories are in Draft status", workflow.StatusUnknown, "All stories are in Draft status"},
		// the brief and real stories
		{"Ready for Done", workflow.StatusInReview, "Ready for Done"},
		{"Ready for Review", workflow.StatusInReview, "Ready for Review"},
		{"ready for review", workflow.StatusInReview, "ready for review"},
		{"Ready", workflow.StatusReady, "Ready"},
		{"Approved", workflow.StatusReady, "Approved"},
		{"Backlog - Ready for Development", workflow.StatusReady, "Backlog - Ready for Development"},
		{"Backlog", workflow.StatusDraft, "Backlog"},
		{"Backlog - groomed next sprint", workflow.StatusDraft, "Backlog - groomed next sprint"},
		{"✅ **COMPLETED & QA VALIDATED** - Production Ready", workflow.StatusDone, "COMPLETED & QA VALIDATED - Production Ready"},
		{"✅ COMPLETE", workflow.StatusDone, "COMPLETE"},
		{"**Done** - Scope Reduced (Advanced Features → Story 4.4)", workflow.StatusDone, "Done - Scope Reduced (Advanced Features Story 4.4)"},
		{"✅ **VERIFIED - Implementation Complete**", workflow.StatusDone, "VERIFIED - Implementation Complete"},
		{"**COMPLETED** ✅", workflow.StatusDone, "COMPLETED"},
		{"**Completed**", workflow.StatusDone, "Completed"},
		{"done - anything at all", workflow.StatusDone, "done - anything at all"},
		{"completed - 2025-01-01", workflow.StatusDone, "completed - 2025-01-01"},
		{"In Progress", workflow.StatusInProgress, "In Progress"},
		{"in_progress", workflow.StatusInProgress, "in_progress"},
		{"**in_progress**", workflow.StatusInProgress, "in_progress"},
		{"IN-PROGRESS 🚧", workflow.StatusInProgress, "IN-PROGRESS"},
		{"In  \t Progress", workflow.StatusInProgress, "In Progress"},
		{"InReview", workflow.StatusInReview, "InReview"},
		{"Blocked: waiting on API", workflow.StatusBlocked, "Blocked: waiting on API"},
		{"Started", workflow.StatusInProgress, "Started"},
		{"Draft (v2)", workflow.StatusDraft, "Draft (v2)"},
		{"Draft(v2)", workflow.StatusDraft, "Draft(v2)"},
		// a spelling must be a whole word followed by a separator
		{"Review pending", workflow.StatusUnknown, "Review pending"},
		{"Ready-ish", workflow.StatusUnknown, "Ready-ish"},
		{"Doneish", workflow.StatusUnknown, "Doneish"},
		{"Done/Verified", workflow.StatusUnknown, "Done/Verified"},
		{"Not started", workflow.StatusUnknown, "Not started"},
		{"IMPLEMENTATION VERIFIED & APPROVED", workflow.StatusUnknown, "IMPLEMENTATION VERIFIED & APPROVED"},
		{"Draft → Ready", workflow.StatusUnknown, "Draft Ready"},
		// empty and decoration only
		{"", workflow.StatusUnknown, ""},
		{"   ", workflow.StatusUnknown, ""},
		{"✅ ** **", workflow.StatusUnknown, ""},
		{"\xff\xfe Done", workflow.StatusDone, "Done"},
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
		want workflow.Status
	}{
		{"Shipped", workflow.StatusDone},
		{"**SHIPPED** - v1.2", workflow.StatusDone},
		{"Released", workflow.StatusDone},
		{"wip", workflow.StatusInProgress},
		{"Doing (half way)", workflow.StatusInProgress},
		{"Awaiting QA", workflow.StatusInReview},
		{"Ready for Done", workflow.StatusReady},
		{"Ready for Review", workflow.StatusInReview},
		{"whatever", workflow.StatusUnknown},
		{"Done", workflow.StatusDone},
	}
	for _, tt := range tests {
		if got, _ := CanonicalStatus(tt.raw, extra); got != tt.want {
			t.Errorf("CanonicalStatus(%q, extra) = %s, want %s", tt.raw, got, tt.want)
		}
	}
	if got, _ := CanonicalStatus("Shipped", nil); got != workflow.StatusUnknown {
		t.Errorf("without extra, Shipped = %s, want Unknown", got)
	}
}

func TestCanonicalStatusBounded(t *testing.T) {
	raw := "Done - " + strings.Repeat("✅ x ", 1<<20)
	got, stripped := CanonicalStatus(raw, nil)
	if got != workflow.StatusDone {
		t.Errorf("status = %s, want Done", got)
	}
	if len(stripped) > storyMaxStatusLen {
		t.Errorf("stripped text is %d bytes, want at most %d", len(stripped), storyMaxStatusLen)
	}
}

func FuzzCanonicalStatus(f *testing.F) {
	for _, s := range []string{"Done", "✅ **COMPLETED** - 2025-09-01", "Backlog - Ready for Development", "in_progress", "\xff\xfeDone", ""} {
		f.Add(s)
	}
	valid := map[workflow.Status]bool{workflow.StatusUnknown: true}
	for _, st := range storyCanonicalOrder {
		valid[st] = true
	}
	extra := map[string][]string{"Done": {"shipped"}, "blocked": {"on hold"}}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, ex := range []map[string][]string{nil, extra} {
			st, stripped := CanonicalStatus(raw, ex)
			if !valid[st] {
				t.Fatalf("CanonicalStatus(%q) = %q, not a canonical status", raw, st)
			}
			if len(stripped) > storyMaxStatusLen || !utf8.ValidString(stripped) {
				t.Fatalf("CanonicalStatus(%q) stripped = %q: too long or invalid UTF-8", raw, stripped)
			}
			if stripped != strings.TrimSpace(stripped) {
				t.Fatalf("CanonicalStatus(%q) stripped = %q: not trimmed", raw, stripped)
			}
			// stripping is idempotent: the stripped text means the same
			if st2, s2 := CanonicalStatus(stripped, ex); st2 != st || s2 != stripped {
				t.Fatalf("CanonicalStatus(%q) = %s, %q but CanonicalStatus(stripped) = %s, %q", raw, st, stripped, st2, s2)
			}
			if stripped == "" && st != workflow.StatusUnknown {
				t.Fatalf("CanonicalStatus(%q) = %s from empty text", raw, st)
			}
		}
	})
}
