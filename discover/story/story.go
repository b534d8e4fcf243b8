package story

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/pathglob"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Bounds of the story parser. Story files are written by agents and people;
// these keep a pathological file from producing a pathological result.
const (
	// storyHeaderLines is how far from the top a "**Status:** X" line (and
	// the Executor, Quality Gate and Epic lines) may be.
	storyHeaderLines = 40
	// storyMaxFieldLen bounds titles, epics and agents, in bytes.
	storyMaxFieldLen = 512
	// storyMaxPathLen bounds one File List path, in bytes.
	storyMaxPathLen = 1024
	// storyMaxFileList bounds the File List paths kept per story.
	storyMaxFileList = 5000
	// storyMaxPathFindings bounds the unsafe-path findings per story.
	storyMaxPathFindings = 10
	// MaxTableCells bounds the table cells looked at per row.
	MaxTableCells = 16
)

// storySectionNames maps a normalised heading to its canonical section.
var storySectionNames = map[string]string{
	"acceptance criteria": workflow.SectionAcceptance,
	"scope":               workflow.SectionScope,
	"dependencies":        workflow.SectionDependencies,
	"file list":           workflow.SectionFileList,
	"files list":          workflow.SectionFileList,
	"change log":          workflow.SectionChangeLog,
	"changelog":           workflow.SectionChangeLog,
	"dev notes":           workflow.SectionDevNotes,
	"tasks / subtasks":    workflow.SectionTasks,
	"tasks/subtasks":      workflow.SectionTasks,
	"tasks and subtasks":  workflow.SectionTasks,
	"tasks & subtasks":    workflow.SectionTasks,
	"tasks":               workflow.SectionTasks,
}

// storyParsed is ParseStory's result plus what the story source needs to
// tell a story from a README.
type storyParsed struct {
	story     *workflow.Story
	hasID     bool // the title or the file name gave an id
	hasStatus bool // a status line or a Status heading was found
}

// ParseStory parses a story file (markdown) at the repository-relative path.
// It never fails: whatever it cannot make sense of becomes a finding, and
// the story it returns always has an id and a canonical status.
//
//   - Status: a "**Status:** InProgress" line ("Status: X", "**Status**: X"
//     too) within the first 40 lines, or a "Status" heading of any level
//     with the value on the next non-empty line; the first one outside code
//     fences counts. StatusRaw is the value as written (trimmed, at most 256
//     bytes); Status is CanonicalStatus of it with extra. No status is an info
//     finding "no-status", a spelling outside the table an info finding
//     "unknown-status": an odd story never blocks.
//   - ID: the file name's leading digits and dots ("4.2.slug.md",
//     "4.2.story.md", "story-4.2.md"), else the title's ("# Story 4.2: …",
//     "# Story 4.2 - …", "# 4.2: …"), else the file name without ".md" (with
//     an info finding). The file name wins because it is unique in its
//     folder; a title that disagrees is an info finding "id-mismatch".
//   - Sections (headings of any level, up to the next heading of the same
//     or a higher level): see the workflow.Section* constants. Hash is the
//     hex sha256 of the text with trailing whitespace trimmed from each line
//     and leading and trailing blank lines removed, so re-saving a file
//     does not look like a change.
//   - FileList: the paths of the File List's bullets and table rows (see
//     storyFileListPath). A story's File List is repository-relative by
//     convention, so one leading "/" ("/packages/app/x.ts") is dropped.
//   - Executor, QualityGate ("@dev" → "dev") and Epic from their
//     "**Executor:** @dev" lines near the top.
//
// Invalid UTF-8 is a warning finding and is parsed as far as it goes. The
// parser is linear in the size of data.
func ParseStory(path string, data []byte, extra map[string][]string) (*workflow.Story, []workflow.Finding) {
	p := storyParse(path, data, extra)
	return p.story, p.story.Findings
}

// storyOpen is a section whose end has not been seen yet.
type storyOpen struct {
	key   string
	level int
	line  int // heading line
	start int // byte offset of the first line after the heading
}

// storyState is the parser's state while it walks the lines.
type storyState struct {
	path     string
	text     string
	st       *workflow.Story
	findings []workflow.Finding

	fence     byte // '`' or '~' inside a fenced code block, else 0
	fenceLen  int
	titleSeen bool
	titleText string

	statusFound   bool
	statusPending int // line of a Status heading whose value is still to come
	statusRaw     string

	open   []storyOpen
	seen   map[string]bool // sections already taken (the first one wins)
	inList bool            // inside the File List section

	table     storyTable
	files     []string
	fileSeen  map[string]bool
	unsafe    int
	truncated bool
}

// storyTable tracks the table being read in the File List.
type storyTable struct {
	rows int // rows seen in the current table
	col  int // the column holding the path
}

