package source

import (
	"fmt"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// notWrappers are top-level keys that hold a part of a state, never the
// whole state: a document whose only key is one of them is not unwrapped.
var notWrappers = map[string]bool{
	"workflow": true, "context": true, "progress": true, "epic_progress": true,
	"last_action": true, "phases": true, "steps": true, "waves": true,
	"stories": true, "metadata": true, "meta": true, "files": true, "artifacts": true,
}

// Unwrap returns the state a document wraps in a single top-level mapping
// (`engine_state:`, `epic_state:`, `workflow_state:`, any `<name>_state:` or
// `<name>State:` key, or the only key of the document) with the wrapper's
// scalar siblings as fallbacks, and the wrapper key. A document that is not
// wrapped is returned as is with key "".
func Unwrap(m map[string]any) (map[string]any, string) {
	var key string
	n := 0
	for k, v := range m {
		if _, ok := v.(map[string]any); ok && !notWrappers[k] {
			key = k
			n++
		}
	}
	if n != 1 {
		return m, ""
	}
	lk := strings.ToLower(key)
	named := strings.HasSuffix(lk, "_state") || strings.HasSuffix(key, "State") || lk == "state"
	if len(m) != 1 && !named {
		return m, ""
	}
	inner := m[key].(map[string]any)
	return Overlay(m, inner, key), key
}

// finishedTimeKeys are the fields whose presence says the work ended.
var finishedTimeKeys = []string{"completed_at", "completedAt", "finished_at", "finishedAt"}

// finishedPhaseKeys are the fields naming the phase or step the state is at.
var finishedPhaseKeys = []string{"current_phase", "currentPhase", "current_step", "currentStep", "phase", "stage"}

// IsFinishedWord reports whether a phase or status word says the workflow
// is over: COMPLETE, COMPLETED, DONE, FINISHED, WORKFLOW_COMPLETED …
func IsFinishedWord(s string) bool {
	switch Norm(s) {
	case "complete", "completed", "done", "finished", "workflow_completed", "workflow_complete",
		"workflow_done", "workflow_finished", "all_done", "all_complete", "all_completed":
		return true
	}
	return false
}

// FinishedBy reports which field of a state says its work is over when its
// status does not: a completion time (completed_at, finished_at), or a
// current phase or step that names the end (COMPLETE, DONE, FINISHED). It
// returns the field and the value as written, or "" when no field says so.
// srcs are searched in order (the state, then its nested mappings).
func FinishedBy(srcs []map[string]any) (field, value string) {
	for _, m := range srcs {
		for _, k := range finishedTimeKeys {
			if s, ok := tolerant.ScalarString(m[k]); ok && strings.TrimSpace(s) != "" && !isNullWord(s) {
				return k, s
			}
		}
	}
	for _, m := range srcs {
		for _, k := range finishedPhaseKeys {
			if s, ok := tolerant.ScalarString(m[k]); ok && IsFinishedWord(s) {
				return k, s
			}
		}
	}
	return "", ""
}

func isNullWord(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "null", "~", "none", "nil", "false", "no", "-", "n/a", "tbd", "pending":
		return true
	}
	return false
}

// FinishedFinding is the info finding that says which field of the state at
// path decided that its work is over (shown by `status --all` and --json).
func FinishedFinding(path, field, value string) workflow.Finding {
	return workflow.Finding{
		Check:    workflow.CheckParse,
		Severity: workflow.Info,
		Code:     "finished",
		Message:  fmt.Sprintf("the state is finished: %s is %q", field, Clip(value, 80)),
		Path:     path,
	}
}

// Clip shortens s to at most n bytes (on a rune boundary), marking the cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
