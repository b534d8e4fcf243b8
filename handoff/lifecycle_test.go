package handoff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// logLine is one orchestration log line of a handoff event.
func logLine(event, id, key, at string) string {
	return `{"event":"` + event + `","workflow":"` + id + `","idempotency_key":"` + key +
		`","agent":"dev","resume_point":"develop","time":"` + at + `","level":"info","msg":"x"}` + "\n"
}

func TestHistory(t *testing.T) {
	const (
		a  = "2026-11-20T10:00:00Z"
		b  = "2026-11-20T11:00:00Z"
		id = "workflow:sdc-1"
	)
	for _, tt := range []struct {
		name  string
		log   string
		live  bool // the workflow's lock is held by a live process
		want  string
		at    string
		empty bool
	}{
		{name: "no log", log: "", empty: true},
		{name: "handed off", log: logLine(EventDispatched, id, "k", a) + logLine(EventStarted, id, "k", a) + logLine(EventHandedOff, id, "k", b), want: StateHandedOff, at: b},
		{name: "started, never finished", log: logLine(EventDispatched, id, "k", a) + logLine(EventStarted, id, "k", a), want: StateStarted, at: a},
		{name: "dispatched, never started, no lock", log: logLine(EventDispatched, id, "k", a), want: StateUnconfirmed, at: a},
		{name: "dispatched, lock live", log: logLine(EventDispatched, id, "k", a), live: true, want: StateDispatched, at: a},
		{name: "failed after handed off", log: logLine(EventHandedOff, id, "k", a) + logLine(EventFailed, id, "k2", b), want: StateFailed, at: b},
		{name: "skipped does not change it", log: logLine(EventHandedOff, id, "k", a) + logLine(EventSkipped, id, "k", b), want: StateHandedOff, at: a},
		{name: "garbage and torn lines", log: "not json\n{\"event\":\"resume.handed_off\",\"workf\n" + logLine(EventHandedOff, id, "k", a) + "\x00\x01\n" + `{"event":"resume.dispatched","workflow":"workflow:sdc-1","time":"bad"}` + "\n" + logLine(EventDispatched, id, "k2", b)[:40], want: StateHandedOff, at: a},
		{name: "other events only", log: `{"event":"cleanup.removed","workflow":"workflow:sdc-1"}` + "\n", empty: true},
		{name: "no workflow", log: `{"event":"resume.handed_off"}` + "\n", empty: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			logPath := filepath.Join(root, ".orchestrate", "log.jsonl")
			if tt.log != "" {
				os.MkdirAll(filepath.Dir(logPath), 0o755)
				if err := os.WriteFile(logPath, []byte(tt.log), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if tt.live {
				withAlive(t, 4242)
				host, _ := os.Hostname()
				writeLock(t, root, id, LockInfo{PID: 4242, Host: host, StartedAt: time.Now()}, 0o600)
			} else {
				withAlive(t)
			}
			h, err := History(root, logPath)
			if err != nil {
				t.Fatal(err)
			}
			l, ok := h[id]
			if tt.empty {
				if ok || len(h) != 0 {
					t.Fatalf("history = %+v, want empty", h)
				}
				return
			}
			if !ok || l.State != tt.want || l.At.Format(time.RFC3339) != tt.at || l.Agent != "dev" || l.Phase != "develop" {
				t.Errorf("last = %+v (found %v), want %s at %s", l, ok, tt.want, tt.at)
			}
		})
	}
}

// A log larger than the bound is read from its end: the newest event wins,
// and the cut first line is skipped.
func TestHistoryBounded(t *testing.T) {
	root := t.TempDir()
	logPath := filepath.Join(root, "log.jsonl")
	pad := `{"event":"old","msg":"` + strings.Repeat("p", 1000) + `"}` + "\n"
	var b strings.Builder
	b.WriteString(logLine(EventHandedOff, "workflow:gone", "k0", "2026-11-20T09:00:00Z"))
	for b.Len() < MaxHistoryBytes+10_000 {
		b.WriteString(pad)
	}
	b.WriteString(logLine(EventHandedOff, "workflow:sdc-1", "k", "2026-11-20T10:00:00Z"))
	os.WriteFile(logPath, []byte(b.String()), 0o600)
	h, err := History(root, logPath)
	if err != nil {
		t.Fatal(err)
	}
	if h["workflow:sdc-1"].State != StateHandedOff {
		t.Errorf("history = %+v", h)
	}
	if _, ok := h["workflow:gone"]; ok {
		t.Error("read beyond the bound")
	}
}

// A log that is a symlink or a FIFO is refused, not followed or blocked on.
func TestHistoryConfined(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "log.jsonl")
	os.WriteFile(outside, []byte(logLine(EventHandedOff, "workflow:x", "k", "2026-11-20T10:00:00Z")), 0o600)
	os.MkdirAll(filepath.Join(root, ".orchestrate"), 0o755)
	link := filepath.Join(root, ".orchestrate", "log.jsonl")
	os.Symlink(outside, link)
	if h, err := History(root, link); err == nil || len(h) != 0 {
		t.Errorf("symlinked log: %+v, %v", h, err)
	}
}

