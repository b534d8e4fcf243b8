package resumeflow

import (
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func TestSelect(t *testing.T) {
	cands := []workflow.Candidate{
		{ID: "workflow:sdc-1", Key: "sdc-1", Type: workflow.TypeSDC, Stories: []string{"4.2"}, Status: "interrupted", Resumable: true},
		{ID: "workflow:done-1", Key: "done-1", Type: workflow.TypeSDC, Stories: []string{"4.2"}, Status: "completed"},
		{ID: "workflow:idle-1", Key: "idle-1", Type: workflow.TypeSDC, Status: "idle"},
		{ID: "workflow:sdc-2", Key: "sdc-2", Type: workflow.TypeSDC, Status: "interrupted", Resumable: true},
	}
	tests := []struct {
		name, arg, wantID, outcome string
		code                       exitcode.Code
	}{
		{name: "by key", arg: "sdc-1", wantID: "workflow:sdc-1"},
		{name: "a story id shared with finished work takes the resumable one", arg: "4.2", wantID: "workflow:sdc-1"},
		{name: "finished", arg: "done-1", wantID: "workflow:done-1", outcome: "terminal", code: exitcode.Terminal},
		{name: "not interrupted", arg: "idle-1", wantID: "workflow:idle-1", outcome: "halted", code: exitcode.Cannot},
		{name: "unknown", arg: "nope", outcome: "not_found", code: exitcode.NotFound},
		{name: "ambiguous between resumable ones", arg: "workflow:sdc", outcome: "error", code: exitcode.Usage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sel := Select(cands, tc.arg)
			id := ""
			if sel.Candidate != nil {
				id = sel.Candidate.ID
			}
			if id != tc.wantID || sel.Outcome != tc.outcome || sel.Code != tc.code || (sel.Err != nil) != (tc.outcome != "") {
				t.Errorf("Select(%q) = %s %q %d %v; want %s %q %d", tc.arg, id, sel.Outcome, sel.Code, sel.Err, tc.wantID, tc.outcome, tc.code)
			}
		})
	}
}

func TestPick(t *testing.T) {
	asked := 0
	choose := func() (int, error) { asked++; return 2, nil }
	tests := []struct {
		name      string
		n         int
		mode      modes.Mode
		dryRun    bool
		canPrompt bool
		idx       int
		code      int // -1: no end
		asks      int
	}{
		{"one candidate", 1, modes.ModeInteractive, false, true, 0, -1, 0},
		{"autopilot takes the most recent", 3, modes.ModeAutopilot, false, true, 0, -1, 0},
		{"a dry run plans the most recent", 3, modes.ModeInteractive, true, false, 0, -1, 0},
		{"no mode yet asks", 3, "", false, true, 2, -1, 1},
		{"no terminal: exit 19", 3, modes.ModePreflight, false, false, 0, int(exitcode.NoTTY), 0},
	}
	for _, tc := range tests {
		asked = 0
		idx, end, err := Pick(tc.n, tc.mode, tc.dryRun, tc.canPrompt, choose)
		if err != nil || idx != tc.idx || asked != tc.asks {
			t.Errorf("%s: idx %d err %v asked %d", tc.name, idx, err, asked)
		}
		if code := -1; end != nil {
			code = end.Code
			if code != tc.code {
				t.Errorf("%s: end %+v", tc.name, end)
			}
		} else if tc.code != -1 {
			t.Errorf("%s: no end, want exit %d", tc.name, tc.code)
		}
	}
	_, _, err := Pick(2, modes.ModeInteractive, false, true, func() (int, error) { return 0, modes.ErrDeclined })
	if !Cancel(err) {
		t.Errorf("a cancelled pick: %v", err)
	}
}