// storyParse is ParseStory, also saying whether an id and a status were found.
func storyParse(path string, data []byte, extra map[string][]string) storyParsed {
	s := &storyState{
		path:     path,
		st:       &workflow.Story{Path: path, Status: workflow.StatusUnknown, Sections: map[string]workflow.Section{}},
		seen:     map[string]bool{},
		fileSeen: map[string]bool{},
	}
	if utf8.Valid(data) {
		s.text = string(data)
	} else {
		f := source.ParseFinding(path, tolerant.FirstInvalidLine(data), "invalid-utf8", "not valid UTF-8 text; invalid bytes are ignored")
		f.Severity = workflow.Warning
		s.findings = append(s.findings, f)
		s.text = strings.ToValidUTF8(string(data), "\uFFFD")
	}
	s.walk()
	p := storyParsed{story: s.st, hasStatus: s.statusFound}
	p.hasID = s.finishID()
	s.finishStatus(extra)
	s.finishFiles()
	s.st.Findings = s.findings
	return p
}

// walk visits every line once.
func (s *storyState) walk() {
	text := s.text
	lineNo := 0
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		next := len(text)
		if end < 0 {
			end = len(text)
		} else {
			end += off
			next = end + 1
		}
		lineNo++
		line := strings.TrimSuffix(text[off:end], "\r")
		s.line(lineNo, line, off, next)
		off = next
	}
	s.closeSections(0, len(text))
}

// line handles one line: lineNo is 1-based, start and next are the byte
// offsets of the line and of the one after it.
func (s *storyState) line(lineNo int, line string, start, next int) {
	if s.fenceLine(line) {
		s.statusPending = 0 // a Status heading's value is never a code block
		return
	}
	if s.fence != 0 {
		return
	}
	if level, htext, ok := storyHeading(line); ok {
		s.heading(lineNo, level, htext, start, next)
		return
	}
	blank := strings.TrimSpace(line) == ""
	if s.statusPending > 0 && !blank {
		s.statusRaw = workflow.Truncate(strings.TrimSpace(line), workflow.MaxStatusLen)
		s.st.StatusLine = lineNo
		s.statusPending = 0
	}
	if lineNo <= storyHeaderLines && !blank {
		s.headerField(lineNo, line)
	}
	if s.inList {
		s.fileListLine(lineNo, line, blank)
	}
}

// fenceLine tracks fenced code blocks; it reports whether line opens or
// closes one.
func (s *storyState) fenceLine(line string) bool {
	t := line
	for i := 0; i < 3 && strings.HasPrefix(t, " "); i++ {
		t = t[1:]
	}
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return false
	}
	c := t[0]
	n := 0
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 {
		return false
	}
	if s.fence == 0 {
		if c == '`' && strings.IndexByte(t[n:], '`') >= 0 {
			return false // not a fence: backticks in the info string
		}
		s.fence, s.fenceLen = c, n
		s.table = storyTable{}
		return true
	}
	if c == s.fence && n >= s.fenceLen && strings.TrimSpace(t[n:]) == "" {
		s.fence, s.fenceLen = 0, 0
		return true
	}
	return false
}

// storyHeading parses an ATX heading ("## Text ##"), returning its level
// and its text.
func storyHeading(line string) (int, string, bool) {
	t := line
	for i := 0; i < 3 && strings.HasPrefix(t, " "); i++ {
		t = t[1:]
	}
	level := 0
	for level < len(t) && level < 7 && t[level] == '#' {
		level++
	}
	if level == 0 || level > 6 {
		return 0, "", false
	}
	rest := t[level:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, "", false
	}
	rest = strings.TrimSpace(rest)
	// an optional closing sequence of '#'s, preceded by a space
	if trimmed := strings.TrimRight(rest, "#"); trimmed != rest && (trimmed == "" || strings.HasSuffix(trimmed, " ")) {
		rest = strings.TrimSpace(trimmed)
	}
	return level, rest, true
}

// heading handles a heading line.
func (s *storyState) heading(lineNo, level int, htext string, start, next int) {
	s.closeSections(level, start)
	s.table = storyTable{}
	if s.statusPending > 0 {
		s.statusPending = 0 // a Status heading with no value under it
	}
	if level == 1 && !s.titleSeen {
		s.titleSeen = true
		s.titleText = workflow.Truncate(htext, storyMaxFieldLen)
	}
	name := storyHeadingName(htext)
	if !s.statusFound {
		if name == "status" {
			s.statusFound = true
			s.statusPending = lineNo
			s.st.StatusLine = lineNo
		} else if v, ok := storyStatusHeadingValue(htext); ok {
			s.statusFound = true
			s.st.StatusLine = lineNo
			s.statusRaw = v
		}
	}
	if key, ok := storySectionNames[name]; ok && !s.seen[key] {
		s.seen[key] = true
		s.open = append(s.open, storyOpen{key: key, level: level, line: lineNo, start: next})
		if key == workflow.SectionFileList {
			s.inList = true
			s.table = storyTable{}
		}
	}
}

