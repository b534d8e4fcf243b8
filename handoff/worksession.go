package handoff

// Work sessions (DESIGN §3, seeds/003): the writers behind `orchestrate
// breadcrumb` and `orchestrate work done`, and the one a resume uses to
// record a new AI session id. Every write is an ordered, textual JSON patch
// of one work-session file (every other byte kept), re-decoded and checked
// before it is written atomically; a rejected call writes nothing. Writers
// serialise on an advisory lock of the work-session folders, so two agents
// adding breadcrumbs at once cannot lose one.

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

	"github.com/orchestrate-dev/orchestrate/discover"
	"github.com/orchestrate-dev/orchestrate/discover/worksession"
	"github.com/orchestrate-dev/orchestrate/internal/atomicfile"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Field spellings of a work-session file, as discover reads them.
var (
	wsIDKeys       = []string{"id", "wsession_id", "wsessionId", "work_session_id", "workSessionId", "session_id", "sessionId"}
	wsWrapperKeys  = []string{"work_session", "workSession", "wsession", "session"}
	wsAIKeys       = []string{"ai_session_id", "aiSessionId", "ai_session", "aiSession", "resume_token", "resumeToken"}
	wsBreadKeys    = []string{"breadcrumbs", "breadCrumbs", "bread_crumbs", "crumbs"}
	wsSubtaskKeys  = []string{"subtasks", "sub_tasks", "subTasks", "children"}
	wsStatusKeys   = []string{"status", "state"}
	wsClosedKeys   = []string{"closed_at", "closedAt", "completed_at", "completedAt", "ended_at", "endedAt"}
	wsSummaryKeys  = []string{"summary", "result", "outcome"}
	wsResumedKeys  = []string{"resumed_at", "resumedAt"}
	wsSubtaskIDKey = []string{"wsession_id", "wsessionId", "work_session_id", "workSessionId", "session_id", "sessionId", "id"}
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
	list []worksession.WorkSession
}

// sessionFiles lists the configured work-session files (no .bak twins).
func sessionFiles(r *discover.Repo) []string {
	var out []string
	for _, p := range r.Glob(r.Config.Sources.WorkSession, false) {
		if !strings.HasSuffix(p, ".bak") {
			out = append(out, p)
		}
	}
	return out
}

// loadSessions reads and parses every work-session file; files that cannot
// be read or decoded are skipped (they cannot be the active session).
func loadSessions(r *discover.Repo) sessionSet {
	set := sessionSet{root: r.Root}
	for _, p := range sessionFiles(r) {
		data, err := r.Read(p)
		if err != nil {
			continue
		}
		ws, _ := worksession.ParseWorkSession(p, data)
		if ws.Raw == nil {
			continue
		}
		set.list = append(set.list, ws)
	}
	return set
}

// activity is the last time a session was worked on: the newest of its
// update time, creation, breadcrumbs and last resume.
func activity(ws worksession.WorkSession) time.Time {
	t := ws.UpdatedAt
	later := func(u time.Time) {
		if u.After(t) {
			t = u
		}
	}
	later(ws.CreatedAt)
	for _, b := range ws.Breadcrumbs {
		later(b.Timestamp)
	}
	for _, k := range wsResumedKeys {
		if v, ok := ws.Raw[k]; ok {
			if u, ok := tolerant.ToTime(v); ok {
				later(u)
			}
		}
	}
	return t
}

