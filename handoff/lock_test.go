package handoff

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func me(pid int) LockInfo {
	return LockInfo{PID: pid, Host: "host-a", User: "ana", StartedAt: t0, Command: "orchestrate resume sdc:4.2"}
}

// withAlive makes the given pids the only live processes.
func withAlive(t *testing.T, pids ...int) {
	t.Helper()
	old := processAlive
	processAlive = func(pid int) bool {
		for _, p := range pids {
			if p == pid {
				return true
			}
		}
		return false
	}
	t.Cleanup(func() { processAlive = old })
}

func writeLock(t *testing.T, root, id string, info LockInfo, perm os.FileMode) string {
	t.Helper()
	p := LockPath(root, id)
	os.MkdirAll(filepath.Dir(p), 0o755)
	data, _ := json.Marshal(info)
	if err := os.WriteFile(p, data, perm); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, perm)
	return p
}

func TestSafeID(t *testing.T) {
	for in, want := range map[string]string{
		"sdc:4.2":               "sdc_4.2",
		"epic:EPIC-ACT":         "epic_EPIC-ACT",
		"workflow:a/b c":        "workflow_a_b_c",
		"..":                    "__",
		"work-session:wsess_1":  "work-session_wsess_1",
		"spec:lögin":            "spec_l_gin",
		strings.Repeat("x", 50): strings.Repeat("x", 50),
	} {
		if got := SafeID(in); got != want {
			t.Errorf("SafeID(%q) = %q, want %q", in, got, want)
		}
	}
	long := SafeID(strings.Repeat("y", 300))
	if len(long) > 100 || long == SafeID(strings.Repeat("y", 301)) {
		t.Errorf("long ids: %q", long)
	}
}

