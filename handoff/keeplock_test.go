package handoff

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// KeepLock (a claim over orchestrate mcp): the handoff goes through and the
// lock stays held, in Result.Held, until the caller releases it; every
// event names the Holder. A second handoff meanwhile is refused by the
// lock; released, it is already handed off.
func TestExecuteKeepLockAndHolder(t *testing.T) {
	_, req := fixture(t)
	req.Command = ""
	req.KeepLock, req.Holder = true, "claude-code"
	req.Lock.PID = os.Getpid()
	req.Lock.Host, _ = hostname() // this host, this live process
	res, err := Execute(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Held == nil {
		t.Fatal("no lock in Result.Held")
	}
	if st := Inspect(req.Root, req.Candidate.ID); !st.Exists || !st.Live {
		t.Fatalf("the lock is not held after the handoff: %+v", st)
	}
	raw, _ := os.ReadFile(req.LogPath)
	// dispatched, started, handed off: each names the holder
	if n, lines := bytes.Count(raw, []byte(`"holder":"claude-code"`)), bytes.Count(raw, []byte("\n")); n != 3 || lines != 3 {
		t.Fatalf("%d of %d events name the holder, want 3 of 3:\n%s", n, lines, raw)
	}
	var locked *LockedError
	if _, err := Execute(req); !errors.As(err, &locked) {
		t.Errorf("a second handoff while held: %v, want *LockedError", err)
	}
	if err := res.Held.Release(); err != nil {
		t.Fatal(err)
	}
	if st := Inspect(req.Root, req.Candidate.ID); st.Exists {
		t.Error("the lock outlived its release")
	}
	if again, err := Execute(req); err != nil || !again.AlreadyHandedOff || again.Held != nil {
		t.Errorf("after the release: %+v, %v", again, err)
	}
	// without KeepLock nothing is held and no holder is logged
	_, plain := fixture(t)
	plain.Command = ""
	if res, err := Execute(plain); err != nil || res.Held != nil {
		t.Errorf("plain handoff: %+v, %v", res, err)
	}
	for _, ev := range events(t, plain.LogPath) {
		if _, has := ev["holder"]; has {
			t.Errorf("a plain handoff logs a holder: %v", ev)
		}
	}
}
