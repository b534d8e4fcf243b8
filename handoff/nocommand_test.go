package handoff

import (
	"bytes"
	"os"
	"testing"
)

const wantStarted = "handed off, no command configured (nothing was run; the envelope is the handoff)"

// With no handoff.command nothing runs: every event of the handoff says
// so (command_configured false) and none names a command or an exit
// status; the handoff still counts as done (no second handoff).
func TestExecuteWithoutCommandLogsNoCommand(t *testing.T) {
	_, req := fixture(t)
	req.Command = "  "
	res, err := Execute(req)
	if err != nil {
		t.Fatal(err)
	}
	evs := events(t, req.LogPath)
	if len(evs) == 0 {
		t.Fatal("no event logged")
	}
	raw, _ := os.ReadFile(req.LogPath)
	if n := bytes.Count(raw, []byte("\n")); n != 3 || !bytes.Contains(raw, []byte(wantStarted)) ||
		bytes.Contains(raw, []byte(`"exit_status"`)) || bytes.Contains(raw, []byte(`"command":`)) || bytes.Contains(raw, []byte("the command for")) {
		t.Fatalf("log (%d lines):\n%s", n, raw)
	}
	wantMsg := map[string]string{
		EventDispatched: "",
		EventStarted:    wantStarted,
		EventHandedOff:  "handed off to @" + res.Agent + " at " + res.Phase + ", no command configured",
	}
	for _, ev := range evs {
		name, _ := ev["event"].(string)
		want, ok := wantMsg[name]
		if !ok {
			t.Errorf("unexpected event %v", ev)
			continue
		}
		if _, has := ev["command"]; has {
			t.Errorf("%s names a command: %v", name, ev["command"])
		}
		if _, has := ev["exit_status"]; has {
			t.Errorf("%s names an exit status: %v", name, ev["exit_status"])
		}
		if ev["command_configured"] != false {
			t.Errorf("%s: command_configured = %v", name, ev["command_configured"])
		}
		if want != "" && ev["msg"] != want {
			t.Errorf("%s: msg %q, want %q", name, ev["msg"], want)
		}
	}
	if again, err := Execute(req); err != nil || !again.AlreadyHandedOff {
		t.Errorf("second run: %+v, %v", again, err)
	}
}
