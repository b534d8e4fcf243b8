package epic

import (
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Waves keep their own numbering (0-based, gaps): no false duplicate, wave 0
// kept, and the position counts the waves listed.
func TestEpicWaveNumbering(t *testing.T) {
	sevenFromZero := "epic_state:\n  epic_id: Z\n  status: in_progress\n  current_wave: 2\n  waves:\n"
	for i := 0; i < 7; i++ {
		st := "pending"
		if i < 2 {
			st = "completed"
		}
		sevenFromZero += "    - wave: " + string(rune('0'+i)) + "\n      status: " + st + "\n      stories: [Z." + string(rune('0'+i)) + "]\n"
	}
	tests := []struct {
		name       string
		data       string
		waves      string // epicWaveSummary
		cur        int
		position   string
		noFindings bool
	}{
		{
			name:       "seven waves from 0, current 2",
			data:       sevenFromZero,
			waves:      "0 completed [Z.0=]; 1 completed [Z.1=]; 2 pending [Z.2=]; 3 pending [Z.3=]; 4 pending [Z.4=]; 5 pending [Z.5=]; 6 pending [Z.6=]",
			cur:        2,
			position:   "2/7 done, at wave 2",
			noFindings: true,
		},
		{
			name:       "wave 0 current by default",
			data:       "epic_state:\n  epic_id: A\n  status: in_progress\n  waves:\n    - wave: 0\n      stories: [{id: A.1, status: in_progress}]\n    - wave: 1\n      stories: [A.2]\n",
			waves:      "0 in_progress [A.1=in_progress]; 1 pending [A.2=]",
			cur:        0,
			position:   "0/2 done, at wave 0",
			noFindings: true,
		},
		{
			name:       "recorded current wave 0",
			data:       "epic_id: B\nstatus: in_progress\ncurrent_wave: 0\nwaves:\n  \"0\": {status: in_progress, stories: [B.1]}\n  \"1\": {stories: [B.2]}\n",
			waves:      "0 in_progress [B.1=]; 1 pending [B.2=]",
			cur:        0,
			position:   "0/2 done, at wave 0",
			noFindings: true,
		},
		{
			name:       "gaps: 1, 3, 5",
			data:       "epic_id: C\nstatus: in_progress\ncurrent_wave: 3\nwaves:\n  - {wave: 1, status: completed, stories: [C.1]}\n  - {wave: 3, stories: [C.3]}\n  - {wave: 5, stories: [C.5]}\n",
			waves:      "1 completed [C.1=]; 3 pending [C.3=]; 5 pending [C.5=]",
			cur:        3,
			position:   "1/3 done, at wave 3",
			noFindings: true,
		},
		{
			name:       "1-based with current 0 means not started",
			data:       "epic_id: D\nstatus: in_progress\ncurrent_wave: 0\nwaves:\n  - {wave: 1, stories: [D.1]}\n  - {wave: 2, stories: [D.2]}\n",
			waves:      "1 pending [D.1=]; 2 pending [D.2=]",
			cur:        1,
			position:   "0/2 done, at wave 1",
			noFindings: true,
		},
		{
			name:       "stories carry wave 0",
			data:       "epic_id: E\nstatus: in_progress\nstories:\n  - {id: E.1, wave: 0, status: done}\n  - {id: E.2, wave: 1}\n",
			waves:      "0 completed [E.1=done]; 1 pending [E.2=]",
			cur:        1,
			position:   "1/2 done, at wave 1",
			noFindings: true,
		},
		{
			name:     "a real duplicate is still reported",
			data:     "epic_id: F\nstatus: in_progress\nwaves:\n  - {wave: 1, stories: [F.1]}\n  - {wave: 1, stories: [F.2]}\n",
			waves:    "1 pending [F.1=,F.2=]",
			cur:      1,
			position: "0/1 done, at wave 1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fs := ParseEpicState(".aiox/epic-x-state.yaml", []byte(tt.data))
			if got := epicWaveSummary(c); got != tt.waves {
				t.Errorf("waves = %q\nwant    %q", got, tt.waves)
			}
			if c.Epic.CurrentWave != tt.cur {
				t.Errorf("current wave = %d, want %d", c.Epic.CurrentWave, tt.cur)
			}
			if got := c.Position.String(); got != tt.position {
				t.Errorf("position = %q, want %q", got, tt.position)
			}
			for _, f := range fs {
				if f.Code == "duplicate-wave" && tt.noFindings {
					t.Errorf("false duplicate: %s", f.Message)
				}
			}
			if tt.noFindings && len(fs) > 0 {
				t.Errorf("findings = %+v", fs)
			}
			if !tt.noFindings && !hasCode(fs, "duplicate-wave") {
				t.Errorf("no duplicate-wave finding: %+v", fs)
			}
		})
	}
}

// A state is finished when its own fields say so, and the candidate says
// which field decided.
func TestEpicTerminalSpellings(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		resumable bool
		field     string // the field the "finished" finding names; "" for none
	}{
		{"status completed", "epic_state:\n  epic_id: A\n  status: completed\n  waves: [{wave: 1, stories: [A.1]}]\n", false, ""},
		{"status FINISHED", "epic_state:\n  epic_id: A\n  status: FINISHED\n  waves: [{wave: 1, stories: [A.1]}]\n", false, ""},
		{"completed_at only", "epic_state:\n  epic_id: A\n  completed_at: '2026-01-02T10:00:00Z'\n  waves: [{wave: 1, stories: [A.1]}]\n", false, "completed_at"},
		{"finishedAt only", "epicId: A\nfinishedAt: '2026-01-02T10:00:00Z'\nwaves: [{wave: 1, stories: [A.1]}]\n", false, "finishedAt"},
		{"phase DONE", "engine_state:\n  epic_id: A\n  current_phase: DONE\n  waves: [{wave: 1, stories: [A.1]}]\n", false, "current_phase"},
		{"completed_at null", "epic_id: A\ncompleted_at: null\nwaves: [{wave: 1, stories: [A.1]}]\n", true, ""},
		{"in progress wins over nothing", "epic_id: A\nstatus: in_progress\nwaves: [{wave: 1, stories: [A.1]}]\n", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fs := ParseEpicState(".aiox/epic-a-state.yaml", []byte(tt.data))
			if c.Resumable != tt.resumable {
				t.Errorf("resumable = %v, want %v (status %q)", c.Resumable, tt.resumable, c.Status)
			}
			got := ""
			for _, f := range fs {
				if f.Code == "finished" {
					got = f.Message
				}
			}
			if (tt.field == "") != (got == "") || !strings.Contains(got, tt.field) {
				t.Errorf("finished finding = %q, want one naming %q", got, tt.field)
			}
		})
	}
}

func hasCode(fs []workflow.Finding, code string) bool {
	for _, f := range fs {
		if f.Code == code {
			return true
		}
	}
	return false
}
