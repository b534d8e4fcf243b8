package cli

import (
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/app/cli/jsondoc"
	"github.com/orchestrate-dev/orchestrate/app/resumeflow"
	"github.com/orchestrate-dev/orchestrate/handoff"
)

func TestLifecycleText(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 12, 0, 0, time.UTC)
	at := now.Add(-12 * time.Minute)
	for _, tt := range []struct {
		l    resumeflow.Lifecycle
		want string
		json bool
	}{
		{resumeflow.Lifecycle{State: handoff.StateHandedOff, At: at, Agent: "dev"}, "handed off 12 minutes ago to @dev", true},
		{resumeflow.Lifecycle{State: handoff.StateUnconfirmed, At: at, Agent: "dev"}, "unconfirmed: dispatched 12 minutes ago to @dev, never started", true},
		{resumeflow.Lifecycle{State: handoff.StateStarted, At: at}, "started 12 minutes ago, never confirmed finished", true},
		{resumeflow.Lifecycle{State: handoff.StateFailed, At: at}, "last resume failed 12 minutes ago", true},
		{resumeflow.Lifecycle{State: resumeflow.LifeActive, Agent: "qa", PID: 7}, "active: handing off to @qa (pid 7)", true},
		{resumeflow.Lifecycle{State: resumeflow.LifeLocked, PID: 42}, "locked by pid 42", true},
		{resumeflow.Lifecycle{State: resumeflow.LifeLocked}, "locked (untrusted lock)", true},
		{resumeflow.Lifecycle{State: resumeflow.LifeStaleLock, PID: 9}, "stale lock of pid 9", true},
		{resumeflow.Lifecycle{State: resumeflow.LifeInterrupted}, "interrupted", false},
	} {
		if got := tt.l.Text(now); got != tt.want {
			t.Errorf("%+v: text = %q, want %q", tt.l, got, tt.want)
		}
		j := jsondoc.NewLifecycle(tt.l, now)
		if (j != nil) != tt.json {
			t.Errorf("%+v: json = %+v", tt.l, j)
		}
		if j != nil && !tt.l.At.IsZero() && (j.AgoSeconds == nil || *j.AgoSeconds != 720) {
			t.Errorf("%+v: ago_seconds = %v", tt.l, j.AgoSeconds)
		}
	}
}
