package cli

import (
	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/handoff"
)

// cleanup runs under the workflow's lock: a live lock refuses it with exit
// 16 and nothing moves; a stale one is taken over and released.
func TestCleanupUnderLock(t *testing.T) {
	host, _ := os.Hostname()
	tests := []struct {
		name      string
		owner     *handoff.LockInfo
		want      int
		wantMoved bool
	}{
		{name: "no lock", want: cmdutil.ExitOK, wantMoved: true},
		{name: "live lock", owner: &handoff.LockInfo{PID: os.Getpid(), Host: host, StartedAt: time.Now()}, want: cmdutil.ExitLocked},
		{name: "stale lock", owner: &handoff.LockInfo{PID: 1 << 22, Host: host, StartedAt: time.Now().Add(-time.Hour)}, want: cmdutil.ExitOK, wantMoved: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := exitRepo(t)
			state := filepath.Join(dir, ".orchestrate/workflows/sdc-1.yaml")
			if tc.owner != nil {
				if _, err := handoff.Acquire(dir, "workflow:sdc-1", *tc.owner, false); err != nil {
					t.Fatal(err)
				}
			}
			r := runWith(t, dir, nil, "cleanup", "--yes", "sdc-1")
			if r.code != tc.want {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tc.want, r.out.String(), r.err.String())
			}
			_, err := os.Stat(state)
			if moved := os.IsNotExist(err); moved != tc.wantMoved {
				t.Errorf("state moved = %v, want %v", moved, tc.wantMoved)
			}
			_, err = os.Stat(handoff.LockPath(dir, "workflow:sdc-1"))
			if held := err == nil; held != (tc.want == cmdutil.ExitLocked) {
				t.Errorf("lock present = %v after exit %d", held, r.code)
			}
		})
	}
}
