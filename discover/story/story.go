// Package story is the story-file format: it parses story markdown (title,
// status, tasks, File List, Change Log, sections and the status table) into
// workflow.Story values, and StorySource turns stories in progress or in
// review into candidates. Adding a framework means adding one format package
// like this one and one line to discover.DefaultSources (see
// docs/ARCHITECTURE.md).
package story

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Bounds of the story parser. Story files are written by agents and people;
// these keep a pathological file from producing a pathological result.
const (
	// storyHeaderLines is how far from the top the Executor, Quality Gate
	// and Epic lines may be (a status is read from the whole file).
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
	// hasSections: the file has a section only stories have (Acceptance
	// Criteria, Tasks, Dev Notes, "Story")
	hasSections bool
}

// YAML front matter states.
const (
	storyFrontNone = iota
	storyFrontIn
	storyFrontDone
)

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
	p := storyParse(path, data, extra, false)
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

	extra           map[string][]string // the configuration's status spellings
	cand            storyStatusCand     // the best status candidate so far
	statusPending   int                 // line of a Status heading whose value is still to come
	ctx             []storyCtx          // the open headings, outermost first
	bodyStarted     bool                // a section other than the status or metadata has begun
	inStatusSection bool                // the innermost heading is a Status heading
	front           int                 // YAML front matter: storyFrontNone, storyFrontIn, storyFrontDone
	depList         *storyDepList       // a "**Dependencies:**" list being read

	open         []storyOpen
	seen         map[string]bool // sections already taken (the first one wins)
	inList       bool            // inside the File List section
	storyHeading bool            // a "Story" or "User Story" heading was seen

	table     storyTable
	cells     [MaxTableCells]string // the table row being read (reused)
	files     []string
	fileSeen  map[string]bool
	unsafe    int
	truncated bool

	hashBuf []byte // the scratch buffer of storySectionHash (reused)
	// owned: text is the caller's file buffer (see storyParse); kept are
	// the sections that are substrings of it, for compact
	owned bool
	kept  []storyKept
}

// storyKept is a section whose Raw is text[start:end].
type storyKept struct {
	key        string
	start, end int
}

// storyTable tracks the table being read in the File List.
type storyTable struct {
	rows int // rows seen in the current table
	col  int // the column holding the path
}

// storyParse is ParseStory, also saying whether an id and a status were found.
// owned says data is the caller's own fresh buffer that nothing writes to
// again (a file just read): the parser then uses it as its text without a
// copy, and the story's sections keep pointing into it.
func storyParse(path string, data []byte, extra map[string][]string, owned bool) storyParsed {
	s := &storyState{
		path:     path,
		extra:    extra,
		st:       &workflow.Story{Path: path, Status: workflow.StatusUnknown, Sections: map[string]workflow.Section{}},
		seen:     map[string]bool{},
		fileSeen: map[string]bool{},
	}
	switch {
	case owned && len(data) > 0 && utf8.Valid(data):
		// no copy of the whole file: data is never written again (see owned)
		s.text = unsafe.String(unsafe.SliceData(data), len(data))
		s.owned = true
		s.kept = make([]storyKept, 0, 8) // at most one per section name
	case utf8.Valid(data):
		s.text = string(data)
	default:
		f := source.ParseFinding(path, tolerant.FirstInvalidLine(data), "invalid-utf8", "not valid UTF-8 text; invalid bytes are ignored")
		f.Severity = workflow.Warning
		s.findings = append(s.findings, f)
		s.text = strings.ToValidUTF8(string(data), "\uFFFD")
	}
	s.walk()
	p := storyParsed{story: s.st, hasStatus: s.cand.found, hasSections: s.storySections()}
	p.hasID = s.finishID()
	s.finishStatus(extra)
	s.finishFiles()
	s.st.Findings = s.findings
	if s.owned {
		s.compact()
	}
	return p
}

