package gsd

import (
	"strings"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// stateStatuses maps STATE.md status tokens (front matter or body) to the
// canonical statuses; anything else is no canonical value.
var stateStatuses = map[string]workflow.Status{
	"ready_to_plan": workflow.StatusBacklog, "ready to plan": workflow.StatusBacklog, "defining_requirements": workflow.StatusBacklog,
	"planning":         workflow.StatusDraft,
	"ready to execute": workflow.StatusReady, "ready_to_execute": workflow.StatusReady,
	"executing": workflow.StatusInProgress, "in-progress": workflow.StatusInProgress, "in_progress": workflow.StatusInProgress,
	"in progress": workflow.StatusInProgress, "active": workflow.StatusInProgress,
	"verifying": workflow.StatusInReview,
	"completed": workflow.StatusDone, "complete": workflow.StatusDone, "phase complete": workflow.StatusDone,
	"blocked": workflow.StatusBlocked,
}

// pauseStatuses maps pause record (.continue-here, HANDOFF.json) statuses.
var pauseStatuses = map[string]workflow.Status{
	"not_started": workflow.StatusBacklog,
	"planned":     workflow.StatusReady,
	"in_progress": workflow.StatusInProgress, "paused": workflow.StatusInProgress, "almost_done": workflow.StatusInProgress,
	"verification_pending": workflow.StatusInReview, "paused_at_uat": workflow.StatusInReview,
	"complete": workflow.StatusDone, "phase_complete": workflow.StatusDone,
	"blocked": workflow.StatusBlocked,
}

// StateStatus maps a STATE.md status to a canonical status; ok is false for
// free text and "unknown" (no canonical value).
//
// A status that starts with a known one and goes on ("Executing Phase 03",
// "Ready to execute 07-02") has that one's value: the words after it name
// what, not how far.
func StateStatus(raw string) (workflow.Status, bool) {
	tok := statusToken(raw)
	if st, ok := stateStatuses[tok]; ok {
		return st, ok
	}
	best := ""
	for k := range stateStatuses {
		if len(k) > len(best) && strings.HasPrefix(tok, k+" ") {
			best = k
		}
	}
	if best == "" {
		return "", false
	}
	return stateStatuses[best], true
}

// PauseStatus maps a pause record's status to a canonical status; every
// milestone_* status is Done; ok is false for anything unmapped
// (post-execution, bugs_found, deciding, …).
func PauseStatus(raw string) (workflow.Status, bool) {
	tok := statusToken(raw)
	if strings.HasPrefix(tok, "milestone_") {
		return workflow.StatusDone, true
	}
	st, ok := pauseStatuses[tok]
	return st, ok
}