// closeSections ends the open sections of level or deeper (all of them when
// level is 0) at byte offset end.
func (s *storyState) closeSections(level, end int) {
	kept := s.open[:0]
	for _, o := range s.open {
		if level > 0 && o.level < level {
			kept = append(kept, o)
			continue
		}
		if o.start > end {
			o.start = end
		}
		raw := strings.TrimSuffix(s.text[o.start:end], "\n")
		if strings.Contains(raw, "\r") {
			raw = strings.ReplaceAll(raw, "\r\n", "\n")
		}
		s.st.Sections[o.key] = workflow.Section{Raw: raw, Hash: StorySectionHash(raw), Line: o.line}
		if o.key == workflow.SectionFileList {
			s.inList = false
		}
	}
	s.open = kept
}

// StorySectionHash is the content hash of a story section: the hex sha256 of its
// text with trailing whitespace trimmed from every line and leading and
// trailing blank lines removed, so that re-saving a file (line endings,
// trailing spaces, blank lines around the section) is not a change.
func StorySectionHash(raw string) string {
	h := sha256.New()
	pendingBlank := 0
	started := false
	for off := 0; off <= len(raw); {
		end := strings.IndexByte(raw[off:], '\n')
		if end < 0 {
			end = len(raw)
		} else {
			end += off
		}
		line := strings.TrimRightFunc(raw[off:end], unicode.IsSpace)
		off = end + 1
		if line == "" {
			if started {
				pendingBlank++
			}
			continue
		}
		if started {
			for ; pendingBlank > 0; pendingBlank-- {
				h.Write([]byte{'\n'})
			}
			h.Write([]byte{'\n'})
		}
		started = true
		h.Write([]byte(line))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// storyHeadingName normalises a heading for matching section names:
// emphasis, emoji, a trailing colon and a trailing parenthetical
// ("Acceptance Criteria (MVP Scope)") removed, a leading number ("3. Scope")
// dropped, lower case, single spaces.
func storyHeadingName(htext string) string {
	if len(htext) > 160 {
		return "" // no section name is that long
	}
	t := strings.ToLower(workflow.StripStatus(htext))
	t = strings.TrimSpace(strings.TrimRight(t, ":"))
	if strings.HasSuffix(t, ")") {
		if i := strings.LastIndex(t, " ("); i > 0 {
			t = strings.TrimSpace(strings.TrimRight(t[:i], ":"))
		}
	}
	// a leading section number: "3.", "3.1", "3)"
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.' || t[i] == ')') {
		i++
	}
	if i > 0 && i < len(t) && t[i] == ' ' {
		t = t[i+1:]
	}
	return t
}

// storyStatusHeadingValue reads a heading that carries its value, such as
// "## Status: Done".
func storyStatusHeadingValue(htext string) (string, bool) {
	key, val, ok := storyField(htext)
	if !ok || key != "status" {
		return "", false
	}
	return val, true
}

// headerField reads a "**Key:** value" line near the top.
func (s *storyState) headerField(lineNo int, line string) {
	key, val, ok := storyField(line)
	if !ok {
		return
	}
	switch key {
	case "status":
		if !s.statusFound {
			s.statusFound = true
			s.st.StatusLine = lineNo
			s.statusRaw = val
		}
	case "executor":
		if s.st.Executor == "" {
			s.st.Executor = storyAgent(val)
		}
	case "qualitygate":
		if s.st.QualityGate == "" {
			s.st.QualityGate = storyAgent(val)
		}
	case "epic":
		if s.st.Epic == "" {
			s.st.Epic = storyPlain(val)
		}
	}
}

// storyField splits a "**Key:** value" line (also "Key: value",
// "**Key**: value", "- **Key:** value", "> Key: value") into its folded key
// (lower case, without emphasis, spaces, '-' and '_') and its value as
// written, trimmed, at most storyMaxStatusLen bytes.
func storyField(line string) (string, string, bool) {
	t := strings.TrimSpace(line)
	for _, p := range []string{"> ", "- ", "* ", "+ "} {
		if strings.HasPrefix(t, p) && !strings.HasPrefix(t, "**") {
			t = strings.TrimSpace(t[len(p):])
			break
		}
	}
	head := workflow.Truncate(t, 64)
	colon := strings.IndexByte(head, ':')
	if colon <= 0 {
		return "", "", false
	}
	keyRaw := t[:colon]
	var kb strings.Builder
	for _, r := range strings.ToLower(keyRaw) {
		switch {
		case r == '*' || r == '_' || r == '`' || r == ' ' || r == '-' || r == '\t':
		case unicode.IsLetter(r):
			kb.WriteRune(r)
		default:
			return "", "", false // not a field name
		}
	}
	key := kb.String()
	if key == "" {
		return "", "", false
	}
	// an emphasis opened before the key and closed after the colon:
	// "**Status:** Done" — drop the closing marker from the value
	lead := len(keyRaw) - len(strings.TrimLeft(keyRaw, "*_"))
	trail := len(keyRaw) - len(strings.TrimRight(keyRaw, "*_"))
	val := t[colon+1:]
	for n := lead - trail; n > 0 && val != "" && (val[0] == '*' || val[0] == '_'); n-- {
		val = val[1:]
	}
	return key, workflow.Truncate(strings.TrimSpace(val), workflow.MaxStatusLen), true
}

