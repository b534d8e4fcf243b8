// Package logging is orchestrate's one seam over logrus, the only package
// that imports it: human text on stderr for diagnostics (the Logger of
// --log-level), and JSON lines appended to the orchestration log for
// commands that act (ActionLog, with Fields).
package logging

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/orchestrate-dev/orchestrate/internal/redact"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
)

// Fields are the key/value pairs of one orchestration-log event.
type Fields map[string]any

// Logger is the diagnostics logger the command layer and the stages it
// drives write to: what was read and what was decided, at debug and info;
// problems at warn and error. Messages are formatted like fmt.Sprintf.
type Logger interface {
	Debugf(format string, args ...any)
	Infof(format string, args ...any)
	Warnf(format string, args ...any)
	Errorf(format string, args ...any)
	// Enabled reports whether a message at level ("debug", "info", "warn",
	// "error") would be written, so a caller can skip costly wording.
	Enabled(level string) bool
}

// humanLogger is the Logger of Human, over logrus.
type humanLogger struct{ l *logrus.Logger }

func (h humanLogger) Debugf(format string, args ...any) { h.l.Debugf(format, args...) }
func (h humanLogger) Infof(format string, args ...any)  { h.l.Infof(format, args...) }
func (h humanLogger) Warnf(format string, args ...any)  { h.l.Warnf(format, args...) }
func (h humanLogger) Errorf(format string, args ...any) { h.l.Errorf(format, args...) }
func (h humanLogger) Enabled(level string) bool {
	lv, err := logrus.ParseLevel(level)
	return err == nil && h.l.IsLevelEnabled(lv)
}

// Discard returns a Logger that writes nothing.
func Discard() Logger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	l.SetLevel(logrus.PanicLevel)
	return humanLogger{l}
}

// Human returns a logger writing plain text to w at level ("debug", "info",
// "warn", "error"; empty means warn).
func Human(w io.Writer, level string, color bool) (Logger, error) {
	l := logrus.New()
	l.SetOutput(w)
	l.SetFormatter(&logrus.TextFormatter{DisableTimestamp: true, DisableColors: !color, ForceColors: color})
	if level == "" {
		level = "warn"
	}
	lv, err := logrus.ParseLevel(level)
	if err != nil || lv > logrus.DebugLevel || lv < logrus.ErrorLevel {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	l.SetLevel(lv)
	l.AddHook(terminalHook{})
	return humanLogger{l}, nil
}

// ActionLog is the orchestration log: one JSON object per event, appended.
// Append is the checked write path (every byte written and fsynced, or an
// error and the file as it was); the embedded logger is kept for callers
// that log best effort, and Close reports a write of theirs that failed.
type ActionLog struct {
	*logrus.Logger
	f   *os.File
	out *checkedWriter
	// dir is the folder to fsync after the first append when the file was
	// created by this open ("" otherwise).
	dir string
	// BeforeWrite is a test hook: when set, Append calls it before writing
	// and, if it returns an error, writes only half of the line and fails
	// with that error, as a full disk would. Nil in production.
	BeforeWrite func() error
}

// checkedWriter records the first write error, which logrus would swallow.
type checkedWriter struct {
	f   *os.File
	err error
}

func (w *checkedWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil && w.err == nil {
		w.err = err
	}
	return n, err
}

// OpenActionLog opens (creating folders and the file, mode 0600) the
// orchestration log at path for appending. The file itself is opened
// without following a symlink and must be a regular file; use
// OpenActionLogIn to confine every folder of the path too.
func OpenActionLog(path string) (*ActionLog, error) {
	return OpenActionLogIn("", path)
}

// OpenActionLogIn opens the orchestration log at path for appending, like
// OpenActionLog. When path is inside root (a repository), no symlink is
// followed anywhere below root, missing folders are created without
// following one, and anything but a regular file (a symlink, a FIFO, a
// device) is refused: a log committed as a symlink cannot make orchestrate
// write outside the repository (docs/SECURITY.md).
func OpenActionLogIn(root, path string) (*ActionLog, error) {
	f, created, err := openLogFile(root, path, os.O_CREATE|os.O_APPEND|os.O_WRONLY)
	if err != nil {
		return nil, fmt.Errorf("open orchestration log %s: %w", path, err)
	}
	w := &checkedWriter{f: f}
	l := logrus.New()
	l.SetOutput(w)
	l.SetFormatter(&logrus.JSONFormatter{TimestampFormat: "2006-01-02T15:04:05Z07:00", DisableHTMLEscape: true})
	l.SetLevel(logrus.InfoLevel)
	l.AddHook(redactHook{})
	a := &ActionLog{Logger: l, f: f, out: w}
	if created {
		a.dir = filepath.Dir(path)
	}
	return a, nil
}

// OpenLogForRead opens the orchestration log at path for reading, confined
// to root like OpenActionLogIn (no symlink, regular files only, no blocking
// on a FIFO).
func OpenLogForRead(root, path string) (*os.File, error) {
	f, _, err := openLogFile(root, path, os.O_RDONLY)
	return f, err
}

// openLogFile opens path with flag: through safefile.OpenConfined when it
// is inside root, else with O_NOFOLLOW and a check that it is a regular
// file. created reports a file this call created.
func openLogFile(root, path string, flag int) (f *os.File, created bool, err error) {
	if flag&os.O_CREATE != 0 {
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			created = true
		}
	}
	if root != "" {
		if rel, rerr := filepath.Rel(root, path); rerr == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			f, err = safefile.OpenConfined(root, filepath.ToSlash(rel), flag, 0o600)
			return f, created, err
		}
	}
	if flag&os.O_CREATE != 0 {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, false, fmt.Errorf("create log folder: %w", err)
		}
	}
	f, err = os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, false, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, false, fmt.Errorf("%s is not a regular file", path)
	}
	if err := syscall.SetNonblock(int(f.Fd()), false); err != nil {
		f.Close()
		return nil, false, err
	}
	return f, created, nil
}