// Active returns the active work session: status active and, when several
// are, the most recently worked on (ties: a subtask's session before its
// parent's, then by id). A paused or closed session is never active.
func (s sessionSet) Active() (worksession.WorkSession, bool) {
	var act []worksession.WorkSession
	for _, ws := range s.list {
		if ws.Status == "active" {
			act = append(act, ws)
		}
	}
	if len(act) == 0 {
		return worksession.WorkSession{}, false
	}
	sort.SliceStable(act, func(i, j int) bool {
		ti, tj := activity(act[i]), activity(act[j])
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
func (s sessionSet) byID(id string) (worksession.WorkSession, bool) {
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
	return worksession.WorkSession{}, false
}

// check returns the session the cookie names when it is the active one, else
// a *CookieError naming the expected cookie.
func (s sessionSet) check(cookie string) (worksession.WorkSession, error) {
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
		return worksession.WorkSession{}, e
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
	return worksession.WorkSession{}, e
}

// ActiveWorkSession returns the active work session of the repository (see
// sessionSet.Active).
func ActiveWorkSession(r *discover.Repo) (worksession.WorkSession, bool) {
	return loadSessions(r).Active()
}

// CheckCookie returns the work session the cookie names when it is the
// active one; otherwise a *CookieError that names the expected cookie.
func CheckCookie(r *discover.Repo, cookie string) (worksession.WorkSession, error) {
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
func withSessions(r *discover.Repo, fn func(sessionSet) error) error {
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

// BreadcrumbEntry is a breadcrumb as `breadcrumb add` records it, in this
// member order.
type BreadcrumbEntry struct {
	ID          string `json:"id"`
	Timestamp   string `json:"timestamp"`
	Message     any    `json:"message"`
	AISessionID string `json:"ai_session_id,omitempty"`
}

// AddedBreadcrumb is what AddBreadcrumb wrote.
type AddedBreadcrumb struct {
	Session string // the session id (the cookie)
	Path    string // its file, repository-relative
	Entry   BreadcrumbEntry
}

var bcIDRe = regexp.MustCompile(`^bc-([0-9]{1,9})$`)

// nextBreadcrumbID is bc-NNN, one past the highest bc-N id and past the
// number of breadcrumbs.
func nextBreadcrumbID(bs []worksession.Breadcrumb) string {
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
// missing) with every other byte kept, atomically. A rejected call writes
// nothing.
func AddBreadcrumb(r *discover.Repo, cookie, message string, now time.Time) (AddedBreadcrumb, error) {
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
		entry := BreadcrumbEntry{
			ID:          nextBreadcrumbID(ws.Breadcrumbs),
			Timestamp:   now.UTC().Format(time.RFC3339),
			Message:     msg,
			AISessionID: ws.AISessionID,
		}
		elem, err := marshalOrdered(entry)
		if err != nil {
			return err
		}
		err = rewriteSession(r.Root, ws.Path, func(data []byte) ([]byte, func(map[string]any) error, error) {
			patched, key, err := appendToList(data, wsBreadKeys, elem)
			if err != nil {
				return nil, nil, err
			}
			return patched, appendExpect(key, elem), nil
		})
		if err != nil {
			return err
		}
		out = AddedBreadcrumb{Session: ws.ID, Path: ws.Path, Entry: entry}
		return nil
	})
	return out, err
}

// BreadcrumbList is a session's breadcrumbs: as parsed, each as the raw
// JSON the file records, and each as one line of text.
type BreadcrumbList struct {
	Session string
	Path    string
	Items   []worksession.Breadcrumb
	Raw     []json.RawMessage
	Lines   []BreadcrumbLine
}

// BreadcrumbLine is a breadcrumb as text: its id and timestamp as recorded
// ("" when missing) and its message on one line (an object as compact JSON,
// members in the file's order).
type BreadcrumbLine struct {
	ID        string
	Timestamp string
	Message   string
}

// breadcrumbLine renders one raw breadcrumb.
func breadcrumbLine(raw []byte) BreadcrumbLine {
	var l BreadcrumbLine
	oneLine := func(b []byte) string {
		var s string
		if json.Unmarshal(b, &s) == nil {
			return strings.Join(strings.Fields(s), " ")
		}
		var c bytes.Buffer
		if json.Compact(&c, b) == nil {
			return c.String()
		}
		return string(b)
	}
	if len(raw) == 0 || raw[0] != '{' {
		l.Message = oneLine(raw)
		return l
	}
	s := &jsonScanner{data: raw}
	o, err := s.object(0)
	if err != nil {
		l.Message = oneLine(raw)
		return l
	}
	text := func(keys ...string) (string, bool) {
		if m := findMember(raw, o, keys); m != nil && !isNull(raw, *m) {
			return oneLine(raw[m.valStart:m.valEnd]), true
		}
		return "", false
	}
	l.ID, _ = text("id", "breadcrumb_id", "breadcrumbId", "bc_id")
	l.Timestamp, _ = text("timestamp", "ts", "time", "created_at", "createdAt", "at")
	l.Message, _ = text("message", "msg", "text", "content", "body", "data")
	return l
}

// ListBreadcrumbs returns the breadcrumbs of the active work session, which
// the cookie must name (else *CookieError).
func ListBreadcrumbs(r *discover.Repo, cookie string) (BreadcrumbList, error) {
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
	obj, body, err := wsLocate(data)
	if err != nil {
		return out, &WorkSessionError{Path: ws.Path, Msg: err.Error()}
	}
	if m := findMember(body, obj, wsBreadKeys); m != nil && m.kind == '[' {
		for _, e := range arrayElems(body, m.valStart) {
			out.Raw = append(out.Raw, json.RawMessage(body[e[0]:e[1]]))
			out.Lines = append(out.Lines, breadcrumbLine(body[e[0]:e[1]]))
		}
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

// SubtaskEntry is the entry a closed subtask leaves in its parent's
// subtasks, in this member order.
type SubtaskEntry struct {
	WSessionID string `json:"wsession_id"`
	TaskID     string `json:"task_id,omitempty"`
	Summary    string `json:"summary"`
	Status     string `json:"status"`
	ClosedAt   string `json:"closed_at"`
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
func CloseWorkSession(r *discover.Repo, cookie, summary string, now time.Time) (ClosedSession, error) {
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
				return setScalars(data, sets)
			}
		}
		if !hasParent {
			return rewriteSession(r.Root, ws.Path, closeChild(true))
		}
		out.Parent, out.ParentPath = parent.ID, parent.Path
		entry := SubtaskEntry{WSessionID: ws.ID, TaskID: ws.TaskID, Summary: summary, Status: "completed", ClosedAt: ts}
		var parentBackup *fileBackup
		err = rewriteSessionKeep(r.Root, parent.Path, &parentBackup, func(data []byte) ([]byte, func(map[string]any) error, error) {
			return upsertSubtask(data, entry)
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
func parentOf(r *discover.Repo, set sessionSet, ws worksession.WorkSession) (worksession.WorkSession, bool, error) {
	if ws.ParentID != "" && ws.ParentID != ws.ID {
		p, ok := set.byID(ws.ParentID)
		if !ok {
			return worksession.WorkSession{}, false, &WorkSessionError{Path: ws.Path, Msg: fmt.Sprintf("the parent work session %q has no file among the work sessions; nothing was written", ws.ParentID)}
		}
		return p, true, nil
	}
	if ws.TaskID == "" {
		return worksession.WorkSession{}, false, nil
	}
	parentTask := ""
	for _, p := range r.Glob(r.Config.Sources.Tasks, false) {
		if strings.HasSuffix(p, ".bak") {
			continue
		}
		data, err := r.Read(p)
		if err != nil {
			continue
		}
		if t, _ := worksession.ParseTask(p, data); t.ID == ws.TaskID {
			parentTask = t.ParentTask
			break
		}
	}
	if parentTask == "" || parentTask == ws.TaskID {
		return worksession.WorkSession{}, false, nil
	}
	var best *worksession.WorkSession
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
		return worksession.WorkSession{}, false, nil
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
	full, clean, err := resolveState(root, path)
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
		v, _ := json.Marshal(id)
		return setMemberChecked(data, wsAIKeys, "ai_session_id", string(v))
	})
	if err != nil {
		return nil, nil, err
	}
	return fb.original, fb.written, nil
}

// ---------------------------------------------------------------------------
// the patch machinery

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
	full, clean, err := resolveState(root, path)
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
	data, err := safefile.Read(root, clean, maxStateSize)
	if err != nil {
		return fmt.Errorf("work session %s: %w", clean, err)
	}
	bom := bytes.HasPrefix(data, utf8BOM)
	body := bytes.TrimPrefix(data, utf8BOM)
	patched, expect, err := fn(body)
	if err != nil {
		return &WorkSessionError{Path: clean, Msg: err.Error() + "; nothing was written"}
	}
	if err := verifySession(body, patched, expect); err != nil {
		return &WorkSessionError{Path: clean, Msg: "the patched file does not check out (nothing written): " + err.Error()}
	}
	if bom {
		patched = append(append([]byte{}, utf8BOM...), patched...)
	}
	if err := atomicfile.Write(full, patched, fi.Mode().Perm()); err != nil {
		return fmt.Errorf("work session %s: %w", clean, err)
	}
	*keep = &fileBackup{full: full, original: data, written: patched, perm: fi.Mode().Perm()}
	return nil
}

// sessionMap is the decoded mapping holding a session's fields (unwrapped as
// discover and wsLocate do).
func sessionMap(m map[string]any) map[string]any {
	for _, k := range wsIDKeys {
		if v, ok := m[k]; ok && v != nil {
			return m
		}
	}
	for _, w := range wsWrapperKeys {
		if inner, ok := m[w].(map[string]any); ok {
			return inner
		}
	}
	return m
}

// verifySession decodes the original and the patched content; the original
// with the expected change applied must equal the patched one.
func verifySession(orig, patched []byte, expect func(map[string]any) error) error {
	before, err := tolerant.DecodeJSONMap(orig)
	if err != nil {
		return fmt.Errorf("the original does not decode: %w", err)
	}
	after, err := tolerant.DecodeJSONMap(patched)
	if err != nil {
		return err
	}
	if err := expect(sessionMap(before)); err != nil {
		return err
	}
	if canonical(before) != canonical(after) {
		return errors.New("the result differs from the intended change")
	}
	return nil
}

func decodeValue(raw string) (any, error) {
	return tolerant.DecodeJSON([]byte(raw))
}

// appendExpect is the expected change of appending elem to the list key.
func appendExpect(key, elem string) func(map[string]any) error {
	return func(m map[string]any) error {
		v, err := decodeValue(elem)
		if err != nil {
			return err
		}
		l, _ := m[key].([]any)
		m[key] = append(append([]any{}, l...), v)
		return nil
	}
}

// wsLocate scans a work-session file and returns the object holding its
// fields: the top level, or the wrapper member (work_session, …) when the
// top level has no id of its own.
func wsLocate(data []byte) (*jsonObject, []byte, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	s := &jsonScanner{data: data}
	s.skipSpace()
	if s.pos >= len(data) || data[s.pos] != '{' {
		return nil, nil, errors.New("the top level is not a JSON object")
	}
	top, err := s.object(0)
	if err != nil {
		return nil, nil, err
	}
	s.skipSpace()
	if s.pos != len(data) {
		return nil, nil, s.errf("data after the top-level object")
	}
	for _, mem := range top.members {
		for _, k := range wsIDKeys {
			if mem.key == k && !isNull(data, mem) {
				return top, data, nil
			}
		}
	}
	for _, w := range wsWrapperKeys {
		if m := lastMember(top, w); m != nil && m.obj != nil {
			return m.obj, data, nil
		}
	}
	return top, data, nil
}

func isNull(data []byte, m jsonMember) bool {
	return m.kind == 'l' && string(data[m.valStart:m.valEnd]) == "null"
}

// lastMember is the last member named key (the one decoders keep).
func lastMember(o *jsonObject, key string) *jsonMember {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].key == key {
			return &o.members[i]
		}
	}
	return nil
}

// findMember is the member discover reads for keys: the first spelling
// present with a non-null value, else the first present (null).
func findMember(data []byte, o *jsonObject, keys []string) *jsonMember {
	for _, k := range keys {
		if m := lastMember(o, k); m != nil && !isNull(data, *m) {
			return m
		}
	}
	for _, k := range keys {
		if m := lastMember(o, k); m != nil {
			return m
		}
	}
	return nil
}

// arrayElems returns the [start, end) spans of the elements of the array
// opening at pos.
func arrayElems(data []byte, pos int) [][2]int {
	s := &jsonScanner{data: data, pos: pos + 1}
	var out [][2]int
	for {
		s.skipSpace()
		if s.pos >= len(data) || data[s.pos] == ']' {
			return out
		}
		start := s.pos
		if _, _, err := s.value(2); err != nil {
			return out
		}
		out = append(out, [2]int{start, s.pos})
		s.skipSpace()
		if s.pos < len(data) && data[s.pos] == ',' {
			s.pos++
		}
	}
}

// layout is how a file lays its JSON out.
type layout struct {
	nl   string // "\n" or "\r\n"
	unit string // one level of indentation
}

func layoutOf(data []byte) layout {
	l := layout{nl: "\n", unit: "  "}
	if bytes.Contains(data, []byte("\r\n")) {
		l.nl = "\r\n"
	}
	for _, line := range strings.Split(string(data), "\n") {
		ind := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		if ind != "" && strings.TrimSpace(line) != "" {
			l.unit = ind
			break
		}
	}
	return l
}

// lineIndent is the leading white space of the line holding pos.
func lineIndent(data []byte, pos int) string {
	start := bytes.LastIndexByte(data[:pos], '\n') + 1
	end := start
	for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	return string(data[start:end])
}

// multiline reports whether the object lays its members out one per line.
func multiline(data []byte, o *jsonObject) bool {
	return bytes.ContainsRune(data[o.open:o.close], '\n')
}

// memberIndent is the indentation of the object's members.
func memberIndent(data []byte, o *jsonObject, l layout) string {
	if len(o.members) > 0 {
		return lineIndent(data, o.members[0].keyStart)
	}
	return lineIndent(data, o.open) + l.unit
}

// render lays a compact JSON value out: indented (prefix for every line but
// the first) or, with oneLine, on one line ("a": 1, "b": 2 when spaced).
func render(compact string, prefix string, l layout, oneLine, spaced bool) string {
	if oneLine {
		if !spaced {
			return compact
		}
		return spaceJSON(compact)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(compact), prefix, l.unit); err != nil {
		return compact
	}
	return strings.ReplaceAll(b.String(), "\n", l.nl)
}

// spaceJSON puts a space after every ':' and ',' outside strings.
func spaceJSON(s string) string {
	var b strings.Builder
	in, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		b.WriteByte(c)
		switch {
		case in && esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && (c == ':' || c == ','):
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// marshalOrdered encodes v compactly without HTML escaping.
func marshalOrdered(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b.Bytes()); err != nil {
		return "", err
	}
	return c.String(), nil
}

// insertMember adds "key": value (value compact JSON, laid out here) at the
// end of the object, in the object's style.
func insertMember(data []byte, o *jsonObject, key, value string) []byte {
	l := layoutOf(data)
	k, _ := marshalOrdered(key)
	if len(o.members) == 0 {
		if !multiline(data, o) {
			return applyEdits(data, []edit{{o.open + 1, o.close, k + ": " + render(value, "", l, true, true)}})
		}
		ind := lineIndent(data, o.open)
		text := l.nl + ind + l.unit + k + ": " + render(value, ind+l.unit, l, false, false) + l.nl + ind
		return applyEdits(data, []edit{{o.open + 1, o.close, text}})
	}
	last := o.members[len(o.members)-1]
	sep := string(data[last.keyEnd:last.valStart])
	lead := string(data[o.open+1 : o.members[0].keyStart])
	if len(o.members) > 1 {
		prev := o.members[len(o.members)-2]
		if c := bytes.IndexByte(data[prev.valEnd:last.keyStart], ','); c >= 0 {
			lead = string(data[prev.valEnd+c+1 : last.keyStart])
		}
	}
	var v string
	if multiline(data, o) {
		v = render(value, memberIndent(data, o, l), l, false, false)
	} else {
		v = render(value, "", l, true, strings.Contains(sep, " "))
	}
	return applyEdits(data, []edit{{last.valEnd, last.valEnd, "," + lead + k + sep + v}})
}

// setMember sets the member (first present spelling of keys) to value
// (compact JSON), or adds it as key at the end of the object.
func setMember(data []byte, o *jsonObject, keys []string, key, value string) []byte {
	if m := findMember(data, o, keys); m != nil {
		l := layoutOf(data)
		v := value
		if strings.HasPrefix(value, "{") || strings.HasPrefix(value, "[") {
			if multiline(data, o) {
				v = render(value, lineIndent(data, m.keyStart), l, false, false)
			} else {
				v = render(value, "", l, true, true)
			}
		}
		return applyEdits(data, []edit{{m.valStart, m.valEnd, v}})
	}
	return insertMember(data, o, key, value)
}

// memberKey is the spelling setMember writes for keys.
func memberKey(data []byte, o *jsonObject, keys []string, key string) string {
	if m := findMember(data, o, keys); m != nil {
		return m.key
	}
	return key
}

// setMemberChecked sets one member of the session object and returns the
// expected change.
func setMemberChecked(data []byte, keys []string, key, value string) ([]byte, func(map[string]any) error, error) {
	o, body, err := wsLocate(data)
	if err != nil {
		return nil, nil, err
	}
	k := memberKey(body, o, keys, key)
	out := setMember(body, o, keys, key, value)
	return out, func(m map[string]any) error {
		v, err := decodeValue(value)
		if err != nil {
			return err
		}
		m[k] = v
		return nil
	}, nil
}

// setScalars sets several text members of the session object, one after
// the other (each on the re-scanned result).
func setScalars(data []byte, kvs [][2]string) ([]byte, func(map[string]any) error, error) {
	var expects []func(map[string]any) error
	for _, kv := range kvs {
		keys := []string{kv[0]}
		switch kv[0] {
		case "status":
			keys = wsStatusKeys
		case "closed_at":
			keys = wsClosedKeys
		case "summary":
			keys = wsSummaryKeys
		}
		v, _ := marshalOrdered(kv[1])
		out, exp, err := setMemberChecked(data, keys, kv[0], v)
		if err != nil {
			return nil, nil, err
		}
		data = out
		expects = append(expects, exp)
	}
	return data, func(m map[string]any) error {
		for _, e := range expects {
			if err := e(m); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// appendToList appends elem (compact JSON) to the session object's list
// named by keys (the first spelling present; keys[0] is added when none
// is), in the file's style. It returns the key written.
func appendToList(data []byte, keys []string, elem string) ([]byte, string, error) {
	o, body, err := wsLocate(data)
	if err != nil {
		return nil, "", err
	}
	m := findMember(body, o, keys)
	if m == nil {
		return insertMember(body, o, keys[0], "["+elem+"]"), keys[0], nil
	}
	if isNull(body, *m) {
		return setMember(body, o, keys, keys[0], "["+elem+"]"), m.key, nil
	}
	if m.kind != '[' {
		return nil, "", fmt.Errorf("%s is not a list", m.key)
	}
	l := layoutOf(body)
	elems := arrayElems(body, m.valStart)
	if len(elems) == 0 {
		if !multiline(body, o) {
			return applyEdits(body, []edit{{m.valStart, m.valEnd, "[" + render(elem, "", l, true, true) + "]"}}), m.key, nil
		}
		ind := lineIndent(body, m.keyStart)
		text := "[" + l.nl + ind + l.unit + render(elem, ind+l.unit, l, false, false) + l.nl + ind + "]"
		return applyEdits(body, []edit{{m.valStart, m.valEnd, text}}), m.key, nil
	}
	first, last := elems[0], elems[len(elems)-1]
	lead := string(body[m.valStart+1 : first[0]])
	lastText := body[last[0]:last[1]]
	var text string
	if strings.Contains(lead, "\n") {
		ind := lineIndent(body, first[0])
		oneLine := !bytes.ContainsRune(lastText, '\n') && (lastText[0] == '{' || lastText[0] == '[')
		text = "," + l.nl + ind + render(elem, ind, l, oneLine, bytes.Contains(lastText, []byte(`": `)))
	} else {
		sep := ""
		if len(elems) > 1 {
			if c := bytes.IndexByte(body[elems[0][1]:elems[1][0]], ','); c >= 0 {
				sep = string(body[elems[0][1]+c+1 : elems[1][0]])
			}
		} else if strings.Contains(string(body[m.keyEnd:m.valStart]), " ") {
			sep = " "
		}
		text = "," + sep + render(elem, "", l, true, bytes.Contains(lastText, []byte(`": `)) || sep != "")
	}
	return applyEdits(body, []edit{{last[1], last[1], text}}), m.key, nil
}

// upsertSubtask writes entry into the session object's subtasks: the entry
// for the same wsession_id is updated in place (its other members kept), or
// entry is appended.
func upsertSubtask(data []byte, entry SubtaskEntry) ([]byte, func(map[string]any) error, error) {
	o, body, err := wsLocate(data)
	if err != nil {
		return nil, nil, err
	}
	elem, err := marshalOrdered(entry)
	if err != nil {
		return nil, nil, err
	}
	if m := findMember(body, o, wsSubtaskKeys); m != nil && m.kind == '[' {
		for i, e := range arrayElems(body, m.valStart) {
			if body[e[0]] != '{' {
				if body[e[0]] == '"' {
					var s string
					if json.Unmarshal(body[e[0]:e[1]], &s) == nil && strings.TrimSpace(s) == entry.WSessionID {
						return replaceElem(body, m.key, i, e, elem)
					}
				}
				continue
			}
			s := &jsonScanner{data: body, pos: e[0]}
			eo, err := s.object(0)
			if err != nil {
				continue
			}
			idm := findMember(body, eo, wsSubtaskIDKey)
			if idm == nil || idm.kind != '"' {
				continue
			}
			var id string
			if json.Unmarshal(body[idm.valStart:idm.valEnd], &id) != nil || strings.TrimSpace(id) != entry.WSessionID {
				continue
			}
			return mergeElem(body, m.key, i, eo, entry)
		}
	}
	out, key, err := appendToList(body, wsSubtaskKeys, elem)
	if err != nil {
		return nil, nil, err
	}
	return out, appendExpect(key, elem), nil
}

// replaceElem replaces element i (a bare id) of list key with elem.
func replaceElem(body []byte, key string, i int, span [2]int, elem string) ([]byte, func(map[string]any) error, error) {
	l := layoutOf(body)
	text := render(elem, "", l, true, true)
	if ownLine(body, span[0]) {
		text = render(elem, lineIndent(body, span[0]), l, false, false)
	}
	out := applyEdits(body, []edit{{span[0], span[1], text}})
	return out, func(m map[string]any) error {
		v, err := decodeValue(elem)
		if err != nil {
			return err
		}
		l, ok := m[key].([]any)
		if !ok || i >= len(l) {
			return fmt.Errorf("%s[%d] is gone", key, i)
		}
		l[i] = v
		return nil
	}, nil
}

// ownLine reports whether nothing but white space precedes pos on its line.
func ownLine(data []byte, pos int) bool {
	start := bytes.LastIndexByte(data[:pos], '\n') + 1
	return len(bytes.TrimLeft(data[start:pos], " \t")) == 0
}

// mergeElem sets entry's members in the existing entry object eo (element i
// of list key), keeping its other members, re-scanning after each member.
func mergeElem(body []byte, key string, i int, eo *jsonObject, entry SubtaskEntry) ([]byte, func(map[string]any) error, error) {
	start := eo.open
	type kv struct {
		keys []string
		key  string
		val  string
	}
	var kvs []kv
	add := func(keys []string, k, v string) {
		if v == "" {
			return
		}
		j, _ := marshalOrdered(v)
		kvs = append(kvs, kv{keys, k, j})
	}
	add(wsSubtaskIDKey, "wsession_id", entry.WSessionID)
	add([]string{"task_id", "taskId", "task"}, "task_id", entry.TaskID)
	add([]string{"summary", "result", "outcome", "message"}, "summary", entry.Summary)
	add([]string{"status", "state"}, "status", entry.Status)
	add(wsClosedKeys, "closed_at", entry.ClosedAt)
	var written []string
	for _, x := range kvs {
		s := &jsonScanner{data: body, pos: start}
		o, err := s.object(0)
		if err != nil {
			return nil, nil, err
		}
		written = append(written, memberKey(body, o, x.keys, x.key))
		body = setMember(body, o, x.keys, x.key, x.val)
	}
	return body, func(m map[string]any) error {
		l, ok := m[key].([]any)
		if !ok || i >= len(l) {
			return fmt.Errorf("%s[%d] is gone", key, i)
		}
		e, ok := l[i].(map[string]any)
		if !ok {
			return fmt.Errorf("%s[%d] is not an object", key, i)
		}
		for n, x := range kvs {
			v, err := decodeValue(x.val)
			if err != nil {
				return err
			}
			e[written[n]] = v
		}
		return nil
	}, nil
}

// restoredList returns the list a candidate's context holds under key (the
// breadcrumbs or the subtask summaries of a work session), never nil.
func restoredList(saved map[string]any, key string) []any {
	if l, ok := saved[key].([]any); ok && l != nil {
		return l
	}
	return []any{}
}

// isWorkSession reports whether a candidate is a work session.
func isWorkSession(c workflow.Candidate) bool {
	return c.Source.Kind == workflow.KindWorkSession
}
