package resumeflow

import (
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/sharedlife"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// LifecycleShared: a live foreign lease first; then the newer of the local
// history and the shared records; a record older than the state's last
// update (a new interruption) does not count.
func TestLifecycleShared(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	root := t.TempDir()
	runner := sharedlife.Runner{Owner: "ci", Host: "h", CI: "gitlab-ci job 9"}
	rec := func(event string, ago time.Duration) sharedlife.Records {
		return sharedlife.Records{Tip: "x", Last: sharedlife.Record{Workflow: "w", Event: event, Agent: "@dev", Runner: runner, At: now.Add(-ago)}}
	}
	c := workflow.Candidate{ID: "w", UpdatedAt: now.Add(-3 * time.Hour)}
	tests := []struct {
		name  string
		hist  map[string]handoff.Last
		sh    *Shared
		c     workflow.Candidate
		state string
		text  string
	}{
		{name: "off", state: LifeInterrupted},
		{name: "no record", sh: &Shared{}, state: LifeInterrupted},
		{name: "handed off remotely", sh: &Shared{View: sharedlife.View{Records: map[string]sharedlife.Records{"w": rec(sharedlife.EventHandedOff, 12*time.Minute)}}},
			state: handoff.StateHandedOff, text: "handed off 12 minutes ago to @dev by gitlab-ci job 9 (ci@h)"},
		{name: "dispatched, nobody holds it: unconfirmed", sh: &Shared{View: sharedlife.View{Records: map[string]sharedlife.Records{"w": rec(sharedlife.EventDispatched, time.Minute)}}},
			state: handoff.StateUnconfirmed},
		{name: "started", sh: &Shared{View: sharedlife.View{Records: map[string]sharedlife.Records{"w": rec(sharedlife.EventStarted, time.Minute)}}}, state: handoff.StateStarted},
		{name: "failed", sh: &Shared{View: sharedlife.View{Records: map[string]sharedlife.Records{"w": rec(sharedlife.EventFailed, time.Minute)}}}, state: handoff.StateFailed},
		{name: "interrupted again since the record", c: workflow.Candidate{ID: "w", UpdatedAt: now.Add(-time.Minute)},
			sh: &Shared{View: sharedlife.View{Records: map[string]sharedlife.Records{"w": rec(sharedlife.EventHandedOff, time.Hour)}}}, state: LifeInterrupted},
		{name: "local newer than remote", hist: map[string]handoff.Last{"w": {At: now.Add(-time.Minute), State: handoff.StateFailed}},
			sh: &Shared{View: sharedlife.View{Records: map[string]sharedlife.Records{"w": rec(sharedlife.EventHandedOff, time.Hour)}}}, state: handoff.StateFailed},
		{name: "remote newer than local", hist: map[string]handoff.Last{"w": {At: now.Add(-2 * time.Hour), State: handoff.StateFailed}},
			sh: &Shared{View: sharedlife.View{Records: map[string]sharedlife.Records{"w": rec(sharedlife.EventHandedOff, time.Hour)}}}, state: handoff.StateHandedOff},
		{name: "live lease of another runner", sh: &Shared{View: sharedlife.View{
			Locks:   map[string]sharedlife.Lock{"w": {Workflow: "w", Runner: runner, Acquired: now.Add(-time.Minute), Expires: now.Add(time.Hour)}},
			Records: map[string]sharedlife.Records{"w": rec(sharedlife.EventHandedOff, time.Hour)}}},
			state: LifeHeldRemotely, text: "held by gitlab-ci job 9 (ci@h) on the shared lifecycle (lease until 2026-11-20T13:00:00Z)"},
		{name: "expired lease: not held", sh: &Shared{View: sharedlife.View{
			Locks: map[string]sharedlife.Lock{"w": {Workflow: "w", Runner: runner, Expires: now.Add(-time.Second)}}}}, state: LifeInterrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cand := c
			if tt.c.ID != "" {
				cand = tt.c
			}
			hist := tt.hist
			if hist == nil {
				hist = map[string]handoff.Last{}
			}
			l := LifecycleShared(handoff.ViewLocks(root), hist, tt.sh, now, cand)
			if l.State != tt.state {
				t.Fatalf("state %q, want %q (%+v)", l.State, tt.state, l)
			}
			if tt.text != "" && l.Text(now) != tt.text {
				t.Errorf("text %q, want %q", l.Text(now), tt.text)
			}
		})
	}
}