// Append writes one event (fields, at t, with message msg, redacted like
// every entry) as a JSON line and fsyncs it, and the log's folder when this
// open created the file. It returns an error when any of that fails, and
// then truncates the file back to where it was, so a failed append leaves
// no partial or unsynced line that a later reader could take as written.
func (a *ActionLog) Append(t time.Time, fields Fields, msg string) error {
	if a == nil || a.f == nil {
		return errors.New("orchestration log: not open")
	}
	e := logrus.NewEntry(a.Logger).WithFields(logrus.Fields(fields)).WithTime(t)
	e.Level = logrus.InfoLevel
	e.Message = msg
	if err := a.Logger.Hooks.Fire(logrus.InfoLevel, e); err != nil {
		return fmt.Errorf("orchestration log: %w", err)
	}
	line, err := a.Logger.Formatter.Format(e)
	if err != nil {
		return fmt.Errorf("orchestration log: %w", err)
	}
	// one appender at a time, so a rollback truncates only its own line
	fd := int(a.f.Fd())
	if err := syscall.Flock(fd, syscall.LOCK_EX); err == nil {
		defer syscall.Flock(fd, syscall.LOCK_UN) //nolint:errcheck // released on close anyway
	}
	fi, err := a.f.Stat()
	if err != nil {
		return fmt.Errorf("orchestration log: %w", err)
	}
	start := fi.Size()
	fail := func(err error) error {
		_ = a.f.Truncate(start)
		_ = a.f.Sync()
		return fmt.Errorf("write the orchestration log %s: %w", a.f.Name(), err)
	}
	if a.BeforeWrite != nil {
		if err := a.BeforeWrite(); err != nil {
			_, _ = a.f.Write(line[:len(line)/2])
			return fail(err)
		}
	}
	if _, err := a.f.Write(line); err != nil {
		return fail(err)
	}
	if err := a.f.Sync(); err != nil {
		return fail(err)
	}
	if a.dir != "" {
		if err := syncDir(a.dir); err != nil {
			return fail(err)
		}
		a.dir = ""
	}
	return nil
}

// syncDir fsyncs a folder; file systems that cannot are not an error.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return nil
}

// Close syncs and closes the log file. It returns the first error of a
// write through the embedded logger, of the sync or of the close.
func (a *ActionLog) Close() error {
	if a == nil || a.f == nil {
		return nil
	}
	serr := a.f.Sync()
	cerr := a.f.Close()
	a.f = nil
	switch {
	case a.out != nil && a.out.err != nil:
		return fmt.Errorf("write the orchestration log: %w", a.out.err)
	case serr != nil:
		return fmt.Errorf("sync the orchestration log: %w", serr)
	}
	return cerr
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
