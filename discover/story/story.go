// Package story is the story-file format: it parses story markdown (title,
// status, tasks, File List, Change Log, sections and the status table) into
// workflow.Story values, and StorySource turns stories in progress or in
// review into candidates. Adding a framework means adding one format package
// like this one and one line to discover.DefaultSources (see
// docs/ARCHITECTURE.md).
package story

import (
	"path"
	"reflect"
	"strings"
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
//     or a higher level): see the workflow.Section* constants; the story
//     lists them sorted by name. Hash is the sha256 (32 bytes, held in the
//     section) of the text with trailing whitespace trimmed from each line
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

	extra map[string][]string // the configuration's status spellings
	cand  storyStatusCand     // the best status candidate so far
	// candCanonStatus is CanonicalStatus of candCanonRaw, when candCanon
	// (see candStatus)
	candCanon       bool
	candCanonRaw    string
	candCanonStatus workflow.Status
	statusPending   int             // line of a Status heading whose value is still to come
	record          storyStatusCand // the Dev Agent Record's status (storyRankRecord)
	recordPending   int             // line of a Dev Agent Record Status heading whose value is still to come
	ctx             []storyCtx      // the open headings, outermost first
	bodyStarted     bool            // a section other than the status or metadata has begun
	inStatusSection bool            // the innermost heading is a Status heading
	front           int             // YAML front matter: storyFrontNone, storyFrontIn, storyFrontDone
	depList         *storyDepList   // a "**Dependencies:**" list being read

	open         []storyOpen
	seen         storySeen // sections already taken (the first one wins)
	inList       bool      // inside the File List section
	storyHeading bool      // a "Story" or "User Story" heading was seen

	// fieldKey, fieldVal, fieldOK are storyField of line fieldLineNo (see
	// lineField)
	fieldLineNo        int
	fieldKey, fieldVal string
	fieldOK            bool

	table     storyTable
	cells     [MaxTableCells]string // the table row being read (reused)
	files     []string
	fileSeen  map[string]bool
	unsafe    int
	truncated bool

	hashBuf []byte // the scratch buffer of storySectionHash (reused)
	// secs are the sections found so far, sorted by name, in secBuf (there
	// are fewer canonical names than its length); the story gets an
	// exactly sized copy
	secs   workflow.Sections
	secBuf [8]workflow.Section
	// scan: a scan's story (see storyParse); trimmedEarly: a section
	// storyTrimSections would drop was never set (see closeSections)
	scan         bool
	trimmedEarly bool

	// canon remembers CanonicalStatus of the status values seen with the
	// spellings canonFor (the same few in most stories), across the files
	// a reused state parses
	canon    map[string]workflow.Status
	canonFor map[string][]string
	// heads remembers, for the headings of level 2 and deeper seen first
	// (the same few in most stories: "Story", "Acceptance Criteria", ...),
	// storyHeadingName of each and that it is no status heading with the
	// spellings headsFor, across the files a reused state parses
	heads    map[string]*storyName
	headsFor map[string][]string
	// views is compact's scratch list (reused)
	views []*string
}

// storyTable tracks the table being read in the File List.
type storyTable struct {
	rows int // rows seen in the current table
	col  int // the column holding the path
}

// storyParse is ParseStory, also saying whether an id and a status were found.
// scan says the story is a scan's, kept for the whole run, and data is a
// buffer nobody writes to during the parse (a file just read, into a
// worker's reused buffer): the parser then uses it as its text without a
// copy, and the story keeps the text of only the sections read after a
// scan (storyScanRaw; the others have an empty Raw, with the same Hash and
// Line), copied out of the buffer by compact, so that the buffer can take
// the next file and 20,000 stories do not keep 20,000 files.
func storyParse(path string, data []byte, extra map[string][]string, scan bool) storyParsed {
	return new(storyState).parse(path, data, extra, scan)
}

// storyReuseMax bounds what a reused storyState keeps of one parse for the
// next (map entries, slice elements; hash scratch bytes times 1024): a
// file with a huge File List must not make every later reset slow or keep
// its buffers for the whole scan.
const storyReuseMax = 64

