// Package agentsession finds, in the user's home, the agent session a
// hand-off could resume when a workflow's state names none (opt-in:
// --find-session or handoff.find_session): the most recent session of the
// repository whose transcript touched one of the workflow's files.
//
// Layouts read (each agent's own session folder, nothing else):
//
//   - Claude Code: <CLAUDE_CONFIG_DIR or ~/.claude>/projects/<root with
//     every "/" and "." (and other non-alphanumerics) as "->/<session
//     id>.jsonl; the file name is the id `claude --resume` takes.
//   - Codex CLI: <CODEX_HOME or ~/.codex>/sessions/YYYY/MM/DD/rollout-*.jsonl,
//     whose first line is a session_meta record naming the session id and
//     the cwd it ran in; only sessions whose cwd is the repository count.
//
// Reads are confined: the agent's folder is opened as the user named it,
// every folder and file below it without following a symlink (a symlink is
// skipped, never followed out), files without blocking (a FIFO is not a
// file and is skipped), regular files only, each read up to MaxRead bytes,
// at most MaxTranscripts transcripts and MaxTotalRead bytes per search
// (newest first), at most 16 of the workflow's files looked for. Nothing of a transcript is
// returned but the session id, its time and the first line of its first
// prompt, redacted (internal/redact) and terminal-safe (internal/termsafe).
package agentsession

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/redact"
	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
)

// The agents whose sessions can be found.
const (
	Claude = "claude"
	Codex  = "codex"
)

// Limits of one search.
const (
	// MaxRead is how much of one transcript is read (its head).
	MaxRead = 16 << 20
	// MaxTranscripts is how many transcripts, newest first, are looked at.
	MaxTranscripts = 200
	// MaxTotalRead is how much of all transcripts one search reads: 200
	// sparse 4 GiB transcripts once cost 3.2 GB of reading and scanning
	// (past 5 s); the newest transcripts are read first.
	MaxTotalRead = 128 << 20
	// maxNeedles caps the workflow files looked for (the state file and
	// its evidence first): each is searched for in every transcript read,
	// and a repository names as many referenced files as it likes.
	maxNeedles = 16
	// metaHead is how much of a Codex rollout is read to check its
	// session_meta line (its cwd) before the rest.
	metaHead = 64 << 10
	// maxDays is how many Codex day folders, newest first, are listed.
	maxDays = 90
	// maxNames caps the entries listed in one folder.
	maxNames = 10000
	// firstLineMax is the longest first line returned, in runes.
	firstLineMax = 100
)

// Supported reports whether agent keeps sessions this package can find.
func Supported(agent string) bool { return agent == Claude || agent == Codex }

// Query is one search.
type Query struct {
	// Getenv is the injected environment: HOME, CLAUDE_CONFIG_DIR,
	// CODEX_HOME.
	Getenv func(string) string
	// Root is the repository's root, absolute (the agent's cwd).
	Root string
	// Files are the workflow's files, repository-relative and
	// slash-separated (its state file, its referenced files).
	Files []string
}

// Session is a session found.
type Session struct {
	Agent string
	// ID is what the agent's resume takes.
	ID string
	// Time is its last activity (the transcript's modification time).
	Time time.Time
	// FirstLine is the first line of its first prompt, redacted,
	// terminal-safe and cut to 100 runes ("" when none was found).
	FirstLine string
	// Touched is the workflow file its transcript names.
	Touched string
}

