package worksession

// The writers of the work-session format: the ones behind `orchestrate
// breadcrumb` and `orchestrate work done`, and the one a resume uses to
// record a new AI session id. Every write is an ordered, textual JSON patch
// of one work-session file (patch.go: every other byte kept), re-decoded and
// checked (Verify) before it is written atomically; a rejected call writes
// nothing. Writers serialise on an advisory lock of the work-session
// folders, so two agents adding breadcrumbs at once cannot lose one. They
// are here, beside the parse and the patch, so that one package owns the
// format; handoff only calls RecordAISessionID.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/atomicfile"
	"github.com/orchestrate-dev/orchestrate/internal/redact"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/internal/statepatch"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
)

// CookieError rejects a call whose cookie does not name the active work
// session. Expected is the active session's id ("" when none is active).
type CookieError struct {
	Cookie   string
	Expected string
	Why      string // what the cookie names instead, e.g. "wsession-x is closed"
}

// Error implements error; it always names the expected cookie.
func (e *CookieError) Error() string {
	var b strings.Builder
	if strings.TrimSpace(e.Cookie) == "" {
		b.WriteString("no --cookie given")
	} else {
		fmt.Fprintf(&b, "cookie %s does not name the active work session", e.Cookie)
	}
	if e.Expected == "" {
		b.WriteString("; no work session is active")
	} else {
		fmt.Fprintf(&b, "; expected %s", e.Expected)
	}
	if e.Why != "" {
		fmt.Fprintf(&b, " (%s)", e.Why)
	}
	return b.String()
}

// MessageError rejects a malformed breadcrumb message or summary.
type MessageError struct{ Msg string }

// Error implements error.
func (e *MessageError) Error() string { return e.Msg }

// WorkSessionError is a work-session file a call cannot use as it is (a
// missing parent, a breadcrumbs field that is not a list, …); nothing was
// written.
type WorkSessionError struct {
	Path string
	Msg  string
}

