package bmad6

import (
	"strings"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// tokens maps a normalised ledger or story-file status token to its
// canonical status (see docs/ARCHITECTURE.md, BMAD v6). A token not listed
// has no canonical value: Unknown, with the raw text kept.
var tokens = map[string]workflow.Status{
	"backlog": workflow.StatusBacklog, "todo": workflow.StatusBacklog, "pending": workflow.StatusBacklog, "future-backlog": workflow.StatusBacklog,
	"drafted": workflow.StatusDraft, "draft": workflow.StatusDraft,
	"ready-for-dev": workflow.StatusReady, "ready": workflow.StatusReady, "approved": workflow.StatusReady,
	"in-progress": workflow.StatusInProgress, "in_progress": workflow.StatusInProgress, "inprogress": workflow.StatusInProgress, "done-parcial": workflow.StatusInProgress,
	"review": workflow.StatusInReview, "in-review": workflow.StatusInReview, "ready-for-review": workflow.StatusInReview,
	"done": workflow.StatusDone, "complete": workflow.StatusDone, "completed": workflow.StatusDone, "deployed": workflow.StatusDone,
	"blocked": workflow.StatusBlocked,
}

// Token normalises a status text: emphasis, backticks and a leading emoji
// stripped, cut at the first " — ", " (", " #" or ",", trimmed and
// lower-cased.
func Token(raw string) string {
	s := workflow.StripStatus(raw)
	for _, sep := range []string{" — ", " (", " #", ","} {
		if i := strings.Index(s, sep); i >= 0 {
			s = s[:i]
		}
	}
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), `"'`))
	return strings.ToLower(s)
}

// Canonical maps a raw status to its canonical status; Unknown when the
// whole token matches no spelling.
func Canonical(raw string) workflow.Status {
	if st, ok := tokens[Token(raw)]; ok {
		return st
	}
	return workflow.StatusUnknown
}

// inFlight reports whether s is work under way.
func inFlight(s workflow.Status) bool {
	return s == workflow.StatusInProgress || s == workflow.StatusInReview
}

// fileNull are story-file tokens that have no canonical value in v6 even
// though the story vocabulary of other frameworks reads them.
var fileNull = map[string]bool{"dev-complete": true}

// FileCanonical maps a story file's status: the v6 spellings first, then,
// for a token v6 does not know, the one table of story spellings
// (workflow.CanonicalStatus with the configured ones) — a story file
// written in French ("Terminé", "En cours") or in words ("Ready for
// Review") still reads. The ledger is never read so: its values are v6's.
func FileCanonical(raw string, extra map[string][]string) workflow.Status {
	if st := Canonical(raw); st != workflow.StatusUnknown || fileNull[Token(raw)] {
		return st
	}
	st, _ := workflow.CanonicalStatus(raw, extra)
	return st
}
