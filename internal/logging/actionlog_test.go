package logging

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAppendChecked(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, ".orchestrate", "log.jsonl")
	for _, tt := range []struct {
		name    string
		fail    error
		wantErr bool
	}{
		{"written", nil, false},
		{"full disk", errors.New("no space left on device"), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := os.ReadFile(p)
			l, err := OpenActionLogIn(root, p)
			if err != nil {
				t.Fatal(err)
			}
			if tt.fail != nil {
				l.BeforeWrite = func() error { return tt.fail }
			}
			err = l.Append(time.Unix(0, 0), map[string]any{"event": "x", "cmd": "--token=s3cr3t"}, "m")
			if cerr := l.Close(); cerr != nil {
				t.Fatal(cerr)
			}
			after, _ := os.ReadFile(p)
			if tt.wantErr {
				if err == nil || string(after) != string(before) {
					t.Fatalf("err %v; log %q, want it as it was (%q)", err, after, before)
				}
				return
			}
			if err != nil || !strings.HasSuffix(string(after), "\n") || !strings.Contains(string(after), "[REDACTED]") {
				t.Fatalf("err %v; log %q", err, after)
			}
		})
	}
}

func TestOpenActionLogRefuses(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside")
	os.WriteFile(outside, []byte("keep"), 0o600)
	os.MkdirAll(filepath.Join(root, "a"), 0o755)
	os.Symlink(outside, filepath.Join(root, "a", "log.jsonl"))
	os.Symlink(filepath.Dir(outside), filepath.Join(root, "b"))
	for _, rel := range []string{"a/log.jsonl", "b/outside"} {
		if l, err := OpenActionLogIn(root, filepath.Join(root, rel)); err == nil {
			l.Close()
			t.Errorf("%s: opened through a symlink", rel)
		}
	}
	if l, err := OpenActionLog(filepath.Join(root, "a", "log.jsonl")); err == nil {
		l.Close()
		t.Error("OpenActionLog followed a final symlink")
	}
	if data, _ := os.ReadFile(outside); string(data) != "keep" {
		t.Errorf("outside written: %q", data)
	}
}
