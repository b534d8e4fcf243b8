// Package logging sets logrus up in the one place orchestrate does it: human
// text on stderr for diagnostics, and JSON lines appended to the
// orchestration log for commands that act.
package logging

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sirupsen/logrus"

	"github.com/orchestrate-dev/orchestrate/internal/redact"
	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
)

// Human returns a logger writing plain text to w at level ("debug", "info",
// "warn", "error"; empty means warn).
func Human(w io.Writer, level string, color bool) (*logrus.Logger, error) {
	l := logrus.New()
	l.SetOutput(w)
	l.SetFormatter(&logrus.TextFormatter{DisableTimestamp: true, DisableColors: !color, ForceColors: color})
	if level == "" {
		level = "warn"
	}
	lv, err := logrus.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	l.SetLevel(lv)
	l.AddHook(terminalHook{})
	return l, nil
}

// ActionLog is the orchestration log: one JSON object per event, appended.
type ActionLog struct {
	*logrus.Logger
	f *os.File
}

// OpenActionLog opens (creating folders and the file, mode 0600) the
// orchestration log at path for appending.
func OpenActionLog(path string) (*ActionLog, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create log folder: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open orchestration log %s: %w", path, err)
	}
	l := logrus.New()
	l.SetOutput(f)
	l.SetFormatter(&logrus.JSONFormatter{TimestampFormat: "2006-01-02T15:04:05Z07:00", DisableHTMLEscape: true})
	l.SetLevel(logrus.InfoLevel)
	l.AddHook(redactHook{})
	return &ActionLog{Logger: l, f: f}, nil
}

// Close syncs and closes the log file.
func (a *ActionLog) Close() error {
	if a == nil || a.f == nil {
		return nil
	}
	_ = a.f.Sync()
	return a.f.Close()
}

// Redact replaces secrets (tokens, keys, passwords, private keys, URL
// credentials) in s with [REDACTED]. It is the one redactor of
// internal/redact; see docs/SECURITY.md.
func Redact(s string) string { return redact.String(s) }

// redactHook redacts every entry of the orchestration log before it is
// written: the message and every field (strings, errors, string lists and
// anything printable).
type redactHook struct{}

func (redactHook) Levels() []logrus.Level { return logrus.AllLevels }

func (redactHook) Fire(e *logrus.Entry) error {
	e.Message = Redact(e.Message)
	for k, v := range e.Data {
		e.Data[k] = redactValue(v)
	}
	return nil
}

// terminalHook redacts the diagnostics written to stderr and escapes their
// control characters (internal/termsafe): a message can quote a file.
type terminalHook struct{}

func (terminalHook) Levels() []logrus.Level { return logrus.AllLevels }

func (terminalHook) Fire(e *logrus.Entry) error {
	e.Message = termsafe.String(Redact(e.Message))
	for k, v := range e.Data {
		if s, ok := redactValue(v).(string); ok {
			e.Data[k] = termsafe.String(s)
		} else {
			e.Data[k] = redactValue(v)
		}
	}
	return nil
}

// redactValue redacts one log field; numbers and booleans pass unchanged.
func redactValue(v any) any {
	switch t := v.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return v
	case string:
		return Redact(t)
	case []string:
		out := make([]string, len(t))
		for i, s := range t {
			out[i] = Redact(s)
		}
		return out
	case error:
		return Redact(t.Error())
	case fmt.Stringer:
		return Redact(t.String())
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return Redact(fmt.Sprint(v))
	}
	return json.RawMessage(redact.JSON(raw))
}