// storyAgent turns "@dev (Dex)" into "dev".
func storyAgent(v string) string {
	f := strings.Fields(storyPlain(v))
	if len(f) == 0 {
		return ""
	}
	a := strings.TrimLeft(f[0], "@")
	a = strings.TrimRight(a, ".,;:")
	return strings.ToLower(a)
}

// storyEmphasis removes emphasis markers.
var storyEmphasis = strings.NewReplacer("**", "", "__", "", "`", "")

// storyReadAll reads and parses the story files at paths with one worker
// per CPU (reading and parsing 2,000 stories is most of a scan), returning
// them in the order of paths; nil marks a file that is not a story, and
// readable[i] is false for a file that could not be read.
func storyReadAll(r *source.Repo, paths []string) (out []*workflow.Story, readable []bool) {
	out = make([]*workflow.Story, len(paths))
	readable = make([]bool, len(paths))
	var next atomic.Int64
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	if workers > len(paths) {
		workers = len(paths)
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(paths) {
					return
				}
				p := paths[i]
				var st *workflow.Story
				data, mtime, err := r.ReadWithTime(p)
				if err != nil {
					st = storyUnreadable(p, err)
				} else {
					parsed := storyParse(p, data, r.Config.Statuses)
					if !parsed.hasID && !parsed.hasStatus {
						continue
					}
					st = parsed.story
					readable[i] = true
				}
				if mtime.IsZero() {
					mtime = r.ModTime(p)
				}
				st.ModTime = mtime
				out[i] = st
			}
		}()
	}
	wg.Wait()
	return out, readable
}

// storyPlain removes emphasis markers and extra whitespace.
func storyPlain(v string) string {
	v = storyEmphasis.Replace(workflow.Truncate(v, storyMaxFieldLen))
	return strings.Join(strings.Fields(v), " ")
}

// finishID settles the story's id and title; it reports whether an id was
// found in the file name or the title.
func (s *storyState) finishID() bool {
	fileID := StoryIDFromFileName(s.path)
	titleID, title := storyTitle(s.titleText)
	s.st.Title = title
	switch {
	case fileID != "":
		s.st.ID = fileID
		if titleID != "" && titleID != fileID {
			s.info(0, "id-mismatch", "the file name gives story id %s but the title says %s; using %s", fileID, titleID, fileID)
		}
		return true
	case titleID != "":
		s.st.ID = titleID
		return true
	}
	base := strings.TrimSuffix(path.Base(s.path), ".md")
	if base == "" || base == "." || base == "/" {
		base = "story"
	}
	s.st.ID = base
	s.info(0, "no-story-id", "no story id in the title or the file name; using %q", base)
	return false
}

// finishStatus maps the status text found to a canonical status.
func (s *storyState) finishStatus(extra map[string][]string) {
	if !s.statusFound {
		s.info(0, "no-status", "no Status line or Status heading; the status is Unknown")
		return
	}
	s.st.StatusRaw = s.statusRaw
	if s.statusRaw == "" {
		s.info(s.st.StatusLine, "no-status", "the status is empty; the status is Unknown")
		return
	}
	st, _ := workflow.CanonicalStatus(s.statusRaw, extra)
	s.st.Status = st
	if st == workflow.StatusUnknown {
		s.info(s.st.StatusLine, "unknown-status", "status %q is not a known spelling; the status is Unknown (add it under statuses: in the configuration)", s.statusRaw)
	}
}

// finishFiles stores the File List and its findings.
func (s *storyState) finishFiles() {
	s.st.FileList = s.files
	if s.unsafe > storyMaxPathFindings {
		f := source.ParseFinding(s.path, 0, "unsafe-path", "%d more unsafe paths in the File List were ignored", s.unsafe-storyMaxPathFindings)
		f.Severity = workflow.Warning
		s.findings = append(s.findings, f)
	}
	if s.truncated {
		f := source.ParseFinding(s.path, 0, "file-list-truncated", "the File List has more than %d paths; the rest were ignored", storyMaxFileList)
		f.Severity = workflow.Warning
		s.findings = append(s.findings, f)
	}
}

// info records an info finding about the story.
func (s *storyState) info(line int, code, format string, args ...any) {
	f := source.ParseFinding(s.path, line, code, format, args...)
	f.Severity = workflow.Info
	s.findings = append(s.findings, f)
}

