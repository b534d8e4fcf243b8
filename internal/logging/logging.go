// Package logging sets logrus up in the one place orchestrate does it: human
// text on stderr for diagnostics, and JSON lines appended to the
// orchestration log for commands that act.
package logging

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"github.com/sirupsen/logrus"
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

var secretRe = regexp.MustCompile(`(?i)((?:api[_-]?key|token|secret|password|passwd|authorization|bearer)["']?\s*[:=]\s*["']?)([^\s"',;]+)|(gh[pousr]_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|xox[abpr]-[A-Za-z0-9-]{10,})`)

// Redact replaces secrets (tokens, keys, passwords) in s with [REDACTED].
func Redact(s string) string {
	return secretRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := secretRe.FindStringSubmatch(m)
		if sub[1] != "" {
			return sub[1] + "[REDACTED]"
		}
		return "[REDACTED]"
	})
}

type redactHook struct{}

func (redactHook) Levels() []logrus.Level { return logrus.AllLevels }

func (redactHook) Fire(e *logrus.Entry) error {
	e.Message = Redact(e.Message)
	for k, v := range e.Data {
		if s, ok := v.(string); ok {
			e.Data[k] = Redact(s)
		}
	}
	return nil
}
