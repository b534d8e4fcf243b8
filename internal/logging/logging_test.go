package logging

import (
	"bytes"
	"encoding/json"
	"errors"
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
		"Authorization: Bearer T":         "Authorization: Bearer [REDACTED]",
		"db postgres://u:PASS@db/x":       "db postgres://u:[REDACTED]@db/x",
		"-----BEGIN RSA " + "PRIVATE KEY-----\nMIIE\n-----END RSA " + "PRIVATE KEY-----": "[REDACTED]",
		"key AIza" + "SyA1234567890abcdefghijklmnopqrstuv":                               "key [REDACTED]",
		"github_pat_" + "11ABCDEFG0abcdefghijklmnopqrstuvwxyz":                           "[REDACTED]",
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

func TestActionLogRedactsEveryField(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log.jsonl")
	l, err := OpenActionLog(p)
	if err != nil {
		t.Fatal(err)
	}
	l.WithFields(map[string]any{
		"err":   errors.New("dial postgres://u:PASS@db failed"),
		"list":  []string{"token=abc"},
		"n":     3,
		"other": map[string]string{"password": "p"},
	}).Info("Authorization: Bearer T")
	l.Close()
	data, _ := os.ReadFile(p)
	for _, leak := range []string{"PASS", "abc", `"p"`, " T\""} {
		if strings.Contains(string(data), leak) {
			t.Errorf("%q leaked: %s", leak, data)
		}
	}
	if !json.Valid(bytes.TrimSpace(data)) {
		t.Errorf("not JSON: %s", data)
	}
}

func TestHumanEscapesAndRedacts(t *testing.T) {
	var b bytes.Buffer
	l, _ := Human(&b, "info", false)
	l.Infof("%s token=abc \x1b]0;pwned\x07", "x\x1b[2J")
	if s := b.String(); strings.Contains(s, "\x1b") || strings.Contains(s, "abc") {
		t.Errorf("got %q", s)
	}
}

func TestHumanLevel(t *testing.T) {
	var b bytes.Buffer
	for _, bad := range []string{"nope", "trace", "panic", "fatal"} {
		if _, err := Human(&b, bad, false); err == nil {
			t.Errorf("level %q accepted", bad)
		}
	}
	l, err := Human(&b, "info", false)
	if err != nil {
		t.Fatal(err)
	}
	l.Infof("hello %d", 1)
	if !strings.Contains(b.String(), "hello 1") {
		t.Errorf("got %q", b.String())
	}
}

func TestHumanLevels(t *testing.T) {
	for _, tt := range []struct {
		level string
		debug bool // a Debugf shows
		warn  bool // a Warnf shows
	}{
		{level: "", debug: false, warn: true},
		{level: "warn", debug: false, warn: true},
		{level: "debug", debug: true, warn: true},
		{level: "error", debug: false, warn: false},
	} {
		var b bytes.Buffer
		l, err := Human(&b, tt.level, false)
		if err != nil {
			t.Fatal(err)
		}
		l.Debugf("read %s", "x")
		l.Warnf("careful")
		if got := strings.Contains(b.String(), "read x"); got != tt.debug {
			t.Errorf("level %q: debug shown = %v, want %v (%q)", tt.level, got, tt.debug, b.String())
		}
		if got := strings.Contains(b.String(), "careful"); got != tt.warn {
			t.Errorf("level %q: warn shown = %v, want %v", tt.level, got, tt.warn)
		}
		if l.Enabled("debug") != tt.debug {
			t.Errorf("level %q: Enabled(debug) = %v", tt.level, l.Enabled("debug"))
		}
	}
	var d = Discard()
	d.Errorf("nothing")
	if d.Enabled("error") {
		t.Error("Discard is enabled")
	}
}