// StoryIDFromFileName returns the story id a file name carries: the leading
// digits and dots of "4.2.slug.md", "4.2.story.md", "4.2.md" or
// "story-4.2.md" ("4.2"), or "" when it carries none. A bare leading number
// needs at least two parts ("4.2"), so "2024-notes.md" has no id; after a
// "story-" prefix one part is enough.
func StoryIDFromFileName(p string) string {
	base := path.Base(strings.ReplaceAll(p, "\\", "/"))
	name := strings.TrimSuffix(base, ".md")
	minParts := 2
	lower := strings.ToLower(name)
	for _, pre := range []string{"story-", "story_", "story."} {
		if strings.HasPrefix(lower, pre) {
			name = name[len(pre):]
			minParts = 1
			break
		}
	}
	id, parts := storyLeadingNumber(name)
	if parts < minParts {
		return ""
	}
	rest := name[len(id):]
	if rest != "" && rest[0] != '.' && rest[0] != '-' && rest[0] != '_' {
		return ""
	}
	return id
}

// storyLeadingNumber returns the leading "1.2.3" of s and its number of
// parts.
func storyLeadingNumber(s string) (string, int) {
	i, parts := 0, 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		parts++
		i = j
		if i+1 < len(s) && s[i] == '.' && s[i+1] >= '0' && s[i+1] <= '9' {
			i++
			continue
		}
		break
	}
	return s[:i], parts
}

// storyTitle splits a title heading into the story id it names and the
// title text: "Story 4.2: Login" and "Story 4.2 - Login" give ("4.2",
// "Login"), "4.2: Login" gives ("4.2", "Login"), "Login" gives ("",
// "Login"). An id after "Story" is one word with a digit in it, made of
// letters, digits, '.', '-' and '_' ("EPIC-ACT.1").
func storyTitle(h string) (string, string) {
	t := storyPlain(h)
	if t == "" {
		return "", ""
	}
	if len(t) > 5 && strings.EqualFold(t[:5], "story") && (t[5] == ' ' || t[5] == '#') {
		rest := strings.TrimLeft(t[5:], " #")
		end := 0
		for end < len(rest) && rest[end] != ' ' && rest[end] != ':' {
			end++
		}
		id := strings.TrimRight(rest[:end], ".-_")
		if storyIsID(id) {
			return id, storyTitleRest(rest[end:])
		}
		return "", t
	}
	id, parts := storyLeadingNumber(t)
	if parts == 0 {
		return "", t
	}
	rest := t[len(id):]
	switch {
	case strings.HasPrefix(rest, ":"), strings.HasPrefix(rest, " - "), strings.HasPrefix(rest, " — "), strings.HasPrefix(rest, " – "):
		return id, storyTitleRest(rest)
	case parts >= 2 && (rest == "" || rest[0] == ' '):
		return id, storyTitleRest(rest)
	}
	return "", t
}

// storyTitleRest drops the separator between a title's id and its text.
func storyTitleRest(s string) string {
	return strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(s), ":-—– "))
}

// storyIsID reports whether s is usable as a story id taken from a title.
func storyIsID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	digit := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '.', c == '-', c == '_':
		default:
			return false
		}
	}
	return digit
}

// fileListLine reads one line of the File List section.
func (s *storyState) fileListLine(lineNo int, line string, blank bool) {
	t := strings.TrimSpace(line)
	if blank || t[0] != '|' {
		s.table = storyTable{}
	}
	if blank {
		return
	}
	var cand string
	if t[0] == '|' {
		cand = s.tableCell(t)
	} else if body, ok := Bullet(t); ok {
		cand = body
	} else {
		return
	}
	p, ok := storyFileListPath(cand)
	if !ok {
		return
	}
	s.addFile(lineNo, p)
}

// tableCell returns the path cell of a table row, or "" for a header or a
// separator row.
func (s *storyState) tableCell(row string) string {
	cells := TableCells(row, MaxTableCells)
	s.table.rows++
	if IsSeparatorRow(cells) {
		return ""
	}
	if s.table.rows == 1 {
		// a header row names the path column: "| File | Action |"
		header := -1
		for i, c := range cells {
			if _, ok := storyFileListPath(c); ok {
				header = -1
				break
			}
			n := strings.ToLower(storyPlain(c))
			if header < 0 && (strings.Contains(n, "file") || strings.Contains(n, "path")) {
				header = i
			}
		}
		if header >= 0 {
			s.table.col = header
			return ""
		}
	}
	if s.table.col < len(cells) {
		return cells[s.table.col]
	}
	return ""
}

// TableCells splits a table row into at most max cells.
func TableCells(row string, max int) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	var cells []string
	for len(cells) < max && row != "" {
		i := strings.IndexByte(row, '|')
		if i < 0 {
			if c := strings.TrimSpace(row); c != "" {
				cells = append(cells, c)
			}
			break
		}
		cells = append(cells, strings.TrimSpace(row[:i]))
		row = row[i+1:]
	}
	return cells
}

