package cli

import (
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/rebuild"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func TestLifecycleText(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 12, 0, 0, time.UTC)
	at := now.Add(-12 * time.Minute)
	for _, tt := range []struct {
		l    lifecycle
		want string
		json bool
	}{
		{lifecycle{State: handoff.StateHandedOff, At: at, Agent: "dev"}, "handed off 12 minutes ago to @dev", true},
		{lifecycle{State: handoff.StateUnconfirmed, At: at, Agent: "dev"}, "unconfirmed: dispatched 12 minutes ago to @dev, never started", true},
		{lifecycle{State: handoff.StateStarted, At: at}, "started 12 minutes ago, never confirmed finished", true},
		{lifecycle{State: handoff.StateFailed, At: at}, "last resume failed 12 minutes ago", true},
		{lifecycle{State: lifeActive, Agent: "qa", PID: 7}, "active: handing off to @qa (pid 7)", true},
		{lifecycle{State: lifeLocked, PID: 42}, "locked by pid 42", true},
		{lifecycle{State: lifeLocked}, "locked (untrusted lock)", true},
		{lifecycle{State: lifeStaleLock, PID: 9}, "stale lock of pid 9", true},
		{lifecycle{State: lifeInterrupted}, "interrupted", false},
	} {
		if got := tt.l.text(now); got != tt.want {
			t.Errorf("%+v: text = %q, want %q", tt.l, got, tt.want)
		}
		j := tt.l.json(now)
		if (j != nil) != tt.json {
			t.Errorf("%+v: json = %+v", tt.l, j)
		}
		if j != nil && !tt.l.At.IsZero() && (j.AgoSeconds == nil || *j.AgoSeconds != 720) {
			t.Errorf("%+v: ago_seconds = %v", tt.l, j.AgoSeconds)
		}
	}
}

func TestValidationWord(t *testing.T) {
	blocking := func(check, code string) workflow.Finding {
		return workflow.Finding{Check: check, Severity: workflow.Blocking, Code: code}
	}
	for _, tt := range []struct {
		name   string
		status string // candidate status
		rep    *validate.Report
		want   string
	}{
		{"not validated", "", nil, ""},
		{"clean", "interrupted", &validate.Report{Status: validate.StatusClean}, "clean"},
		{"conflicts", "interrupted", &validate.Report{Status: validate.StatusConflicts, Findings: []workflow.Finding{blocking(workflow.CheckConflict, "file-changed")}}, "conflicts"},
		{"unreadable state", rebuild.StatusUnreadable, &validate.Report{Status: validate.StatusConflicts}, "corrupt"},
		{"parse blocking", "interrupted", &validate.Report{Status: validate.StatusConflicts, Findings: []workflow.Finding{blocking(workflow.CheckParse, "yaml")}}, "corrupt"},
		{"deleted story", "interrupted", &validate.Report{Status: validate.StatusConflicts, Findings: []workflow.Finding{blocking(workflow.CheckConflict, "file-changed"), blocking(workflow.CheckConsistency, "story-missing")}}, "missing"},
		{"missing critical file", "interrupted", &validate.Report{Status: validate.StatusConflicts, Findings: []workflow.Finding{blocking(workflow.CheckIntegrity, "missing-critical")}}, "missing"},
		{"a missing file warning", "interrupted", &validate.Report{Status: validate.StatusWarnings, Findings: []workflow.Finding{{Check: workflow.CheckIntegrity, Severity: workflow.Warning, Code: "missing-file"}}}, "warnings"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := validationWord(workflow.Candidate{Status: tt.status}, tt.rep); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
