package handoff

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A failed write of the dispatch record (a full disk) runs nothing, rolls
// everything back and leaves the log as it was; the next attempt hands off
// exactly once.
func TestDispatchRecordWriteFails(t *testing.T) {
	for _, tt := range []struct {
		name  string
		fault string // the failpoint step that fails
		nth   int
	}{
		{"dispatch record", "logwrite", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, req := fixture(t)
			state := filepath.Join(root, filepath.FromSlash(statePath))
			before, _ := os.ReadFile(state)
			bak, _ := os.ReadFile(state + ".bak")
			os.MkdirAll(filepath.Dir(req.LogPath), 0o755)
			os.WriteFile(req.LogPath, []byte("{\"event\":\"old\"}\n"), 0o600)
			req.Command = "touch ran"
			seen := 0
			req.Failpoint = func(step string) error {
				if step == tt.fault {
					seen++
					if seen == tt.nth {
						return errors.New("no space left on device")
					}
				}
				return nil
			}
			_, err := Execute(req)
			if err == nil || !strings.Contains(err.Error(), "no space left on device") {
				t.Fatalf("err = %v", err)
			}
			if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
				t.Fatal("the command ran without a durable record")
			}
			after, _ := os.ReadFile(state)
			afterBak, _ := os.ReadFile(state + ".bak")
			if !bytes.Equal(after, before) || !bytes.Equal(afterBak, bak) {
				t.Errorf("state not rolled back:\n%s\n.bak:\n%s", after, afterBak)
			}
			if envs, _ := filepath.Glob(filepath.Join(root, ".orchestrate/handoffs/*.json")); len(envs) > 0 {
				t.Errorf("envelopes left: %v", envs)
			}
			if _, err := os.Stat(filepath.Join(root, ".orchestrate/locks/workflow_sdc-1.lock")); err == nil {
				t.Error("lock left")
			}
			log, _ := os.ReadFile(req.LogPath)
			if bytes.Contains(log, []byte(EventDispatched)) {
				t.Errorf("a half-written dispatch record was left:\n%s", log)
			}
			// space is back
			req.Failpoint = nil
			if res, err := Execute(req); err != nil || res.AlreadyHandedOff {
				t.Fatalf("retry: %+v, %v", res, err)
			}
			os.Remove(filepath.Join(root, "ran"))
			if res, err := Execute(req); err != nil || !res.AlreadyHandedOff {
				t.Fatalf("third attempt: %+v, %v", res, err)
			}
			if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
				t.Error("handed off twice")
			}
		})
	}
}

// A log that is a symlink (to a file outside the repository) is refused:
// the target is untouched and nothing is handed off.
func TestLogSymlinkRefused(t *testing.T) {
	root, req := fixture(t)
	outside := filepath.Join(t.TempDir(), "outside")
	os.WriteFile(outside, []byte("keep\n"), 0o600)
	os.MkdirAll(filepath.Dir(req.LogPath), 0o755)
	if err := os.Symlink(outside, req.LogPath); err != nil {
		t.Fatal(err)
	}
	req.Command = "touch ran"
	if _, err := Execute(req); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("err = %v", err)
	}
	if data, _ := os.ReadFile(outside); string(data) != "keep\n" {
		t.Errorf("outside file written: %q", data)
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Error("the command ran")
	}
}