// IsSeparatorRow reports whether cells are a table's "|---|:--:|" row.
func IsSeparatorRow(cells []string) bool {
	if len(cells) == 0 {
		return true
	}
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return true
}

// Bullet returns the text of a list item ("- x", "* x", "+ x", "1. x",
// "1) x", with an optional "[ ]" or "[x]" checkbox).
func Bullet(t string) (string, bool) {
	var body string
	switch {
	case len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && (t[1] == ' ' || t[1] == '\t'):
		body = t[2:]
	default:
		i := 0
		for i < len(t) && i < 9 && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		if i == 0 || i+1 >= len(t) || (t[i] != '.' && t[i] != ')') || (t[i+1] != ' ' && t[i+1] != '\t') {
			return "", false
		}
		body = t[i+2:]
	}
	body = strings.TrimSpace(body)
	for _, box := range []string{"[ ]", "[x]", "[X]"} {
		if strings.HasPrefix(body, box) {
			body = strings.TrimSpace(body[len(box):])
			break
		}
	}
	return body, true
}

// addFile keeps a File List path: de-duplicated, in file order, bounded.
func (s *storyState) addFile(lineNo int, p string) {
	clean, ok := storyCleanPath(p)
	if clean == "" {
		return
	}
	if !ok {
		s.unsafe++
		if s.unsafe <= storyMaxPathFindings {
			f := source.ParseFinding(s.path, lineNo, "unsafe-path", "File List path %q is absolute or leaves the repository; ignored", workflow.Truncate(p, 200))
			f.Severity = workflow.Warning
			s.findings = append(s.findings, f)
		}
		return
	}
	if s.fileSeen[clean] {
		return
	}
	if len(s.files) >= storyMaxFileList {
		s.truncated = true
		return
	}
	s.fileSeen[clean] = true
	s.files = append(s.files, clean)
}

// storyCleanPath turns a File List path into a clean repository-relative
// one. Story files write repository paths with a leading "/"
// ("/packages/app/x.ts"): one is dropped, since a File List is
// repository-relative by convention. ok is false for a path that is still
// absolute or leaves the repository; clean is "" for one that names nothing.
func storyCleanPath(p string) (clean string, ok bool) {
	p = strings.ReplaceAll(p, "\\", "/")
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return "", true
	}
	if strings.HasPrefix(p, "/") || (len(p) > 1 && p[1] == ':') {
		return p, false
	}
	c := path.Clean(p)
	switch {
	case c == "." || c == "":
		return "", true
	case c == ".." || strings.HasPrefix(c, "../"):
		return c, false
	}
	return c, true
}

// storyFileListPath extracts the path a File List item names. A
// backtick-quoted path wins ("Extended `src/a.ts` - note"); otherwise the
// link text of a leading markdown link, or the first word, with emphasis
// and trailing punctuation removed. Only things that look like paths (a '/'
// or a file extension) count: not URLs, npm scopes ("@scope/pkg"), globs,
// or words.
func storyFileListPath(item string) (string, bool) {
	if strings.IndexByte(item, '`') >= 0 {
		rest := item
		for {
			i := strings.IndexByte(rest, '`')
			if i < 0 {
				return "", false
			}
			rest = rest[i+1:]
			j := strings.IndexByte(rest, '`')
			if j < 0 {
				return "", false
			}
			span := rest[:j]
			rest = rest[j+1:]
			if p := storyTrimPath(span); storyLooksLikePath(p) {
				return p, true
			}
		}
	}
	t := strings.TrimSpace(item)
	if i := strings.IndexAny(t, " \t"); i >= 0 {
		t = t[:i]
	}
	t = Unemphasize(t)
	if strings.HasPrefix(t, "[") {
		if j := strings.IndexByte(t, ']'); j > 0 {
			t = Unemphasize(t[1:j])
		}
	}
	p := storyTrimPath(storyUnescape(t))
	if !storyLooksLikePath(p) {
		return "", false
	}
	return p, true
}

// Unemphasize removes balanced emphasis around a word: "**a.ts**",
// "__a.ts__", "*a.ts*" (but not the "*" of a glob such as "src/ui/*").
func Unemphasize(t string) string {
	for _, m := range []string{"**", "__", "*", "_"} {
		if len(t) > 2*len(m) && strings.HasPrefix(t, m) && strings.HasSuffix(t, m) {
			return t[len(m) : len(t)-len(m)]
		}
	}
	return t
}