// compact moves what the story keeps of an owned file buffer (the sections
// from the first to the last, the short fields, the File List) into one
// string of its own, so that the buffer (headings, the title block, the
// text between sections) is released when the parse ends rather than
// pinned by the story for the whole run. A string it misses keeps pointing
// into the buffer, which only keeps the buffer alive.
func (s *storyState) compact() {
	lo, hi := len(s.text), 0
	for _, k := range s.kept {
		lo, hi = min(lo, k.start), max(hi, k.end)
	}
	if hi <= lo {
		lo, hi = 0, 0
	}
	st := s.st
	fields := [...]*string{&st.ID, &st.Title, &st.StatusRaw, &st.Executor, &st.QualityGate, &st.Epic}
	n := hi - lo
	for _, f := range fields {
		n += len(*f)
	}
	for _, f := range st.FileList {
		n += len(f)
	}
	if n >= len(s.text) {
		return // no smaller than the buffer: keep it
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(s.text[lo:hi])
	for _, f := range fields {
		b.WriteString(*f)
	}
	for _, f := range st.FileList {
		b.WriteString(f)
	}
	all := b.String()
	for _, k := range s.kept {
		sec := st.Sections[k.key]
		sec.Raw = all[k.start-lo : k.end-lo]
		st.Sections[k.key] = sec
	}
	off := hi - lo
	for _, f := range fields {
		*f, off = all[off:off+len(*f)], off+len(*f)
	}
	for i, f := range st.FileList {
		st.FileList[i], off = all[off:off+len(f)], off+len(f)
	}
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
	s.endDepList()
}

// line handles one line: lineNo is 1-based, start and next are the byte
// offsets of the line and of the one after it.
func (s *storyState) line(lineNo int, line string, start, next int) {
	if s.frontMatter(lineNo, line) {
		return
	}
	if s.fenceLine(line) {
		s.endPending() // a Status heading's value is never a code block
		s.endDepList()
		return
	}
	if s.fence != 0 {
		return
	}
	if level, htext, ok := storyHeading(line); ok {
		s.endDepList()
		s.heading(lineNo, level, htext, start, next)
		return
	}
	blank := strings.TrimSpace(line) == ""
	switch {
	case blank:
		if s.depList != nil && len(s.depList.items) > 0 {
			s.endDepList()
		}
	case s.statusPending > 0:
		s.pendingValue(lineNo, line)
	default:
		s.bodyLine(lineNo, line)
	}
	if lineNo <= storyHeaderLines && !blank {
		s.headerField(lineNo, line)
	}
	if s.inList {
		s.fileListLine(lineNo, line, blank)
	}
}

// frontMatter tracks YAML front matter ("---" on the first line up to the
// next "---" or "..."), reading its status; it reports whether line belongs
// to it.
func (s *storyState) frontMatter(lineNo int, line string) bool {
	t := strings.TrimRight(line, " \t")
	switch {
	case lineNo == 1 && t == "---":
		s.front = storyFrontIn
		return true
	case s.front != storyFrontIn:
		return false
	case t == "---" || t == "...":
		s.front = storyFrontDone
		return true
	}
	if t != "" && t[0] != ' ' && t[0] != '\t' && t[0] != '#' {
		s.bodyLine(lineNo, line)
	}
	return true
}

// storySections reports whether the file has a section only stories have
// (a README or an index never counts as a story for it).
func (s *storyState) storySections() bool {
	switch strings.ToLower(strings.TrimSuffix(path.Base(s.path), ".md")) {
	case "readme", "index":
		return false
	}
	return s.seen[workflow.SectionAcceptance] || s.seen[workflow.SectionTasks] ||
		s.seen[workflow.SectionDevNotes] || s.storyHeading
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
	s.endPending() // a Status heading with no value under it
	if level == 1 && !s.titleSeen {
		s.titleSeen = true
		s.titleText = workflow.Truncate(htext, storyMaxFieldLen)
	}
	name := storyHeadingName(htext)
	s.pushHeading(level, name)
	s.statusHeading(lineNo, level, htext, name)
	if name == "story" || name == "user story" {
		s.storyHeading = true
	}
	if key, ok := storySectionNames[name]; ok && !s.seen[key] &&
		!(key == workflow.SectionDependencies && s.inSections(storyNotesSections, true)) {
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
		} else if s.owned {
			s.kept = append(s.kept, storyKept{key: o.key, start: o.start, end: o.start + len(raw)})
		}
		s.st.Sections[o.key] = workflow.Section{Raw: raw, Hash: storySectionHash(raw, &s.hashBuf), Line: o.line}
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
	var buf []byte
	return storySectionHash(raw, &buf)
}

// storySectionHash is StorySectionHash normalising into *scratch, which it
// grows as needed and leaves for the next call: a parser hashes every
// section of a file with one buffer.
func storySectionHash(raw string, scratch *[]byte) string {
	// the normalised text in one buffer, hashed at once: no per-line copies
	buf := (*scratch)[:0]
	if cap(buf) < len(raw) {
		buf = make([]byte, 0, len(raw))
	}
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
				buf = append(buf, '\n')
			}
			buf = append(buf, '\n')
		}
		started = true
		buf = append(buf, line...)
	}
	sum := sha256.Sum256(buf)
	*scratch = buf[:0]
	var hx [2 * sha256.Size]byte
	hex.Encode(hx[:], sum[:])
	return string(hx[:])
}