func TestLockStateOf(t *testing.T) {
	root := t.TempDir()
	id := "workflow:sdc-1"
	host, _ := os.Hostname()
	withAlive(t, 4242)
	if st := LockStateOf(root, id); st.State != LockFree {
		t.Errorf("no lock: %+v", st)
	}
	writeLock(t, root, id, LockInfo{PID: 4242, Host: host, StartedAt: time.Now()}, 0o600)
	if st := LockStateOf(root, id); st.State != LockLive || st.PID != 4242 || st.Host != host {
		t.Errorf("live lock: %+v", st)
	}
	writeLock(t, root, id, LockInfo{PID: 4243, Host: host, StartedAt: time.Now()}, 0o600)
	if st := LockStateOf(root, id); st.State != LockStale || st.PID != 4243 {
		t.Errorf("stale lock: %+v", st)
	}
}

// --again hands the same resume off once more (a new envelope, logged as
// again); a dispatch whose command never started is handed off again
// without it, and says so.
func TestExecuteAgainAndUnconfirmed(t *testing.T) {
	root, req := fixture(t)
	req.Command = "echo run >> runs.txt"
	if _, err := Execute(req); err != nil {
		t.Fatal(err)
	}
	res, err := Execute(req)
	if err != nil || !res.AlreadyHandedOff || res.PreviousAt.IsZero() {
		t.Fatalf("second: %+v, %v", res, err)
	}
	req.Again = true
	res, err = Execute(req)
	if err != nil || res.AlreadyHandedOff || filepath.Base(res.EnvelopePath) != "workflow_sdc-1-2.json" {
		t.Fatalf("--again: %+v, %v", res, err)
	}
	runs, _ := os.ReadFile(filepath.Join(root, "runs.txt"))
	if string(runs) != "run\nrun\n" {
		t.Errorf("runs = %q", runs)
	}
	log, _ := os.ReadFile(req.LogPath)
	if !strings.Contains(string(log), `"again":true`) {
		t.Errorf("--again not logged:\n%s", log)
	}

	// a dispatch record alone (killed before the command started)
	req.Again = false
	os.WriteFile(req.LogPath, []byte(logLine(EventDispatched, "workflow:sdc-1", res.IdempotencyKey, "2026-11-20T10:00:00Z")), 0o600)
	res, err = Execute(req)
	if err != nil || res.AlreadyHandedOff || !res.Unconfirmed {
		t.Fatalf("unconfirmed: %+v, %v", res, err)
	}
	if !loggedHandedOff(root, req.LogPath, res.IdempotencyKey) {
		t.Error("the retried handoff is not recorded")
	}
}