// parse is storyParse with s as the parser's state: a scan's worker parses
// every file with one state, which reset empties, so the state and its
// buffers (the seen maps, the open sections, the hash scratch) are
// allocated once per worker rather than once per file. Nothing of s's own
// outlives the parse: the story gets fresh findings, File List and sections.
func (s *storyState) parse(path string, data []byte, extra map[string][]string, scan bool) storyParsed {
	s.reset(path, extra, scan)
	switch {
	case scan && len(data) > 0 && utf8.Valid(data):
		// no copy of the whole file: compact copies out what the story keeps (see scan)
		s.text = unsafe.String(unsafe.SliceData(data), len(data))
	case utf8.Valid(data):
		s.text = string(data)
	default:
		f := source.ParseFinding(path, tolerant.FirstInvalidLine(data), "invalid-utf8", "not valid UTF-8 text; invalid bytes are ignored")
		f.Severity = workflow.Warning
		s.findings = append(s.findings, f)
		s.text = strings.ToValidUTF8(string(data), "\uFFFD")
	}
	s.walk()
	s.useRecord()
	p := storyParsed{story: s.st, hasStatus: s.cand.found, hasSections: s.storySections()}
	p.hasID = s.finishID()
	s.finishStatus()
	if s.scan {
		s.st.SectionsTrimmed = storyTrimSections(s.st, &s.secs) || s.trimmedEarly
	}
	if len(s.secs) > 0 {
		s.st.Sections = append(make(workflow.Sections, 0, len(s.secs)), s.secs...)
	}
	s.finishFiles()
	s.st.Findings = s.findings
	if s.scan {
		s.compact()
	}
	return p
}

// reset empties s for a parse of path, keeping its reusable buffers when
// they are small (storyReuseMax).
func (s *storyState) reset(path string, extra map[string][]string, scan bool) {
	*s = storyState{
		path:     path,
		scan:     scan,
		extra:    extra,
		st:       &workflow.Story{Path: path, Status: workflow.StatusUnknown},
		fileSeen: reuseMap(s.fileSeen),
		ctx:      reuseSlice(s.ctx),
		open:     reuseSlice(s.open),
		hashBuf:  s.hashBuf[:0],
		canon:    s.canon,
		canonFor: s.canonFor,
		heads:    s.heads,
		headsFor: s.headsFor,
		views:    s.views,
	}
	if cap(s.hashBuf) > storyReuseMax<<10 {
		s.hashBuf = nil
	}
	s.secs = s.secBuf[:0]
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
	case s.recordPending > 0:
		s.recordValue(lineNo, line)
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
	if lineNo != 1 && s.front != storyFrontIn {
		return false // past it, or there is none: most lines, no trim
	}
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
	return s.seen.has(workflow.SectionAcceptance) || s.seen.has(workflow.SectionTasks) ||
		s.seen.has(workflow.SectionDevNotes) || s.storyHeading
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
	sets, val, isStatus := s.headingInfo(level, htext)
	s.pushHeading(level, sets)
	s.statusHeading(lineNo, level, val, isStatus, sets)
	if sets != nil && (sets.name == "story" || sets.name == "user story") {
		s.storyHeading = true
	}
	if sets != nil && sets.section != "" && !s.seen.has(sets.section) &&
		!(sets.section == workflow.SectionDependencies && s.inNotesAbove()) {
		key := sets.section
		s.seen.add(key)
		s.open = append(s.open, storyOpen{key: key, level: level, line: lineNo, start: next})
		if key == workflow.SectionFileList {
			s.inList = true
			s.table = storyTable{}
		}
	}
}

// storyHeadsMax bounds the headings a state remembers (headingInfo): the
// first ones seen are kept, the later ones computed each time.
const storyHeadsMax = 256

// storyHeadMemoLen bounds the length of a heading headingInfo remembers.
const storyHeadMemoLen = 64