// storyHeadingName normalises a heading for matching section names:
// emphasis, emoji, a trailing colon and a trailing parenthetical
// ("Acceptance Criteria (MVP Scope)") removed, a leading number ("3. Scope")
// dropped, lower case, single spaces.
func storyHeadingName(htext string) string {
	if len(htext) > 160 {
		return "" // no section name is that long
	}
	// trimmed first, lowered last: the trimming is the same in any case,
	// and lowering last lets a known name come back without a copy
	t := workflow.StripStatus(htext)
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
	return storyLower(t)
}

// storyKnownNames are the lower-case heading names and field keys the
// parser looks for, each mapped to itself: storyLower returns them without
// allocating.
var storyKnownNames = func() map[string]string {
	m := map[string]string{"story": "story", "user story": "user story", "executor": "executor",
		"qualitygate": "qualitygate", "epic": "epic", "status": "status",
		"current": "current", "storystatus": "storystatus"}
	for _, set := range []map[string]bool{storyStatusKeys, storyDependencyKeys, storyHistorySections, storyNotesSections, storyMetaSections} {
		for k := range set {
			m[k] = k
		}
	}
	for k := range storySectionNames {
		m[k] = k
	}
	return m
}()

// storyLower is strings.ToLower(t); a known name (storyKnownNames) in any
// case comes back without allocating.
func storyLower(t string) string {
	if len(t) > 64 {
		return strings.ToLower(t)
	}
	var buf [64]byte
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c >= utf8.RuneSelf {
			return strings.ToLower(t)
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	if k, ok := storyKnownNames[string(buf[:len(t)])]; ok {
		return k
	}
	return strings.ToLower(t)
}

// headerField reads a "**Key:** value" line near the top.
func (s *storyState) headerField(lineNo int, line string) {
	key, val, ok := storyField(line)
	if !ok {
		return
	}
	switch key {
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
// written, trimmed, at most workflow.MaxStatusLen bytes.
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
	key, ok := storyFieldKey(keyRaw)
	if !ok {
		return "", "", false // not a field name
	}
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

// storyFieldKey folds a field name (lower case, accents removed, without
// emphasis, spaces, '-' and '_'); ok is false when it holds anything but
// letters and those. A known key in plain ASCII comes back without
// allocating.
func storyFieldKey(keyRaw string) (string, bool) {
	var buf [64]byte
	n := 0
	for i := 0; i < len(keyRaw); i++ {
		c := keyRaw[i]
		switch {
		case c >= utf8.RuneSelf || n == len(buf):
			return storyFieldKeySlow(keyRaw)
		case c == '*' || c == '_' || c == '`' || c == ' ' || c == '-' || c == '\t':
		case c >= 'a' && c <= 'z':
			buf[n] = c
			n++
		case c >= 'A' && c <= 'Z':
			buf[n] = c + 'a' - 'A'
			n++
		default:
			return "", false
		}
	}
	if k, ok := storyKnownNames[string(buf[:n])]; ok {
		return k, true
	}
	return string(buf[:n]), true
}

// storyFieldKeySlow is storyFieldKey for any text.
func storyFieldKeySlow(keyRaw string) (string, bool) {
	var kb strings.Builder
	for _, r := range strings.ToLower(keyRaw) {
		switch {
		case r == '*' || r == '_' || r == '`' || r == ' ' || r == '-' || r == '\t':
		case unicode.IsLetter(r):
			kb.WriteRune(r)
		default:
			return "", false
		}
	}
	return workflow.FoldStatus(kb.String()), true
}

// storyAgent turns "@dev (Dex)" into "dev".
func storyAgent(v string) string {
	first := strings.TrimLeftFunc(storyPlain(v), unicode.IsSpace) // its first field
	if i := strings.IndexFunc(first, unicode.IsSpace); i >= 0 {
		first = first[:i]
	}
	if first == "" {
		return ""
	}
	a := strings.TrimLeft(first, "@")
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
					parsed := storyParse(p, data, r.Config.Statuses, true) // data is this worker's own
					if !parsed.hasID && !parsed.hasStatus && !parsed.hasSections {
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
	v = workflow.Truncate(v, storyMaxFieldLen)
	if strings.ContainsAny(v, "*_`") {
		v = storyEmphasis.Replace(v)
	}
	return workflow.JoinFields(v)
}

// storyPlainHasPrefixFold reports whether storyPlain(v) starts with prefix
// (lower-case ASCII, single spaces), ignoring case, without building
// storyPlain(v) for the lines that cannot: most body lines.
func storyPlainHasPrefixFold(v, prefix string) bool {
	n := 0 // bytes of prefix matched
	space := false
	for i := 0; i < len(v) && n < len(prefix); i++ {
		c := v[i]
		switch {
		case c >= utf8.RuneSelf:
			return strings.HasPrefix(strings.ToLower(storyPlain(v)), prefix) // Unicode: the general path
		case strings.HasPrefix(v[i:], "**") || strings.HasPrefix(v[i:], "__"):
			i++
			continue
		case c == '`':
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			space = n > 0
			continue
		}
		if space {
			if prefix[n] != ' ' {
				return false
			}
			n++
			space = false
			if n == len(prefix) {
				break
			}
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if prefix[n] != c {
			return false
		}
		n++
	}
	return n == len(prefix) // a trailing space is never matched: storyPlain trims it
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
	base := StoryIDFromBase(s.path)
	if base == "" || base == "." || base == "/" {
		base = "story"
	}
	s.st.ID = base
	s.info(0, "no-story-id", "no story id in the title or the file name; using %q", base)
	return false
}

// finishStatus maps the status text found to a canonical status.
func (s *storyState) finishStatus(extra map[string][]string) {
	if !s.cand.found {
		s.info(0, "no-status", "no Status line or Status heading; the status is Unknown")
		return
	}
	s.st.StatusLine = s.cand.line
	s.st.StatusRaw = s.cand.raw
	if s.cand.raw == "" {
		s.info(s.cand.line, "no-status", "the status is empty; the status is Unknown")
		return
	}
	st, _ := workflow.CanonicalStatus(s.cand.raw, extra)
	s.st.Status = st
	if st == workflow.StatusUnknown {
		s.info(s.cand.line, "unknown-status", "status %q is not a known spelling; the status is Unknown (add it under statuses: in the configuration)", s.cand.raw)
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

// storyPhaseIDs are the phase ids (or names) that mean implementation and
// review in a story development cycle definition, best first.
var (
	ImplementPhases = []string{"implement", "develop", "development", "implementation", "dev"}
	ReviewPhases    = []string{"review", "qa-gate", "qa-review", "qa gate", "qa"}
)
