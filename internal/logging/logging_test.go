package logging

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"token=abc123":                    "token=[REDACTED]",
		`"api_key": "sk-xyz"`:             `"api_key": "[REDACTED]"`,
		"use ghp_ABCDEFGHIJKLMNOPQRSTUV1": "use [REDACTED]",
		"password: hunter2 ok":            "password: [REDACTED] ok",
		"nothing secret here":             "nothing secret here",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestActionLogJSONLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a", "log.jsonl")
	l, err := OpenActionLog(p)
	if err != nil {
		t.Fatal(err)
	}
	l.WithField("cmd", "x --token=s3cr3t").Info("resumed")
	l.Info("second")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", data)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &m); err != nil {
		t.Fatal(err)
	}
	if m["cmd"] != "x --token=[REDACTED]" || m["msg"] != "resumed" {
		t.Errorf("entry = %v", m)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v", fi.Mode())
	}
}

func TestHumanLevel(t *testing.T) {
	var b bytes.Buffer
	if _, err := Human(&b, "nope", false); err == nil {
		t.Error("bad level accepted")
	}
	l, err := Human(&b, "info", false)
	if err != nil {
		t.Fatal(err)
	}
	l.Info("hello")
	if !strings.Contains(b.String(), "hello") {
		t.Errorf("got %q", b.String())
	}
}