func TestAcquireRelease(t *testing.T) {
	root := t.TempDir()
	withAlive(t, 100)
	l, err := Acquire(root, "sdc:4.2", me(100), false)
	if err != nil {
		t.Fatal(err)
	}
	if l.Path != filepath.Join(root, ".orchestrate", "locks", "sdc_4.2.lock") {
		t.Errorf("path = %s", l.Path)
	}
	fi, err := os.Stat(l.Path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("lock file: %v %v", fi, err)
	}
	raw, _ := os.ReadFile(l.Path)
	for _, k := range []string{`"pid": 100`, `"host": "host-a"`, `"user": "ana"`, `"started_at": "2025-06-03T08:15:30Z"`, `"command": "orchestrate resume sdc:4.2"`} {
		if !strings.Contains(string(raw), k) {
			t.Errorf("lock file lacks %s:\n%s", k, raw)
		}
	}
	info, ok, err := ReadLock(root, "sdc:4.2")
	if err != nil || !ok || info.PID != 100 || !info.StartedAt.Equal(t0) {
		t.Errorf("ReadLock = %+v %v %v", info, ok, err)
	}
	old := hostname
	hostname = func() (string, error) { return "host-a", nil }
	defer func() { hostname = old }()
	if st := Inspect(root, "sdc:4.2"); !st.Exists || !st.Live || st.Stale || st.Owner.PID != 100 {
		t.Errorf("Inspect = %+v", st)
	}
	// a second acquire by another live process is refused
	_, err = Acquire(root, "sdc:4.2", me(200), true)
	var le *LockedError
	if !errors.As(err, &le) || le.Owner.PID != 100 || le.Reason != "" {
		t.Fatalf("err = %v, want *LockedError owned by 100", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(l.Path); !errors.Is(err, os.ErrNotExist) {
		t.Error("lock not removed")
	}
	if _, ok, _ := ReadLock(root, "sdc:4.2"); ok {
		t.Error("ReadLock still finds it")
	}
	if st := Inspect(root, "sdc:4.2"); st.Exists {
		t.Errorf("Inspect = %+v", st)
	}
}

func TestAcquireRace(t *testing.T) {
	root := t.TempDir()
	withAlive(t, 1, 2, 3, 4, 5, 6, 7, 8)
	for round := 0; round < 20; round++ {
		var wg sync.WaitGroup
		start := make(chan struct{})
		locks := make([]*Lock, 8)
		errs := make([]error, 8)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				locks[i], errs[i] = Acquire(root, "qa-loop:2.1", me(i+1), true)
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		var winner *Lock
		for i := range 8 {
			if errs[i] == nil {
				won++
				winner = locks[i]
				continue
			}
			var le *LockedError
			if !errors.As(errs[i], &le) {
				t.Fatalf("loser %d: %v, want *LockedError", i, errs[i])
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d winners", round, won)
		}
		if err := winner.Release(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestStaleLockSameHost(t *testing.T) {
	root := t.TempDir()
	withAlive(t, 200)
	p := writeLock(t, root, "sdc:4.2", me(99), 0o600) // pid 99 is dead
	_, err := Acquire(root, "sdc:4.2", me(200), false)
	var se *StaleLockError
	if !errors.As(err, &se) || se.Owner.PID != 99 || se.Path != p {
		t.Fatalf("err = %v, want *StaleLockError", err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal("a stale lock must not be removed without takeover")
	}
	l, err := Acquire(root, "sdc:4.2", me(200), true)
	if err != nil {
		t.Fatal(err)
	}
	if l.TookOver == nil || l.TookOver.PID != 99 {
		t.Errorf("TookOver = %+v", l.TookOver)
	}
	info, _, _ := ReadLock(root, "sdc:4.2")
	if info.PID != 200 {
		t.Errorf("lock now held by %d", info.PID)
	}
	if entries, _ := os.ReadDir(filepath.Dir(p)); len(entries) != 1 {
		t.Errorf("leftovers in the locks folder: %v", entries)
	}
}

func TestStaleLockRaceTakeover(t *testing.T) {
	root := t.TempDir()
	withAlive(t, 1, 2, 3, 4, 5, 6)
	for round := 0; round < 20; round++ {
		writeLock(t, root, "epic:E", me(99), 0o600)
		var wg sync.WaitGroup
		start := make(chan struct{})
		locks := make([]*Lock, 6)
		errs := make([]error, 6)
		for i := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				locks[i], errs[i] = Acquire(root, "epic:E", me(i+1), true)
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for i := range 6 {
			if errs[i] == nil {
				won++
				if err := locks[i].Release(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d processes took over the same stale lock (%v)", round, won, errs)
		}
	}
}

func TestLeaseOtherHost(t *testing.T) {
	root := t.TempDir()
	withAlive(t) // nothing is alive here; the other host's pid is not checked
	other := LockInfo{PID: 5, Host: "host-b", User: "bo", StartedAt: t0.Add(-time.Hour)}
	writeLock(t, root, "sdc:1", other, 0o600)
	var le *LockedError
	if _, err := Acquire(root, "sdc:1", me(1), true); !errors.As(err, &le) {
		t.Fatalf("within its lease: err = %v, want *LockedError", err)
	}
	other.StartedAt = t0.Add(-3 * time.Hour)
	writeLock(t, root, "sdc:1", other, 0o600)
	var se *StaleLockError
	if _, err := Acquire(root, "sdc:1", me(1), false); !errors.As(err, &se) {
		t.Fatalf("past the default lease: err = %v, want *StaleLockError", err)
	}
	other.Lease = 4 * time.Hour
	writeLock(t, root, "sdc:1", other, 0o600)
	if _, err := Acquire(root, "sdc:1", me(1), true); !errors.As(err, &le) {
		t.Fatalf("within its own lease: err = %v, want *LockedError", err)
	}
	raw, _ := os.ReadFile(LockPath(root, "sdc:1"))
	if !strings.Contains(string(raw), `"lease":"4h0m0s"`) {
		t.Errorf("lease not recorded: %s", raw)
	}
}

func TestUntrustedLocks(t *testing.T) {
	withAlive(t)
	t.Run("loose permissions", func(t *testing.T) {
		root := t.TempDir()
		p := writeLock(t, root, "sdc:1", me(99), 0o644)
		_, err := Acquire(root, "sdc:1", me(1), true)
		var le *LockedError
		if !errors.As(err, &le) || !strings.Contains(le.Reason, "0644") {
			t.Fatalf("err = %v", err)
		}
		if _, err := os.Stat(p); err != nil {
			t.Error("an untrusted lock was removed")
		}
		if st := Inspect(root, "sdc:1"); !st.Live || st.Reason == "" {
			t.Errorf("Inspect = %+v", st)
		}
	})
	t.Run("not JSON", func(t *testing.T) {
		root := t.TempDir()
		p := LockPath(root, "sdc:1")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("pid=12\n"), 0o600)
		_, err := Acquire(root, "sdc:1", me(1), true)
		var le *LockedError
		if !errors.As(err, &le) || !strings.Contains(le.Reason, "not a valid lock") {
			t.Fatalf("err = %v", err)
		}
		if _, _, err := ReadLock(root, "sdc:1"); err == nil {
			t.Error("ReadLock of a bad lock: want an error")
		}
		// not removed without force, removed with it
		if err := Remove(root, "sdc:1", false); !errors.As(err, &le) {
			t.Errorf("Remove without force: %v", err)
		}
		if err := Remove(root, "sdc:1", true); err != nil {
			t.Errorf("Remove --force: %v", err)
		}
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Error("not removed")
		}
	})
	t.Run("symlink", func(t *testing.T) {
		root := t.TempDir()
		target := filepath.Join(t.TempDir(), "target")
		data, _ := json.Marshal(me(99))
		os.WriteFile(target, data, 0o600)
		p := LockPath(root, "sdc:1")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.Symlink(target, p)
		_, err := Acquire(root, "sdc:1", me(1), true)
		var le *LockedError
		if !errors.As(err, &le) || !strings.Contains(le.Reason, "symlink") {
			t.Fatalf("err = %v", err)
		}
		if err := Remove(root, "sdc:1", true); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(target); err != nil {
			t.Error("the symlink's target was removed")
		}
	})
	t.Run("other uid", func(t *testing.T) {
		root := t.TempDir()
		writeLock(t, root, "sdc:1", me(99), 0o600)
		old := currentUID
		currentUID = func() int { return os.Getuid() + 1 } // the file now belongs to "someone else"
		defer func() { currentUID = old }()
		_, err := Acquire(root, "sdc:1", me(1), true)
		var le *LockedError
		if !errors.As(err, &le) || !strings.Contains(le.Reason, "another user") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("no pid", func(t *testing.T) {
		root := t.TempDir()
		writeLock(t, root, "sdc:1", LockInfo{Host: "host-a"}, 0o600)
		var le *LockedError
		if _, err := Acquire(root, "sdc:1", me(1), true); !errors.As(err, &le) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestRemove(t *testing.T) {
	root := t.TempDir()
	withAlive(t, 7)
	old := hostname
	hostname = func() (string, error) { return "host-a", nil }
	defer func() { hostname = old }()
	if err := Remove(root, "sdc:1", false); err != nil {
		t.Errorf("no lock: %v", err)
	}
	writeLock(t, root, "sdc:1", me(7), 0o600)
	var le *LockedError
	if err := Remove(root, "sdc:1", false); !errors.As(err, &le) {
		t.Errorf("live owner without force: %v", err)
	}
	if err := Remove(root, "sdc:1", true); err != nil {
		t.Errorf("live owner with force: %v", err)
	}
	writeLock(t, root, "sdc:1", me(8), 0o600) // dead
	if st := Inspect(root, "sdc:1"); !st.Stale || st.Live {
		t.Errorf("Inspect = %+v", st)
	}
	if err := Remove(root, "sdc:1", false); err != nil {
		t.Errorf("stale lock: %v", err)
	}
	if _, ok, _ := ReadLock(root, "sdc:1"); ok {
		t.Error("still there")
	}
}

func TestReleaseNotOurs(t *testing.T) {
	root := t.TempDir()
	withAlive(t, 1)
	l, err := Acquire(root, "sdc:1", me(1), false)
	if err != nil {
		t.Fatal(err)
	}
	writeLock(t, root, "sdc:1", me(2), 0o600) // someone replaced it
	if err := l.Release(); err == nil {
		t.Error("releasing a lock that is not ours: want an error")
	}
	if info, _, _ := ReadLock(root, "sdc:1"); info.PID != 2 {
		t.Error("someone else's lock was removed")
	}
}

func TestLockInfoJSON(t *testing.T) {
	var l LockInfo
	if err := json.Unmarshal([]byte(`{"pid":3,"host":"h","lease":90000000000}`), &l); err != nil || l.Lease != 90*time.Second {
		t.Errorf("numeric lease: %+v %v", l, err)
	}
	if err := json.Unmarshal([]byte(`{"pid":3,"lease":"soon"}`), &l); err == nil {
		t.Error("bad lease: want an error")
	}
	if err := json.Unmarshal([]byte(`{"pid":3,"lease":3153600000000000000}`), &l); err != nil || l.Lease < 24*365*time.Hour {
		t.Errorf("a century's lease: %v %v", l.Lease, err)
	}
}

// A lock whose folder or file is hostile is refused at once, and nothing is
// created outside the repository.
func TestLockConfinement(t *testing.T) {
	withAlive(t)
	tests := []struct {
		name  string
		setup func(t *testing.T, root, outside string)
		want  string // in the error of Acquire
	}{
		{"symlinked .orchestrate", func(t *testing.T, root, outside string) {
			os.Symlink(outside, filepath.Join(root, ".orchestrate"))
		}, "symlink leading out of the repository"},
		{"symlinked locks folder", func(t *testing.T, root, outside string) {
			os.MkdirAll(filepath.Join(root, ".orchestrate"), 0o755)
			os.Symlink(outside, filepath.Join(root, ".orchestrate", "locks"))
		}, "symlink leading out of the repository"},
		{"locks folder symlinked inside the repository", func(t *testing.T, root, outside string) {
			os.MkdirAll(filepath.Join(root, "elsewhere"), 0o755)
			os.MkdirAll(filepath.Join(root, ".orchestrate"), 0o755)
			os.Symlink("../elsewhere", filepath.Join(root, ".orchestrate", "locks"))
		}, "refused: .orchestrate/locks is a symlink"},
		{"FIFO lock", func(t *testing.T, root, outside string) {
			os.MkdirAll(filepath.Join(root, ".orchestrate", "locks"), 0o755)
			if err := syscall.Mkfifo(LockPath(root, "sdc:1"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file (it is a FIFO)"},
		{"lock symlinked to /dev/zero", func(t *testing.T, root, outside string) {
			os.MkdirAll(filepath.Join(root, ".orchestrate", "locks"), 0o755)
			os.Symlink("/dev/zero", LockPath(root, "sdc:1"))
		}, "the lock file is a symlink"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			tt.setup(t, root, outside)
			done := make(chan error, 1)
			go func() {
				_, err := Acquire(root, "sdc:1", me(1), true)
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("Acquire = %v; want %q", err, tt.want)
				}
			case <-time.After(2 * time.Second):
				t.Fatal("Acquire hangs")
			}
			if st := Inspect(root, "sdc:1"); st.Exists && (!st.Live || st.Reason == "") {
				t.Errorf("Inspect = %+v; want no lock or an untrusted one", st)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Errorf("created outside the repository: %v", entries)
			}
		})
	}
}