// idRe is what a session id may look like: it goes on the agent's command
// line (a leading "-" could be read as an option).
// Compiled on first use (lazyre): its {0,127} alone cost every run of
// every command 2 ms at start.
var idRe = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`)

// Find returns the most recent session of agent for the repository whose
// transcript names one of q.Files; false when there is none (or the agent's
// folder does not exist). An error is a folder that could not be read for
// another reason.
func Find(agent string, q Query) (Session, bool, error) {
	getenv := q.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	root := filepath.Clean(q.Root)
	needles := needles(root, q.Files)
	if len(needles) == 0 || !filepath.IsAbs(root) {
		return Session{}, false, nil
	}
	var cands []transcript
	var err error
	opened := &tracker{}
	defer opened.closeAll()
	switch agent {
	case Claude:
		cands, err = claudeTranscripts(opened, agentBase(getenv, "CLAUDE_CONFIG_DIR", ".claude"), root)
	case Codex:
		cands, err = codexTranscripts(opened, agentBase(getenv, "CODEX_HOME", ".codex"))
	default:
		return Session{}, false, nil
	}
	if err != nil || len(cands) == 0 {
		return Session{}, false, err
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].mtime.After(cands[j].mtime) })
	if len(cands) > MaxTranscripts {
		cands = cands[:MaxTranscripts]
	}
	budget := MaxTotalRead
	for _, c := range cands {
		if budget <= 0 {
			break
		}
		if agent == Codex {
			// another repository's rollout is skipped on its first line
			head, ok := c.dir.readHead(c.name, metaHead)
			if _, cwd := codexMeta(head); !ok || filepath.Clean(cwd) != root {
				continue
			}
		}
		data, ok := c.dir.readHead(c.name, min(MaxRead, budget))
		if !ok {
			continue
		}
		budget -= max(len(data), 1)
		s := Session{Agent: agent, Time: c.mtime}
		switch agent {
		case Claude:
			s.ID = strings.TrimSuffix(c.name, ".jsonl")
		case Codex:
			id, cwd := codexMeta(data)
			if filepath.Clean(cwd) != root {
				continue
			}
			s.ID = id
		}
		if !idRe().MatchString(s.ID) {
			continue
		}
		touched := ""
		for _, n := range needles {
			if bytes.Contains(data, []byte(n.text)) {
				touched = n.file
				break
			}
		}
		if touched == "" {
			continue
		}
		s.Touched = touched
		s.FirstLine = clean(firstPrompt(agent, data))
		return s, true, nil
	}
	return Session{}, false, nil
}

// homeDir is $HOME/name, "" without a home.
func homeDir(getenv func(string) string, name string) string {
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, name)
	}
	return ""
}

type needle struct{ text, file string }

// needles are the texts that show a transcript touched a workflow file:
// its absolute path, and its repository-relative path when that is
// specific enough (it holds a "/" or a ".").
func needles(root string, files []string) []needle {
	var out []needle
	seen := map[string]bool{}
	for _, f := range files {
		f = strings.TrimPrefix(filepath.ToSlash(filepath.Clean(f)), "./")
		if f == "" || f == "." || strings.HasPrefix(f, "../") || filepath.IsAbs(f) || seen[f] {
			continue
		}
		seen[f] = true
		if len(seen) > maxNeedles {
			break
		}
		out = append(out, needle{filepath.Join(root, filepath.FromSlash(f)), f})
		if strings.ContainsAny(f, "/.") && len(f) >= 4 {
			out = append(out, needle{f, f})
		}
	}
	return out
}

// ClaudeProjectDirs are the names Claude Code may give the project folder
// of root: every character but a letter or digit as "-" (current
// versions), and only "/" and "." as "-" (the documented older form).
func ClaudeProjectDirs(root string) []string {
	all := []rune(root)
	slashDot := []rune(root)
	for i, r := range all {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			all[i] = '-'
		}
		if r == '/' || r == '.' {
			slashDot[i] = '-'
		}
	}
	a, b := string(all), string(slashDot)
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}

// transcript is one session file found, not yet read.
type transcript struct {
	dir   *dir
	name  string
	mtime time.Time
}

func claudeTranscripts(t *tracker, base, root string) ([]transcript, error) {
	if base == "" {
		return nil, nil
	}
	var out []transcript
	for _, proj := range ClaudeProjectDirs(root) {
		if strings.ContainsRune(proj, 0) || len(proj) > 255 {
			continue
		}
		d, err := t.openPath(base, "projects", proj)
		if err != nil {
			if errors.Is(err, errSkip) {
				continue
			}
			return nil, err
		}
		out = append(out, d.files(func(n string) bool { return strings.HasSuffix(n, ".jsonl") })...)
	}
	return out, nil
}

var (
	yearRe = lazyre.New(`^[0-9]{4}$`)
	twoRe  = lazyre.New(`^[0-9]{2}$`)
)

func codexTranscripts(t *tracker, base string) ([]transcript, error) {
	if base == "" {
		return nil, nil
	}
	sessions, err := t.openPath(base, "sessions")
	if err != nil {
		if errors.Is(err, errSkip) {
			return nil, nil
		}
		return nil, err
	}
	var out []transcript
	days := 0
	rollout := func(n string) bool { return strings.HasPrefix(n, "rollout-") && strings.HasSuffix(n, ".jsonl") }
	for _, yn := range sessions.subdirNames(yearRe()) {
		y, err := t.sub(sessions, yn)
		if err != nil {
			continue
		}
		for _, mn := range y.subdirNames(twoRe()) {
			m, err := t.sub(y, mn)
			if err != nil {
				continue
			}
			for _, dn := range m.subdirNames(twoRe()) {
				if days >= maxDays {
					return out, nil
				}
				d, err := t.sub(m, dn)
				if err != nil {
					continue
				}
				days++
				out = append(out, d.files(rollout)...)
			}
		}
	}
	return out, nil
}

// codexMeta reads the session id and cwd of a Codex rollout's first line
// (a session_meta record).
func codexMeta(data []byte) (id, cwd string) {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	var rec struct {
		Type    string `json:"type"`
		Payload struct {
			ID  string `json:"id"`
			Cwd string `json:"cwd"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Type != "session_meta" {
		return "", ""
	}
	return rec.Payload.ID, rec.Payload.Cwd
}

// firstPrompt is the text of the first prompt a person wrote in a
// transcript (tool output, commands and injected context skipped).
func firstPrompt(agent string, data []byte) string {
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte("\n"))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var text string
		if agent == Claude {
			text = claudePrompt(line)
		} else {
			text = codexPrompt(line)
		}
		text = strings.TrimSpace(text)
		if text != "" && !strings.HasPrefix(text, "<") {
			return text
		}
	}
	return ""
}

