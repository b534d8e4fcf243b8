package workflow

import "testing"

func TestNormalizeStateStatus(t *testing.T) {
	for raw, want := range map[string]string{
		"In Progress": "in_progress", "in-progress": "in_progress", "InProgress": "in_progress",
		"in_progress": "in_progress", " ACTIVE ": "active", "Canceled": "cancelled", "in__review": "in_review",
	} {
		if got := NormalizeStateStatus(raw); got != want {
			t.Errorf("NormalizeStateStatus(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestIsTerminalStatus(t *testing.T) {
	for s, want := range map[string]bool{"completed": true, "aborted": true, "cancelled": true, "active": false, "paused": false, "in_progress": false, "stopped": false} {
		if got := IsTerminalStatus(s); got != want {
			t.Errorf("IsTerminalStatus(%q) = %v, want %v", s, got, want)
		}
	}
}