// Error implements error.
func (e *WorkSessionError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// ParseBreadcrumbMessage checks a breadcrumb message (the JSON contract
// gate): non-empty text, or a JSON object. Text starting with '{' must be a
// valid JSON object; a message that is valid JSON but not an object (an
// array, a number, a quoted string, true, false, null) is rejected. The
// result is the text (trimmed) or the object as compact JSON
// (json.RawMessage, its member order kept).
func ParseBreadcrumbMessage(msg string) (any, error) {
	s := strings.TrimSpace(msg)
	switch {
	case s == "":
		return nil, &MessageError{"the message is empty: give non-empty text or a JSON object"}
	case !utf8.ValidString(s):
		return nil, &MessageError{"the message is not valid UTF-8 text"}
	case strings.HasPrefix(s, "{"):
		var raw json.RawMessage
		if err := json.Unmarshal([]byte(s), &raw); err != nil {
			return nil, &MessageError{fmt.Sprintf("the message starts with '{' but is not a valid JSON object: %v", err)}
		}
		if _, err := tolerant.DecodeJSONMap([]byte(s)); err != nil {
			return nil, &MessageError{fmt.Sprintf("the message is not a usable JSON object: %v", err)}
		}
		var out bytes.Buffer
		if err := json.Compact(&out, []byte(s)); err != nil {
			return nil, &MessageError{fmt.Sprintf("the message is not a valid JSON object: %v", err)}
		}
		if out.String() == "{}" {
			return nil, &MessageError{"the message is an empty JSON object"}
		}
		return json.RawMessage(out.Bytes()), nil
	case json.Valid([]byte(s)):
		return nil, &MessageError{fmt.Sprintf("the message is JSON but not an object (%s): give text or a JSON object", jsonKindOf(s))}
	}
	return s, nil
}

func jsonKindOf(s string) string {
	switch s[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// ---------------------------------------------------------------------------
// the work sessions of a repository

// sessionSet is every work-session file that decodes.
type sessionSet struct {
	root string
	list []WorkSession
}

// sessionFiles lists the configured work-session files (no .bak twins).
func sessionFiles(r *source.Repo) []string {
	return Files(r, r.Config.Sources.WorkSession)
}

// loadSessions reads and parses every work-session file; files that cannot
// be read or decoded are skipped (they cannot be the active session).
func loadSessions(r *source.Repo) sessionSet {
	set := sessionSet{root: r.Root}
	for _, p := range sessionFiles(r) {
		data, err := r.Read(p)
		if err != nil {
			continue
		}
		ws, _ := ParseWorkSession(p, data)
		if ws.Raw == nil {
			continue
		}
		set.list = append(set.list, ws)
	}
	return set
}

// Active returns the active work session: status active and, when several
// are, the most recently worked on (ties: a subtask's session before its
// parent's, then by id). A paused or closed session is never active.
func (s sessionSet) Active() (WorkSession, bool) {
	var act []WorkSession
	for _, ws := range s.list {
		if ws.Status == "active" {
			act = append(act, ws)
		}
	}
	if len(act) == 0 {
		return WorkSession{}, false
	}
	sort.SliceStable(act, func(i, j int) bool {
		ti, tj := Activity(act[i]), Activity(act[j])
		if !ti.Equal(tj) {
			return ti.After(tj)
		}
		if act[i].ParentID == act[j].ID {
			return true
		}
		if act[j].ParentID == act[i].ID {
			return false
		}
		return act[i].ID < act[j].ID
	})
	return act[0], true
}

// byID returns the session with this id (its recorded id, else its file
// name).
func (s sessionSet) byID(id string) (WorkSession, bool) {
	for _, ws := range s.list {
		if ws.ID == id {
			return ws, true
		}
	}
	for _, ws := range s.list {
		if strings.TrimSuffix(filepath.Base(ws.Path), filepath.Ext(ws.Path)) == id {
			return ws, true
		}
	}
	return WorkSession{}, false
}

// check returns the session the cookie names when it is the active one, else
// a *CookieError naming the expected cookie.
func (s sessionSet) check(cookie string) (WorkSession, error) {
	cookie = strings.TrimSpace(cookie)
	act, ok := s.Active()
	if ok && cookie != "" && cookie == act.ID {
		return act, nil
	}
	e := &CookieError{Cookie: cookie}
	if ok {
		e.Expected = act.ID
	}
	if cookie == "" {
		return WorkSession{}, e
	}
	if ws, found := s.byID(cookie); found {
		switch {
		case ws.Status == "active":
			e.Why = fmt.Sprintf("%s is active, but %s was worked on more recently", cookie, act.ID)
		case ws.Status == "":
			e.Why = fmt.Sprintf("%s records no status", cookie)
		default:
			e.Why = fmt.Sprintf("%s is %s", cookie, ws.Status)
		}
	} else {
		e.Why = "no work session has that id"
	}
	return WorkSession{}, e
}

// ActiveWorkSession returns the active work session of the repository (see
// sessionSet.Active).
func ActiveWorkSession(r *source.Repo) (WorkSession, bool) {
	return loadSessions(r).Active()
}

// CheckCookie returns the work session the cookie names when it is the
// active one; otherwise a *CookieError that names the expected cookie.
func CheckCookie(r *source.Repo, cookie string) (WorkSession, error) {
	return loadSessions(r).check(cookie)
}

// ---------------------------------------------------------------------------
// locking

// lockTimeout bounds the wait for another writer of the work sessions.
const lockTimeout = 10 * time.Second

// lockDirs takes an exclusive advisory lock (flock) on each folder, in
// order, and returns the function releasing them. Folders are stable where
// the files in them are replaced by rename, so writers of any file in them
// serialise.
func lockDirs(dirs []string) (func(), error) {
	sort.Strings(dirs)
	var held []*os.File
	release := func() {
		for i := len(held) - 1; i >= 0; i-- {
			_ = syscall.Flock(int(held[i].Fd()), syscall.LOCK_UN)
			_ = held[i].Close()
		}
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		if seen[d] {
			continue
		}
		seen[d] = true
		f, err := os.Open(d)
		if err != nil {
			release()
			return nil, fmt.Errorf("lock the work sessions: %w", err)
		}
		deadline := time.Now().Add(lockTimeout)
		for {
			err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
			if err == nil || !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil {
			_ = f.Close()
			release()
			return nil, fmt.Errorf("lock the work sessions in %s: %w", d, err)
		}
		held = append(held, f)
	}
	return release, nil
}

// withSessions runs fn over the work sessions, read while holding the lock
// of their folders.
func withSessions(r *source.Repo, fn func(sessionSet) error) error {
	var dirs []string
	for _, p := range sessionFiles(r) {
		dirs = append(dirs, filepath.Dir(filepath.Join(r.Root, filepath.FromSlash(p))))
	}
	release, err := lockDirs(dirs)
	if err != nil {
		return err
	}
	defer release()
	return fn(loadSessions(r))
}

// ---------------------------------------------------------------------------
// breadcrumbs

// AddedBreadcrumb is what AddBreadcrumb wrote.
type AddedBreadcrumb struct {
	Session string // the session id (the cookie)
	Path    string // its file, repository-relative
	Entry   BreadcrumbEntry
}

var bcIDRe = regexp.MustCompile(`^bc-([0-9]{1,9})$`)

// nextBreadcrumbID is bc-NNN, one past the highest bc-N id and past the
// number of breadcrumbs.
func nextBreadcrumbID(bs []Breadcrumb) string {
	n := len(bs)
	for _, b := range bs {
		if m := bcIDRe.FindStringSubmatch(b.ID); m != nil {
			if k, err := strconv.Atoi(m[1]); err == nil && k > n {
				n = k
			}
		}
	}
	return fmt.Sprintf("bc-%03d", n+1)
}

// AddBreadcrumb appends a breadcrumb to the active work session, which the
// cookie must name (else *CookieError); the message must pass
// ParseBreadcrumbMessage (else *MessageError). The entry is {id (bc-NNN),
// timestamp (now, RFC 3339 UTC), message, ai_session_id (the session's
// current one)}, appended to the file's breadcrumbs list (created when
// missing) with every other byte kept, atomically. The message is redacted
// first (redactMessage): the file is committed, so a secret given to
// `breadcrumb add` is never written. A rejected call writes nothing.
func AddBreadcrumb(r *source.Repo, cookie, message string, now time.Time) (AddedBreadcrumb, error) {
	var out AddedBreadcrumb
	err := withSessions(r, func(set sessionSet) error {
		ws, err := set.check(cookie)
		if err != nil {
			return err
		}
		msg, err := ParseBreadcrumbMessage(message)
		if err != nil {
			return err
		}
		// the file is committed to git: a secret in the message never
		// reaches it (docs/SECURITY.md)
		msg = redactMessage(msg)
		entry := BreadcrumbEntry{
			ID:          nextBreadcrumbID(ws.Breadcrumbs),
			Timestamp:   now.UTC().Format(time.RFC3339),
			Message:     msg,
			AISessionID: ws.AISessionID,
		}
		elem, err := MarshalOrdered(entry)
		if err != nil {
			return err
		}
		err = rewriteSession(r.Root, ws.Path, func(data []byte) ([]byte, func(map[string]any) error, error) {
			return AppendBreadcrumb(data, elem)
		})
		if err != nil {
			return err
		}
		out = AddedBreadcrumb{Session: ws.ID, Path: ws.Path, Entry: entry}
		return nil
	})
	return out, err
}

// redactMessage is a parsed breadcrumb message (ParseBreadcrumbMessage)
// with its secrets redacted: the text, or the values of the JSON object
// (its names, order and every other byte kept, so it stays a valid, compact
// object).
func redactMessage(msg any) any {
	switch m := msg.(type) {
	case string:
		return redact.String(m)
	case json.RawMessage:
		return json.RawMessage(redact.JSON(m))
	}
	return msg
}

// BreadcrumbList is a session's breadcrumbs: as parsed, each as the raw
// JSON the file records, and each as one line of text.
type BreadcrumbList struct {
	Session string
	Path    string
	Items   []Breadcrumb
	Raw     []json.RawMessage
	Lines   []BreadcrumbLine
}

// ListBreadcrumbs returns the breadcrumbs of the active work session, which
// the cookie must name (else *CookieError).
func ListBreadcrumbs(r *source.Repo, cookie string) (BreadcrumbList, error) {
	set := loadSessions(r)
	ws, err := set.check(cookie)
	if err != nil {
		return BreadcrumbList{}, err
	}
	out := BreadcrumbList{Session: ws.ID, Path: ws.Path, Items: ws.Breadcrumbs}
	data, err := r.Read(ws.Path)
	if err != nil {
		return out, err
	}
	out.Raw, out.Lines, err = RawBreadcrumbs(data)
	if err != nil {
		return out, &WorkSessionError{Path: ws.Path, Msg: err.Error()}
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// closing a session

// ClosedSession is what CloseWorkSession wrote.
type ClosedSession struct {
	Session    string
	Path       string
	TaskID     string
	ClosedAt   string
	Parent     string // the parent session whose subtasks got the summary; "" for a top-level session
	ParentPath string
}

// CloseWorkSession closes the active work session, which the cookie must
// name (else *CookieError), with a summary (non-empty text, else
// *MessageError). A subtask's session (parent_wsession_id, or its task's
// parent_task) is marked closed (status closed, closed_at now) and its
// parent's subtasks get {wsession_id, task_id, summary, status completed,
// closed_at} (replacing the entry for the same wsession_id, keeping that
// entry's other members): the parent is written first, then the child, and
// the parent is put back when the child's write fails. A session without a
// parent is closed with its summary recorded in its own file.
func CloseWorkSession(r *source.Repo, cookie, summary string, now time.Time) (ClosedSession, error) {
	var out ClosedSession
	summary = strings.TrimSpace(summary)
	err := withSessions(r, func(set sessionSet) error {
		ws, err := set.check(cookie)
		if err != nil {
			return err
		}
		if summary == "" {
			return &MessageError{"the summary is empty: say what the session found or did"}
		}
		if !utf8.ValidString(summary) {
			return &MessageError{"the summary is not valid UTF-8 text"}
		}
		// the summary lands in work-session files that are committed to
		// git: secrets are redacted before the write (docs/SECURITY.md)
		summary = redact.String(summary)
		ts := now.UTC().Format(time.RFC3339)
		out = ClosedSession{Session: ws.ID, Path: ws.Path, TaskID: ws.TaskID, ClosedAt: ts}
		parent, hasParent, err := parentOf(r, set, ws)
		if err != nil {
			return err
		}
		closeChild := func(withSummary bool) func(data []byte) ([]byte, func(map[string]any) error, error) {
			return func(data []byte) ([]byte, func(map[string]any) error, error) {
				sets := [][2]string{{"status", "closed"}, {"closed_at", ts}}
				if withSummary {
					sets = append(sets, [2]string{"summary", summary})
				}
				return SetScalars(data, sets)
			}
		}
		if !hasParent {
			return rewriteSession(r.Root, ws.Path, closeChild(true))
		}
		out.Parent, out.ParentPath = parent.ID, parent.Path
		entry := SubtaskEntry{WSessionID: ws.ID, TaskID: ws.TaskID, Summary: summary, Status: "completed", ClosedAt: ts}
		var parentBackup *fileBackup
		err = rewriteSessionKeep(r.Root, parent.Path, &parentBackup, func(data []byte) ([]byte, func(map[string]any) error, error) {
			return UpsertSubtask(data, entry)
		})
		if err != nil {
			return err
		}
		if err := rewriteSession(r.Root, ws.Path, closeChild(false)); err != nil {
			if rerr := parentBackup.restore(); rerr != nil {
				return fmt.Errorf("%w (and putting %s back failed: %v)", err, parent.Path, rerr)
			}
			return err
		}
		return nil
	})
	return out, err
}

// parentOf finds the parent session of ws: its parent_wsession_id, else
// (as discover links them) a session of its task's parent task, an open
// one first. A parent that is named but has no file is an error.
func parentOf(r *source.Repo, set sessionSet, ws WorkSession) (WorkSession, bool, error) {
	if ws.ParentID != "" && ws.ParentID != ws.ID {
		p, ok := set.byID(ws.ParentID)
		if !ok {
			return WorkSession{}, false, &WorkSessionError{Path: ws.Path, Msg: fmt.Sprintf("the parent work session %q has no file among the work sessions; nothing was written", ws.ParentID)}
		}
		return p, true, nil
	}
	if ws.TaskID == "" {
		return WorkSession{}, false, nil
	}
	parentTask := ""
	for _, p := range Files(r, r.Config.Sources.Tasks) {
		data, err := r.Read(p)
		if err != nil {
			continue
		}
		if t, _ := ParseTask(p, data); t.ID == ws.TaskID {
			parentTask = t.ParentTask
			break
		}
	}
	if parentTask == "" || parentTask == ws.TaskID {
		return WorkSession{}, false, nil
	}
	var best *WorkSession
	for i := range set.list {
		o := &set.list[i]
		if o.ID == ws.ID || o.TaskID != parentTask {
			continue
		}
		if best == nil || (best.Closed() && !o.Closed()) {
			best = o
		}
	}
	if best == nil {
		return WorkSession{}, false, nil
	}
	return *best, true, nil
}

// ---------------------------------------------------------------------------
// recording a new AI session

// RecordAISessionID writes id as the AI session of the work-session file at
// path (repository-relative, or absolute inside root): the member it has
// (ai_session_id or another spelling) is replaced, or ai_session_id is added;
// every other byte is kept; atomic. It returns the file's content before and
// after.
func RecordAISessionID(root, path, id string) (before, after []byte, err error) {
	full, clean, err := resolvePath(root, path)
	if err != nil {
		return nil, nil, err
	}
	release, err := lockDirs([]string{filepath.Dir(full)})
	if err != nil {
		return nil, nil, err
	}
	defer release()
	var fb *fileBackup
	err = rewriteSessionKeep(root, clean, &fb, func(data []byte) ([]byte, func(map[string]any) error, error) {
		return SetAISessionID(data, id)
	})
	if err != nil {
		return nil, nil, err
	}
	return fb.original, fb.written, nil
}

// ---------------------------------------------------------------------------
// the patch machinery

// maxSessionSize is the largest work-session file a writer reads.
const maxSessionSize = 16 << 20

// resolvePath checks that path (repository-relative, or absolute inside
// root) names a file inside root, reached without a symlink leading out,
// and returns its full and clean relative forms.
func resolvePath(root, path string) (full, clean string, err error) {
	rel := path
	if filepath.IsAbs(path) {
		if r, rerr := filepath.Rel(root, path); rerr == nil {
			rel = filepath.ToSlash(r)
		}
	}
	if clean, err = safefile.CheckPath(root, rel); err != nil {
		return "", "", fmt.Errorf("work session: %w", err)
	}
	return filepath.Join(root, filepath.FromSlash(clean)), clean, nil
}

// fileBackup is one file as it was before a rewrite, to put it back.
type fileBackup struct {
	full     string
	original []byte
	written  []byte
	perm     fs.FileMode
}

func (b *fileBackup) restore() error {
	if b == nil {
		return nil
	}
	return atomicfile.Write(b.full, b.original, b.perm)
}

// patchFunc patches a work-session file's content (without BOM) and returns
// how the decoded session (the mapping holding its fields) must change, for
// the check.
type patchFunc func(data []byte) ([]byte, func(map[string]any) error, error)

func rewriteSession(root, path string, fn patchFunc) error {
	var fb *fileBackup
	return rewriteSessionKeep(root, path, &fb, fn)
}

// rewriteSessionKeep reads the work-session file, patches it, checks that the
// result decodes to the original with exactly the expected change, and
// writes it atomically (keeping its permissions). *keep gets what is needed
// to put it back.
func rewriteSessionKeep(root, path string, keep **fileBackup, fn patchFunc) error {
	full, clean, err := resolvePath(root, path)
	if err != nil {
		return err
	}
	fi, err := os.Lstat(full)
	if err != nil {
		return fmt.Errorf("work session %s: %w", clean, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("work session %s: %w", clean, safefile.ErrNotFile)
	}
	data, err := safefile.Read(root, clean, maxSessionSize)
	if err != nil {
		return fmt.Errorf("work session %s: %w", clean, err)
	}
	bom := bytes.HasPrefix(data, statepatch.BOM)
	body := bytes.TrimPrefix(data, statepatch.BOM)
	patched, expect, err := fn(body)
	if err != nil {
		return &WorkSessionError{Path: clean, Msg: err.Error() + "; nothing was written"}
	}
	if err := Verify(body, patched, expect); err != nil {
		return &WorkSessionError{Path: clean, Msg: "the patched file does not check out (nothing written): " + err.Error()}
	}
	if bom {
		patched = append(append([]byte{}, statepatch.BOM...), patched...)
	}
	if err := atomicfile.WriteConfined(root, clean, patched, fi.Mode().Perm()); err != nil {
		return fmt.Errorf("work session %s: %w", clean, err)
	}
	*keep = &fileBackup{full: full, original: data, written: patched, perm: fi.Mode().Perm()}
	return nil
}