// storyUnescape removes markdown backslash escapes ("my\_file.ts").
func storyUnescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("_*[]()#+-.!`", s[i+1]) >= 0 {
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// storyTrimPath removes quotes, trailing punctuation and unbalanced
// brackets around a path, one character at a time from either end, in
// linear time.
func storyTrimPath(p string) string {
	if len(p) > 2*storyMaxPathLen {
		return "" // far too long for a path
	}
	p = strings.TrimSpace(p)
	opens, closes := strings.Count(p, "("), strings.Count(p, ")")
	for p != "" {
		first, last := p[0], p[len(p)-1]
		switch {
		case strings.IndexByte(" \t\"',;:.!", last) >= 0:
			p = p[:len(p)-1]
		case last == ')' && closes > opens:
			p = p[:len(p)-1]
			closes--
		case first == ' ' || first == '\t' || first == '"' || first == '\'':
			p = p[1:]
		case first == '(' && opens > closes:
			p = p[1:]
			opens--
		default:
			return p
		}
	}
	return p
}

// storyLooksLikePath reports whether p looks like a file path: a '/' or a
// file extension, and none of the things that are not files.
func storyLooksLikePath(p string) bool {
	if p == "" || len(p) > storyMaxPathLen || p[0] == '@' || p[0] == '-' {
		return false
	}
	if strings.Contains(p, "://") || strings.ContainsAny(p, "*?|<>{}\t\n\r\x00") ||
		strings.Contains(p, " /") || strings.Contains(p, "/ ") || strings.HasPrefix(p, "www.") {
		return false
	}
	for _, r := range p {
		if unicode.IsControl(r) {
			return false
		}
	}
	if strings.Contains(p, "/") {
		return strings.Trim(p, "/.") != ""
	}
	return storyHasExt(p)
}

// storyHasExt reports whether the last element of p ends in a file
// extension: a dot, a letter, then up to nine letters or digits.
func storyHasExt(p string) bool {
	base := p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		base = p[i+1:]
	}
	dot := strings.LastIndexByte(base, '.')
	if dot < 0 {
		return false
	}
	ext := base[dot+1:]
	if len(ext) == 0 || len(ext) > 10 {
		return false
	}
	for i := 0; i < len(ext); i++ {
		c := ext[i]
		isLetter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i == 0 && !isLetter {
			return false
		}
		if !isLetter && (c < '0' || c > '9') {
			return false
		}
	}
	return !strings.Contains(base, " ")
}

// StorySource finds stories (DESIGN §3, priorities 4 and 5): every story
// becomes a candidate — an "sdc" one when InProgress, a "qa-review" one when
// InReview, and a not resumable "story" one otherwise (listed by
// status --all). It also fills Repo.Stories for the state-file sources.
type StorySource struct{}

// Kind is workflow.KindStory.
func (StorySource) Kind() string { return workflow.KindStory }

// Priority is workflow.PriorityInProgress, the priority of the most
// specific candidate it yields.
func (StorySource) Priority() int { return workflow.PriorityInProgress }