// headingInfo is storyHeadingName(htext) and storyStatusHeading(htext,
// s.extra) (val, isStatus) of a heading of level, remembered in s.heads
// for a heading of level 2 or deeper that is no status heading (a title is
// each file's own: never remembered; a status heading's value is a view
// into htext: computed each time).
func (s *storyState) headingInfo(level int, htext string) (sets *storyName, val string, isStatus bool) {
	memo := level >= 2 && len(htext) <= storyHeadMemoLen
	if memo && s.heads != nil && sameMap(s.headsFor, s.extra) {
		if n, ok := s.heads[htext]; ok {
			return n, "", false
		}
	}
	sets = storyHeadingName(htext)
	if !storyNeverStatusHeading(htext) {
		val, isStatus = storyStatusHeading(htext, s.extra)
	}
	if memo && !isStatus {
		if s.heads == nil || !sameMap(s.headsFor, s.extra) {
			s.heads, s.headsFor = make(map[string]*storyName), s.extra
		}
		if len(s.heads) < storyHeadsMax {
			s.heads[strings.Clone(htext)] = sets // htext may point into the file's buffer
		}
	}
	return sets, val, isStatus
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
		sec := workflow.Section{Name: o.key, Line: o.line}
		set := true
		hashOnly := s.scan && !storyScanRaw[o.key] // a scan keeps only its hash
		switch {
		case hashOnly && s.settledNotInFlight():
			// storyTrimSections would drop it at the end: neither hashed
			// nor set, and trimmedEarly says the story lost one
			s.trimmedEarly, set = true, false
		case hashOnly:
			// the hash alone; it trims every line's trailing "\r" as it
			// would after the CRLF replacement below
			sec.Hash = storySectionHash(raw, &s.hashBuf)
		case strings.Contains(raw, "\r"):
			raw = strings.ReplaceAll(raw, "\r\n", "\n")
			sec.Raw, sec.Hash = raw, storySectionHash(raw, &s.hashBuf)
		default:
			sec.Raw, sec.Hash = raw, storySectionHash(raw, &s.hashBuf)
		}
		if set {
			s.secs.Set(sec)
		}
		if o.key == workflow.SectionFileList {
			s.inList = false
		}
	}
	s.open = kept
}

// settledNotInFlight reports whether the story's status is settled (a
// candidate of the best rank with a value: no later line can replace it,
// and the Dev Agent Record's is then never used) and is not a status in
// flight: storyTrimSections will drop the sections kept only for their
// hash, so a scan need not compute it.
func (s *storyState) settledNotInFlight() bool {
	c := &s.cand
	if !c.found || c.pending || c.raw == "" || c.rank != storyRankOwn {
		return false
	}
	st := s.candStatus()
	return st != workflow.StatusInProgress && st != workflow.StatusInReview
}

// candStatus is CanonicalStatus of the status candidate's value, computed
// once per value.
func (s *storyState) candStatus() workflow.Status {
	if !s.candCanon || s.candCanonRaw != s.cand.raw {
		s.candCanonStatus = s.canonical(s.cand.raw)
		s.candCanon, s.candCanonRaw = true, s.cand.raw
	}
	return s.candCanonStatus
}

// storyCanonMax bounds the status values a state remembers.
const storyCanonMax = 64

// canonical is workflow.CanonicalStatus(raw, s.extra), remembered for the
// next files (copied: raw may point into the file's buffer).
func (s *storyState) canonical(raw string) workflow.Status {
	if s.canon == nil || !sameMap(s.canonFor, s.extra) || len(s.canon) >= storyCanonMax {
		s.canon, s.canonFor = make(map[string]workflow.Status), s.extra
	}
	if st, ok := s.canon[raw]; ok {
		return st
	}
	st, _ := workflow.CanonicalStatus(raw, s.extra)
	s.canon[strings.Clone(raw)] = st
	return st
}

// sameMap reports whether a and b are the same map (not merely equal).
func sameMap(a, b map[string][]string) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
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
func (s *storyState) finishStatus() {
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
	st := s.candStatus()
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
