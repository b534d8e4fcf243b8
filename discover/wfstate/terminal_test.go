package wfstate

import (
	"strings"
	"testing"
)

// A state is finished when its own fields say so, in every spelling, and
// the candidate names the field that decided.
func TestParseWorkflowStateTerminal(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		resumable bool
		status    string
		field     string // the field the "finished" finding names ("" for none)
	}{
		{
			name:   "AIOX engine_state completed",
			data:   "engine_state:\n  workflow_id: greenfield-fullstack\n  status: completed\n  started_at: '2026-11-01T09:00:00Z'\n  completed_at: '2026-11-02T10:00:00Z'\n  current_phase: COMPLETE\n",
			status: "completed",
		},
		{
			name:   "wrapped, completed_at only",
			data:   "engine_state:\n  workflow_id: w\n  current_phase: build\n  completed_at: '2026-11-02T10:00:00Z'\n",
			status: "completed", field: "completed_at",
		},
		{
			name:   "finished_at only",
			data:   "workflow_id: w\nfinished_at: '2026-11-02T10:00:00Z'\n",
			status: "completed", field: "finished_at",
		},
		{
			name:   "phase DONE",
			data:   "workflow_id: w\ncurrent_phase: DONE\n",
			status: "completed", field: "current_phase",
		},
		{
			name:   "phase FINISHED in any single wrapper",
			data:   "run:\n  workflow_id: w\n  currentPhase: FINISHED\n",
			status: "completed", field: "currentPhase",
		},
		{
			name:   "every phase of the definition completed",
			data:   "workflow_id: story-development-cycle\nstory: '1.1'\nphases_completed: [create, validate, implement, review]\n",
			status: "completed", field: "phases",
		},
		{
			name:   "every step completed",
			data:   "workflow_id: custom\nsteps:\n  - {id: a, status: completed}\n  - {id: b, status: done}\n",
			status: "completed", field: "phases",
		},
		{
			name:      "some phases completed: interrupted",
			data:      "workflow_id: story-development-cycle\nstory: '1.1'\nphases_completed: [create, validate]\n",
			resumable: true, status: "unknown",
		},
		{
			name:      "completed phases of an unknown workflow: total unknown",
			data:      "workflow_id: custom\nphases_completed: [a, b]\n",
			resumable: true, status: "unknown",
		},
		{
			name:      "explicit status wins over completed_at",
			data:      "workflow_state:\n  status: paused\n  completed_at: '2026-11-02T10:00:00Z'\n",
			resumable: true, status: "paused",
		},
		{
			name:      "completed_at null",
			data:      "engine_state:\n  workflow_id: w\n  completed_at: null\n  current_phase: build\n",
			resumable: true, status: "unknown",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fs := ParseWorkflowState(".aiox/engine-state.yaml", []byte(tt.data), nil)
			if c.Resumable != tt.resumable || c.Status != tt.status {
				t.Errorf("status %q resumable %v, want %q %v", c.Status, c.Resumable, tt.status, tt.resumable)
			}
			got := ""
			for _, f := range fs {
				if f.Code == "finished" {
					got = f.Message
				}
				if f.Code == "no-status" && !tt.resumable {
					t.Errorf("a finished state reads as interrupted: %s", f.Message)
				}
			}
			if (tt.field == "") != (got == "") || !strings.Contains(got, tt.field) {
				t.Errorf("finished finding = %q, want one naming %q", got, tt.field)
			}
		})
	}
}