// Scan parses every story file matched by the configured globs (default
// docs/stories/**/*.md), in path order. Files in a "spec" folder below a
// story folder are spec pipeline artifacts, and files with neither a story
// id nor a status (README.md, index.md) are not stories: both are skipped
// without a finding. The first story with an id wins Repo.Stories[id]; a
// later one gets a "duplicate-story-id" warning and "@<path>" appended to
// its candidate id.
func (StorySource) Scan(r *source.Repo) ([]workflow.Candidate, []workflow.Finding) {
	if r.Stories == nil {
		r.Stories = map[string]*workflow.Story{}
	}
	patterns := r.Config.Sources.Stories
	if len(patterns) == 0 {
		patterns = config.Default().Sources.Stories
	}
	var out []workflow.Candidate
	firstPath := map[string]string{}
	paths := storyGlob(r.Root, patterns)
	parsed, readable := storyReadAll(r, paths)
	for i, p := range paths {
		st := parsed[i]
		if st == nil {
			continue // neither an id nor a status: not a story
		}
		c := storyCandidate(r, st)
		if first, dup := firstPath[st.ID]; dup {
			c.ID += "@" + p
			c.Findings = append(c.Findings, workflow.Finding{
				Check:    workflow.CheckDiscover,
				Severity: workflow.Warning,
				Code:     "duplicate-story-id",
				Message:  fmt.Sprintf("story id %s is used by both %s and %s; the first one is story %s, this one is listed as %s", st.ID, first, p, st.ID, c.ID),
				Path:     p,
			})
		} else {
			firstPath[st.ID] = p
			if readable[i] {
				r.Stories[st.ID] = st
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// storyUnreadable is the story of a file that could not be read: its id
// from the file name, status Unknown, the read finding.
func storyUnreadable(p string, err error) *workflow.Story {
	id := StoryIDFromFileName(p)
	if id == "" {
		id = strings.TrimSuffix(path.Base(p), ".md")
	}
	return &workflow.Story{
		ID:       id,
		Path:     p,
		Status:   workflow.StatusUnknown,
		Findings: []workflow.Finding{source.ReadFinding(p, err)},
	}
}

// storyGlob expands the story globs, skipping files in a "spec" folder
// below the globs' fixed prefix, and returns the paths sorted.
func storyGlob(root string, patterns []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, pat := range patterns {
		clean := strings.Trim(path.Clean("/"+strings.ReplaceAll(pat, "\\", "/")), "/")
		prefix := 0 // segments without wildcards at the start of the pattern
		for _, seg := range strings.Split(clean, "/") {
			if strings.ContainsAny(seg, `*?[\`) {
				break
			}
			prefix++
		}
		for _, e := range pathglob.Expand(root, pat, false) {
			if seen[e.Path] {
				continue
			}
			segs := strings.Split(e.Path, "/")
			skip := false
			for i := prefix; i < len(segs)-1; i++ {
				if segs[i] == "spec" {
					skip = true
					break
				}
			}
			if skip {
				continue
			}
			seen[e.Path] = true
			out = append(out, e.Path)
		}
	}
	sort.Strings(out)
	return out
}

// storyPhaseIDs are the phase ids (or names) that mean implementation and
// review in a story development cycle definition, best first.
var (
	ImplementPhases = []string{"implement", "develop", "development", "implementation", "dev"}
	ReviewPhases    = []string{"review", "qa-gate", "qa-review", "qa gate", "qa"}
)

// PhaseIndex returns the index of the first of ids in def, or -1.
func PhaseIndex(def workflow.Definition, ids []string) int {
	for _, id := range ids {
		if i := def.Index(id); i >= 0 {
			return i
		}
	}
	return -1
}

// storyCandidate is the candidate a story yields (see StorySource).
func storyCandidate(r *source.Repo, st *workflow.Story) workflow.Candidate {
	c := workflow.Candidate{
		Key:         st.ID,
		Workflow:    workflow.DefSDC,
		Stories:     []string{st.ID},
		StoryRefs:   []workflow.StoryRef{{ID: st.ID, Path: st.Path}},
		Status:      string(st.Status),
		StatusRaw:   st.StatusRaw,
		UpdatedAt:   st.ModTime,
		UpdatedFrom: "mtime",
		Findings:    append([]workflow.Finding(nil), st.Findings...),
	}
	def := r.Definition(workflow.DefSDC)
	current := -1
	switch st.Status {
	case workflow.StatusInProgress:
		c.Type, c.ID, c.Resumable = workflow.TypeSDC, "sdc:"+st.ID, true
		c.Source = workflow.SourceRef{Kind: workflow.KindStory, Path: st.Path, Priority: workflow.PriorityInProgress}
		current = PhaseIndex(def, ImplementPhases)
		c.Agent = st.Executor
		c.Position = storyPosition(def, current, "Implementation")
	case workflow.StatusInReview:
		c.Type, c.ID, c.Resumable = workflow.TypeQAReview, "qa-review:"+st.ID, true
		c.Source = workflow.SourceRef{Kind: workflow.KindStory, Path: st.Path, Priority: workflow.PriorityInReview}
		current = PhaseIndex(def, ReviewPhases)
		c.Agent = st.QualityGate
		c.Position = storyPosition(def, current, "Review")
	default:
		c.Type, c.ID = workflow.TypeStory, "story:"+st.ID
		c.Source = workflow.SourceRef{Kind: workflow.KindStory, Path: st.Path, Priority: workflow.PriorityOtherStory}
	}
	phase := ""
	if c.Resumable {
		for i, p := range def.Phases {
			status := workflow.PhasePending
			switch {
			case current >= 0 && i < current:
				status = workflow.PhaseCompleted
			case i == current:
				status = workflow.PhaseCurrent
			}
			c.Phases = append(c.Phases, workflow.Phase{ID: p.ID, Name: p.Name, Agent: p.Agent, Status: status})
		}
		if current >= 0 {
			phase = def.Phases[current].ID
			if c.Agent == "" {
				c.Agent = def.Phases[current].Agent
			}
		}
	}
	implement := "implement"
	if i := PhaseIndex(def, ImplementPhases); i >= 0 {
		implement = def.Phases[i].ID
	}
	c.Files = append(c.Files, workflow.RefFile{Path: st.Path, Phase: phase, Critical: true, From: "story"})
	for _, f := range st.FileList {
		if f == st.Path {
			continue
		}
		c.Files = append(c.Files, workflow.RefFile{Path: f, Phase: implement, Produced: true, From: "file-list"})
	}
	return c
}

// storyPosition is the phase position of index i in def (name when the
// definition has no such phase).
func storyPosition(def workflow.Definition, i int, name string) workflow.Position {
	pos := workflow.Position{Kind: workflow.PosPhase, Total: len(def.Phases), Name: name}
	if i >= 0 && i < len(def.Phases) {
		pos.Index = i + 1
		pos.Name = def.Phases[i].Name
	}
	return pos
}
