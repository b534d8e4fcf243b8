package cli

import (
	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/modes/prompttest"
)

const (
	hintStaleState = "execution_id: sdc-1\nworkflow: story-development-cycle\nstory: \"4.2\"\nupdated_at: 2026-11-01T11:00:00Z\ncurrent_phase: implement\nstatus: interrupted\nphases_completed:\n  - {phase: create, agent: sm, output: docs/stories/4.2.s.md}\n  - {phase: validate, agent: po, output: docs/stories/4.2.s.md}\n"
)

// TestHintsTerminalPaths: what a person at a terminal is offered when a
// resume halts or has nothing to do.
func TestHintsTerminalPaths(t *testing.T) {
	t.Run("autopilot on a terminal falls back to interactive on a stale state", func(t *testing.T) {
		dir := testRepo(t, map[string]string{".orchestrate/workflows/sdc-1.yaml": hintStaleState, "docs/stories/4.2.s.md": story42})
		before := rbSnapshot(t, dir)
		p := prompttest.Answering(modes.OptionCancel)
		r := rbRun(t, dir, true, p, "resume", "--mode", "autopilot")
		if r.code != cmdutil.ExitDeclined || !strings.Contains(r.err.String(), "switching to interactive mode") {
			t.Errorf("exit %d\n%s", r.code, r.err.String())
		}
		if len(p.Asked) == 0 || p.Asked[0].Message != modes.QuestionResume {
			t.Errorf("asked %+v", p.Asked)
		}
		rbSame(t, before, rbSnapshot(t, dir))
		// without a terminal it halts, naming what works
		r = rbRun(t, dir, false, nil, "resume", "--mode", "autopilot")
		if r.code != cmdutil.ExitCannot || !strings.Contains(r.out.String(), "--restart --mode autopilot to start over, or run orchestrate cleanup") {
			t.Errorf("no terminal: exit %d\n%s", r.code, r.out.String())
		}
	})

	t.Run("interactive offers cleanup for a stale state that cannot resume", func(t *testing.T) {
		dir := testRepo(t, map[string]string{".orchestrate/workflows/sdc-1.yaml": hintStaleState})
		p := prompttest.Script(t, prompttest.Reply{Index: 0}, prompttest.Reply{Yes: true})
		r := rbRun(t, dir, true, p, "resume", "workflow:sdc-1")
		if r.code != cmdutil.ExitOK {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.out.String(), r.err.String())
		}
		if q := p.Asked[0]; q.Message != modes.QuestionInstead || strings.Join(q.Options, "|") != modes.OptionCleanup+"|"+modes.OptionCancel {
			t.Errorf("asked %+v", q)
		}
		if _, err := os.Stat(filepath.Join(dir, ".orchestrate/workflows/sdc-1.yaml")); !os.IsNotExist(err) {
			t.Errorf("the state was not archived: %v", err)
		}
	})

	t.Run("interactive offers nothing but the fix for a recent state that cannot resume", func(t *testing.T) {
		recent := strings.Replace(hintStaleState, "2026-11-01T11:00:00Z", "2026-11-20T11:10:00Z", 1)
		dir := testRepo(t, map[string]string{".orchestrate/workflows/sdc-1.yaml": recent})
		p := prompttest.Script(t)
		r := rbRun(t, dir, true, p, "resume", "workflow:sdc-1")
		if r.code != cmdutil.ExitCannot || len(p.Asked) != 0 || strings.Contains(r.out.String(), "cleanup") {
			t.Errorf("exit %d asked %+v\n%s", r.code, p.Asked, r.out.String())
		}
	})

	t.Run("interactive offers to hand off again, default no", func(t *testing.T) {
		fresh := strings.Replace(hintStaleState, "2026-11-01T11:00:00Z", "2026-11-20T11:00:00Z", 1)
		dir := testRepo(t, map[string]string{".orchestrate/workflows/sdc-1.yaml": fresh, "docs/stories/4.2.s.md": story42})
		if r := rbRun(t, dir, false, nil, "resume", "--mode", "autopilot", "workflow:sdc-1"); r.code != cmdutil.ExitOK {
			t.Fatalf("first handoff: exit %d\n%s", r.code, r.err.String())
		}
		// declined: nothing more, the JSON-free text names --again
		p := prompttest.Script(t, prompttest.Reply{Index: 0}, prompttest.Reply{Yes: false})
		r := rbRun(t, dir, true, p, "resume", "--mode", "interactive", "workflow:sdc-1")
		if r.code != cmdutil.ExitOK || !strings.Contains(r.out.String(), "--again") {
			t.Errorf("declined: exit %d\n%s", r.code, r.out.String())
		}
		if len(p.Asked) != 2 || !strings.Contains(p.Asked[1].Message, modes.QuestionAgain) || p.Asked[1].Default != false {
			t.Errorf("asked %+v", p.Asked)
		}
		// confirmed: a second envelope
		p = prompttest.Script(t, prompttest.Reply{Index: 0}, prompttest.Reply{Yes: true})
		r = rbRun(t, dir, true, p, "resume", "--mode", "interactive", "workflow:sdc-1")
		if r.code != cmdutil.ExitOK || !strings.Contains(r.out.String(), "Handing workflow:sdc-1 off again") {
			t.Errorf("confirmed: exit %d\n%s\n%s", r.code, r.out.String(), r.err.String())
		}
		if _, err := os.Stat(filepath.Join(dir, ".orchestrate/handoffs/workflow_sdc-1-2.json")); err != nil {
			t.Errorf("no second envelope: %v", err)
		}
	})
}
