package workflow

import "strings"

// statusSeparators turns a status's separators into "_", made once (a
// Replacer builds its tables on its first use).
var statusSeparators = strings.NewReplacer("-", "_", " ", "_")

// NormalizeStateStatus turns a state file's status into its lower-case
// canonical spelling: "In Progress", "in-progress", "InProgress" and
// "in_progress" all become "in_progress".
func NormalizeStateStatus(raw string) string {
	s := strings.ToLower(strings.TrimSpace(raw))
	s = statusSeparators.Replace(s)
	for strings.Contains(s, "__") {
		s = strings.ReplaceAll(s, "__", "_")
	}
	switch s {
	case "inprogress":
		return "in_progress"
	case "inreview":
		return "in_review"
	case "canceled":
		return "cancelled"
	}
	return s
}

// IsTerminalStatus reports whether a normalised state status means the work
// is over: completed, aborted or cancelled (exit 15; see docs/ARCHITECTURE.md).
func IsTerminalStatus(s string) bool {
	switch s {
	case "completed", "complete", "done", "aborted", "cancelled", "closed", "approved":
		return true
	}
	return false
}
