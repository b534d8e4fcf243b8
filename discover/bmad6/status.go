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
