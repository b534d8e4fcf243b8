package views

import "testing"

// The log's lines: a handoff without a command is said as such (never an
// exit status), an unlock names its workflow and whether it was forced.
func TestLogLineMessages(t *testing.T) {
	tests := []struct {
		ev   map[string]any
		want string
	}{
		{map[string]any{"time": "T", "event": "resume.handed_off", "workflow": "w", "command_configured": false, "exit_status": 0.0, "msg": "handed off to @dev at x, no command configured"},
			"T  resume.handed_off  w  no-command  -- handed off to @dev at x, no command configured"},
		{map[string]any{"time": "T", "event": "resume.failed", "workflow": "w", "exit_status": 3.0, "msg": "resume failed"},
			"T  resume.failed  w  exit=3  -- resume failed"},
		{map[string]any{"time": "T", "event": "unlock", "workflow": "w", "forced": true, "lock": "live", "msg": "live lock removed with --force"},
			"T  unlock  w  forced  -- live lock removed with --force"},
	}
	for _, tt := range tests {
		if got := LogLine(tt.ev); got != tt.want {
			t.Errorf("LogLine = %q\nwant      %q", got, tt.want)
		}
	}
}