func claudePrompt(line []byte) string {
	var rec struct {
		Type    string `json:"type"`
		IsMeta  bool   `json:"isMeta"`
		Message struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Type != "user" || rec.IsMeta {
		return ""
	}
	return contentText(rec.Message.Content, "text")
}

func codexPrompt(line []byte) string {
	var rec struct {
		Type    string `json:"type"`
		Payload struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
			Message string          `json:"message"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &rec) != nil {
		return ""
	}
	switch {
	case rec.Type == "event_msg" && rec.Payload.Type == "user_message":
		return rec.Payload.Message
	case rec.Type == "response_item" && rec.Payload.Type == "message" && rec.Payload.Role == "user":
		return contentText(rec.Payload.Content, "input_text")
	}
	return ""
}

// contentText is a message content's text: the string itself, or the
// first part of type kind.
func contentText(raw json.RawMessage, kind string) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		for _, p := range parts {
			if p.Type == kind && strings.TrimSpace(p.Text) != "" {
				return p.Text
			}
		}
	}
	return ""
}

// clean makes a prompt's first line safe to show: redacted, valid UTF-8,
// terminal-safe, at most firstLineMax runes.
func clean(s string) string {
	s = strings.TrimSpace(strings.SplitN(s, "\n", 2)[0])
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = redact.String(s)
	if utf8.RuneCountInString(s) > firstLineMax {
		r := []rune(s)
		s = string(r[:firstLineMax-1]) + "…"
	}
	return termsafe.String(s)
}

// errSkip is a folder that is missing, or not a folder (a symlink, a
// file): nothing to read there.
var errSkip = errors.New("skipped")

// dir is a folder opened without following symlinks below its base.
type dir struct {
	fd   int
	path string
}

// tracker holds the folders a search opened, to close them all at its end
// (transcripts keep their folder open until read).
type tracker struct{ dirs []*dir }

func (t *tracker) closeAll() {
	for _, d := range t.dirs {
		unix.Close(d.fd)
	}
	t.dirs = nil
}

// sub opens folder name inside d (dir.sub), tracked.
func (t *tracker) sub(d *dir, name string) (*dir, error) {
	s, err := d.sub(name)
	if err == nil {
		t.dirs = append(t.dirs, s)
	}
	return s, err
}

// openPath is openPath, tracked.
func (t *tracker) openPath(base string, parts ...string) (*dir, error) {
	d, err := openPath(base, parts...)
	if err == nil {
		t.dirs = append(t.dirs, d)
	}
	return d, err
}

// openPath opens base (as the user named it), then each of parts inside it
// without following a symlink.
func openPath(base string, parts ...string) (*dir, error) {
	fd, err := unix.Open(base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		if err == unix.ENOENT || err == unix.ENOTDIR {
			return nil, errSkip
		}
		return nil, &os.PathError{Op: "open", Path: base, Err: err}
	}
	d := &dir{fd: fd, path: base}
	for _, p := range parts {
		next, err := d.sub(p)
		unix.Close(d.fd)
		if err != nil {
			return nil, err
		}
		d = next
	}
	return d, nil
}

// sub opens folder name inside d: no symlink, no FIFO, nothing but a
// folder (errSkip otherwise).
func (d *dir) sub(name string) (*dir, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, '/') {
		return nil, errSkip
	}
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		switch err {
		case unix.ENOENT, unix.ENOTDIR, unix.ELOOP, unix.EACCES:
			return nil, errSkip
		}
		return nil, &os.PathError{Op: "open", Path: filepath.Join(d.path, name), Err: err}
	}
	return &dir{fd: fd, path: filepath.Join(d.path, name)}, nil
}

// names lists d (at most maxNames entries).
func (d *dir) names() []string {
	fd, err := unix.Openat(d.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	names, _ := f.Readdirnames(maxNames)
	return names
}

// subdirNames are the names in d that match re, newest (highest) first.
func (d *dir) subdirNames(re *regexp.Regexp) []string {
	var names []string
	for _, n := range d.names() {
		if re.MatchString(n) {
			names = append(names, n)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	return names
}

// files are d's regular files (by lstat: a symlink is not one) whose names
// keep says to.
func (d *dir) files(keep func(string) bool) []transcript {
	var out []transcript
	for _, n := range d.names() {
		if !keep(n) {
			continue
		}
		var st unix.Stat_t
		if unix.Fstatat(d.fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
			continue
		}
		sec, nsec := st.Mtim.Unix()
		out = append(out, transcript{dir: d, name: n, mtime: time.Unix(sec, nsec).UTC()})
	}
	return out
}

// readHead reads up to max bytes of the regular file name in d, opened
// without following a symlink and without blocking.
func (d *dir) readHead(name string, max int) ([]byte, bool) {
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, false
	}
	size := int(min(st.Size, int64(max)))
	buf := make([]byte, size)
	n := 0
	for n < size {
		m, err := unix.Read(fd, buf[n:])
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err != nil || m <= 0 {
			break
		}
		n += m
	}
	return buf[:n], true
}
