package iostreams

import "testing"

func TestColorEnabled(t *testing.T) {
	tests := []struct {
		name    string
		noColor bool
		env     map[string]string
		tty     bool
		want    bool
	}{
		{name: "terminal", tty: true, want: true},
		{name: "not a terminal", want: false},
		{name: "--no-color", noColor: true, tty: true, want: false},
		{name: "NO_COLOR", env: map[string]string{"NO_COLOR": "1"}, tty: true, want: false},
		{name: "CLICOLOR=0", env: map[string]string{"CLICOLOR": "0"}, tty: true, want: false},
		{name: "TERM=dumb", env: map[string]string{"TERM": "dumb"}, tty: true, want: false},
		{name: "CLICOLOR_FORCE without terminal", env: map[string]string{"CLICOLOR_FORCE": "1"}, want: true},
		{name: "CLICOLOR_FORCE over TERM=dumb", env: map[string]string{"CLICOLOR_FORCE": "1", "TERM": "dumb"}, want: true},
		{name: "CLICOLOR_FORCE=0 forces nothing", env: map[string]string{"CLICOLOR_FORCE": "0"}, want: false},
		{name: "NO_COLOR over CLICOLOR_FORCE", env: map[string]string{"CLICOLOR_FORCE": "1", "NO_COLOR": "1"}, tty: true, want: false},
		{name: "--no-color over CLICOLOR_FORCE", noColor: true, env: map[string]string{"CLICOLOR_FORCE": "1"}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			if got := ColorEnabled(tt.noColor, getenv, tt.tty); got != tt.want {
				t.Errorf("ColorEnabled = %v, want %v", got, tt.want)
			}
		})
	}
}
