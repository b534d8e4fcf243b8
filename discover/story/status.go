package story

import (
	"strings"
	"unicode/utf8"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// The status grammar. A story file says its own status in one of a few
// places, and may mention other statuses elsewhere (sub-stories in nested
// lists, the Dev Agent Record, QA Results, the Change Log). The whole file
// is read; every place a status can be written is a candidate with a rank,
// and the first candidate of the best rank wins:
//
//   - rank storyRankOwn: a Status heading of any level ("## Status",
//     "### Story Status", "## 📋 STORY STATUS ✅ COMPLETE", "## Status:
//     Done"), YAML front matter "status:", and a status field ("**Status:**
//     X", "**Status**: X", "Status: X", "- Status: X", "> ... | **Status:**
//     X", a "| Status | X |" row) above the first section, in a Status
//     section or in a metadata section;
//   - rank storyRankBody: a status field at the top level of any other
//     section.
//
// Never candidates: anything inside a code fence, an indented line (a list
// about other stories), a section about the story's history or its review
// (storyHistorySections) and what is nested in one. A candidate with an
// empty value yields to any later candidate.
//
// One exception, used only when the story has no status of its own (no
// candidate, or an empty one): the status the dev agent wrote in the Dev
// Agent Record — a "### Status" heading with its value, or a "**Status**:
// X" field, at the top level of the record or of one of its sub-sections
// other than a review or a change log (storyRecordExcluded). Some BMAD v4
// stories carry their status only there ("Ready for Review" at the end of
// the record). It must read as a known status, and the last one written
// wins (the record grows at its end); the story's own status always wins
// over it.
const (
	storyRankOwn = iota + 1
	storyRankBody
	storyRankRecord
)

// storyRecordSection is the normalised name of the Dev Agent Record.
const storyRecordSection = "dev agent record"

// storyRecordExcluded are the history sections whose status words never
// count, even inside the Dev Agent Record: they are about a review or the
// story's history, not where the story stands.
var storyRecordExcluded = map[string]bool{
	"qa results": true, "qa result": true, "qa review": true, "change log": true, "changelog": true,
	"revision history": true, "history": true, "review notes": true, "qa notes": true,
}

// storyStatusKeys are the folded field keys that name a story's status, in
// English, French, Spanish, Portuguese and German.
var storyStatusKeys = map[string]bool{
	"status": true, "storystatus": true, "currentstatus": true,
	"statut": true, "statutdelastory": true, "estado": true, "estatus": true,
	"situacao": true, "zustand": true,
}

// storyDependencyKeys are the folded field keys that introduce a story's
// dependencies.
var storyDependencyKeys = map[string]bool{
	"dependencies": true, "dependency": true, "dependson": true, "prerequisites": true,
	"dependances": true, "dependencias": true, "abhangigkeiten": true,
}

// storyHistorySections are the sections (normalised heading names) whose
// content is about the story's history or review, not its status: status
// words in them, or in sections nested in them, never count.
var storyHistorySections = map[string]bool{
	"dev agent record": true, "qa results": true, "qa result": true, "qa review": true,
	"change log": true, "changelog": true, "revision history": true, "history": true,
	"completion notes": true, "completion notes list": true, "debug log references": true,
	"review notes": true, "qa notes": true,
}

// storyNotesSections are the sections whose sub-sections describe
// implementation detail: a "Dependencies" sub-section there lists modules
// and libraries, not the stories this one depends on.
var storyNotesSections = map[string]bool{
	"dev notes": true, "tasks / subtasks": true, "tasks/subtasks": true, "tasks and subtasks": true,
	"tasks & subtasks": true, "tasks": true, "testing": true, "technical notes": true,
	"technical details": true, "implementation notes": true, "dev technical guidance": true,
	"technical context": true, "architecture": true,
}

// storyMetaSections are sections holding the story's metadata: their fields
// rank like fields above the first section.
var storyMetaSections = map[string]bool{
	"metadata": true, "story metadata": true, "story information": true, "story info": true,
	"story details": true, "details": true, "overview": true, "story overview": true,
}

// storyCtx is one open heading: its level and the sets its normalised
// name is in (found once, at the heading).
type storyCtx struct {
	level int
	sets  *storyName
}

// storyNoName is the sets of a name in none.
var storyNoName = &storyName{}

// storyStatusCand is the best status candidate so far.
type storyStatusCand struct {
	found   bool
	rank    int
	line    int
	raw     string
	pending bool // a Status heading whose value is on a later line
}

// pushHeading updates the open-heading stack for a heading; sets is its
// name's entry in storyKnownNames (nil: none).
func (s *storyState) pushHeading(level int, sets *storyName) {
	for len(s.ctx) > 0 && s.ctx[len(s.ctx)-1].level >= level {
		s.ctx = s.ctx[:len(s.ctx)-1]
	}
	if sets == nil {
		sets = storyNoName
	}
	s.ctx = append(s.ctx, storyCtx{level: level, sets: sets})
}

// inHistory reports whether one of the enclosing headings is in
// storyHistorySections; asked of every body line.
func (s *storyState) inHistory() bool {
	for _, c := range s.ctx {
		if c.sets.history {
			return true
		}
	}
	return false
}

// inNotesAbove reports whether one of the enclosing headings but the
// innermost is in storyNotesSections.
func (s *storyState) inNotesAbove() bool {
	for i := 0; i < len(s.ctx)-1; i++ {
		if s.ctx[i].sets.notes {
			return true
		}
	}
	return false
}

// fieldRank is the rank of a status field on the current line.
func (s *storyState) fieldRank() int {
	if !s.bodyStarted || s.inStatusSection {
		return storyRankOwn
	}
	if len(s.ctx) > 0 && s.ctx[len(s.ctx)-1].sets.meta {
		return storyRankOwn
	}
	return storyRankBody
}

// canOffer reports whether a candidate of rank would replace the current
// one.
func (s *storyState) canOffer(rank int) bool {
	c := s.cand
	return !c.found || (!c.pending && c.raw == "") || rank < c.rank
}

// offerStatus proposes a status value written on line.
func (s *storyState) offerStatus(rank, line int, raw string) {
	if !s.canOffer(rank) {
		return
	}
	s.cand = storyStatusCand{found: true, rank: rank, line: line, raw: workflow.Truncate(strings.TrimSpace(raw), workflow.MaxStatusLen)}
	s.statusPending = 0
}

// offerPending proposes a Status heading on line whose value comes on the
// next non-blank line.
func (s *storyState) offerPending(rank, line int) {
	if !s.canOffer(rank) {
		return
	}
	s.cand = storyStatusCand{found: true, rank: rank, line: line, pending: true}
	s.statusPending = line
}

// endPending ends a pending Status heading without a value.
func (s *storyState) endPending() {
	s.recordPending = 0
	if s.statusPending > 0 {
		s.cand.pending = false
		s.statusPending = 0
	}
}

// pendingValue takes line as the value of a pending Status heading: the
// value of a status field on it ("**Status:** Done" under "## Status"), or
// the whole line.
func (s *storyState) pendingValue(lineNo int, line string) {
	val := strings.TrimSpace(line)
	if key, v, ok := storyField(line); ok && storyStatusKeys[key] {
		val = v
	}
	s.cand.raw = workflow.Truncate(val, workflow.MaxStatusLen)
	s.cand.line = lineNo
	s.cand.pending = false
	s.statusPending = 0
}

// statusHeading looks at a heading (after pushHeading) for the story's
// status; sets, val and ok are its headingInfo.
func (s *storyState) statusHeading(lineNo, level int, val string, ok bool, sets *storyName) {
	s.inStatusSection = ok
	if !ok {
		if level >= 2 && (sets == nil || !sets.meta) {
			s.bodyStarted = true
		}
		return
	}
	if s.inHistory() {
		if s.inRecord() {
			s.offerRecord(lineNo, val, true)
		}
		return
	}
	if val == "" {
		s.offerPending(storyRankOwn, lineNo)
		return
	}
	s.offerStatus(storyRankOwn, lineNo, val)
}

// inRecord reports whether the current line is inside the Dev Agent Record
// and not inside a review or change log (storyRecordExcluded) around or
// within it.
func (s *storyState) inRecord() bool {
	rec := false
	for _, c := range s.ctx {
		switch {
		case c.sets.record:
			rec = true
		case c.sets.recordExcluded:
			return false
		}
	}
	return rec
}

// offerRecord proposes a status written in the Dev Agent Record on line
// (see storyRankRecord): a later one replaces an earlier one. An empty
// value of a Status heading (heading) is on the next non-blank line.
func (s *storyState) offerRecord(line int, raw string, heading bool) {
	raw = workflow.Truncate(strings.TrimSpace(raw), workflow.MaxStatusLen)
	if raw == "" {
		if heading {
			s.recordPending = line
		}
		return
	}
	if st, _ := workflow.CanonicalStatus(raw, s.extra); st == workflow.StatusUnknown {
		return // not a status: a log line that happens to say "Status:"
	}
	s.record = storyStatusCand{found: true, rank: storyRankRecord, line: line, raw: raw}
}

// recordValue takes line as the value of a pending Status heading of the
// Dev Agent Record.
func (s *storyState) recordValue(lineNo int, line string) {
	s.recordPending = 0
	val := strings.TrimSpace(line)
	if key, v, ok := storyField(line); ok && storyStatusKeys[key] {
		val = v
	}
	s.offerRecord(lineNo, val, false)
}

// recordLine looks at a body line of the Dev Agent Record for a status
// field ("**Status**: Ready for Review", "| Status | Done |"); indented
// lines never count.
func (s *storyState) recordLine(lineNo int, line string) {
	if line != "" && (line[0] == '\t' || strings.HasPrefix(line, "  ")) {
		return
	}
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "|") {
		cells := appendTableCells(s.cells[:0], t, 3)
		if len(cells) >= 2 && storyStatusKeys[storyFoldKey(cells[0])] {
			s.offerRecord(lineNo, cells[1], false)
		}
		return
	}
	if key, val, ok := storyField(t); ok && storyStatusKeys[key] {
		s.offerRecord(lineNo, val, false)
	}
}

// useRecord makes the Dev Agent Record's status the story's when the story
// has none of its own (no candidate, or an empty one).
func (s *storyState) useRecord() {
	if !s.record.found || (s.cand.found && (s.cand.pending || s.cand.raw != "")) {
		return
	}
	s.cand = s.record
	s.info(s.record.line, "status-from-dev-agent-record", "the story has no status of its own; using %q from its Dev Agent Record", s.record.raw)
}

// storyStatusHeading reads a heading that names the story's status:
// "Status", "Story Status", "**Status:**", "Statut", "📋 STORY STATUS ✅
// COMPLETE", "Status: Done". It returns the value the heading line carries
// ("" when it is on the next line). A key followed by words without a colon
// ("Status Report") makes a status heading only when those words are a
// known status.
func storyStatusHeading(htext string, extra map[string][]string) (string, bool) {
	if len(htext) > 2*workflow.MaxStatusLen {
		return "", false
	}
	var spans [16][2]int // most headings: no allocation
	words := storyWordSpans(spans[:0], htext)
	i := 0
	for i < len(words) && workflow.StripStatus(htext[words[i][0]:words[i][1]]) == "" {
		i++ // decoration: "📋"
	}
	if i == len(words) {
		return "", false
	}
	key := func(j int) (string, bool) {
		// folding keeps ':' and makes none: the colon is looked at first
		w := workflow.StripStatus(htext[words[j][0]:words[j][1]])
		colon := strings.HasSuffix(w, ":")
		return storyFoldKnown(strings.TrimRight(w, ":")), colon
	}
	k, colon := key(i)
	if (k == "story" || k == "current") && !colon && i+1 < len(words) {
		if k2, c2 := key(i + 1); storyStatusKeys[k2] {
			k, colon = k2, c2
			i++
		}
	}
	if !storyStatusKeys[k] && k != "storystatus" {
		return "", false
	}
	rest := strings.TrimLeft(htext[words[i][1]:], " \t*_")
	if strings.HasPrefix(rest, ":") {
		colon = true
		rest = rest[1:]
	}
	rest = strings.TrimSpace(strings.TrimLeft(rest, " \t*_:"))
	for _, sep := range []string{"- ", "— ", "– "} {
		if strings.HasPrefix(rest, sep) {
			rest = strings.TrimSpace(rest[len(sep):])
			colon = true
		}
	}
	if workflow.StripStatus(rest) == "" {
		return "", true
	}
	if !colon {
		if st, _ := workflow.CanonicalStatus(rest, extra); st == workflow.StatusUnknown {
			return "", false
		}
	}
	return rest, true
}

// storyNeverStatusHeading reports, for most headings ("Acceptance
// Criteria", "Scope", "Change Log") without looking at their words, that
// storyStatusHeading would refuse them: the heading is ASCII and its first
// two characters that StripStatus keeps in a word ('*', '`', '~', '_', '^',
// control characters and a leading "-+>#" are dropped; skipping them
// anywhere only keeps more headings) do not start a status key, "story" or
// "current" (st, cu, es, si, zu). A heading that is not ASCII is left to
// storyStatusHeading (FuzzStoryNeverStatusHeading).
func storyNeverStatusHeading(htext string) bool {
	var first [2]byte
	n := 0
	for i := 0; i < len(htext); i++ {
		c := htext[i]
		if c >= utf8.RuneSelf {
			return false
		}
		if n == len(first) {
			continue
		}
		switch c {
		case ' ', '\t', '*', '`', '~', '_', '^', '-', '+', '>', '#', 0x7f:
			continue
		}
		if c < 0x20 {
			continue
		}
		first[n] = c | 0x20 // lower case for letters; no other byte becomes a letter
		n++
	}
	switch string(first[:n]) {
	case "st", "cu", "es", "si", "zu":
		return false
	}
	return true
}

// storyNoKey is what storyFoldKnown returns for a word that is no known
// name: it equals no key.
const storyNoKey = "\x00"

// storyFoldKnown is workflow.FoldStatus(w) when that is a known name
// (storyKnownNames) or w is not ASCII, and storyNoKey otherwise: an ASCII
// word is only compared with known names, and comes back without
// allocating.
func storyFoldKnown(w string) string {
	k, known, ascii := storyKnownASCII(w)
	switch {
	case !ascii:
		return workflow.FoldStatus(w)
	case known:
		return k
	}
	return storyNoKey
}

// storyWordSpans appends the byte spans of the space-separated words of s
// to out.
func storyWordSpans(out [][2]int, s string) [][2]int {
	start := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' || s[i] == '\t' {
			if start >= 0 {
				out = append(out, [2]int{start, i})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return out
}

// bodyLine looks at a line outside headings and fences for the story's
// status and dependencies. indented lines (nested lists) and lines inside
// history sections never count.
func (s *storyState) bodyLine(lineNo int, line string) {
	if s.inHistory() {
		if s.inRecord() {
			s.recordLine(lineNo, line)
		}
		return
	}
	if line != "" && (line[0] == '\t' || strings.HasPrefix(line, "  ")) {
		s.depListLine(lineNo, line, true)
		return
	}
	t := strings.TrimSpace(line)
	if s.front == storyFrontIn {
		if key, val, ok := storyField(t); ok && storyStatusKeys[key] {
			s.offerStatus(storyRankOwn, lineNo, strings.Trim(val, `"'`))
		}
		return
	}
	if strings.HasPrefix(t, "|") {
		cells := appendTableCells(s.cells[:0], t, 3)
		if len(cells) >= 2 && storyStatusKeys[storyFoldKey(cells[0])] && strings.Trim(cells[1], "-: ") != "" {
			s.offerStatus(s.fieldRank(), lineNo, cells[1])
		}
		s.depListLine(lineNo, line, false)
		return
	}
	// the line, or its first MaxTableCells pieces between '|'s, as fields;
	// a field needs a ':' (most lines have none)
	bar := strings.IndexByte(t, '|') >= 0
	if !bar && strings.IndexByte(t, ':') >= 0 {
		key, val, ok := s.lineField(lineNo, t)
		s.fieldApply(lineNo, key, val, ok)
	} else if bar && strings.IndexByte(t, ':') >= 0 {
		rest := t
		for n := 0; n < MaxTableCells; n++ {
			p := rest
			i := -1
			if bar {
				i = strings.IndexByte(rest, '|')
			}
			if i >= 0 {
				p, rest = rest[:i], rest[i+1:]
			}
			key, val, ok := storyField(p)
			s.fieldApply(lineNo, key, val, ok)
			if i < 0 {
				break
			}
		}
	}
	if !bar && storyPlainHasPrefixFold(t, "depends on ") {
		plain := storyPlain(t)
		if len(plain) > 11 && strings.EqualFold(plain[:11], "depends on ") {
			s.dependencyField(lineNo, plain[11:])
			return
		}
	}
	s.depListLine(lineNo, line, false)
}

// fieldApply takes what storyField gave for a piece of a body line (the
// line, or a piece between '|'s): a status or a dependencies field.
func (s *storyState) fieldApply(lineNo int, key, val string, ok bool) {
	if !ok || key == storyNoKey {
		return
	}
	switch {
	case storyStatusKeys[key]:
		s.offerStatus(s.fieldRank(), lineNo, val)
	case storyDependencyKeys[key]:
		s.dependencyField(lineNo, val)
	}
}

// storyFoldKey folds a table cell or a field name the way storyField folds
// keys: lower case, accents removed, without emphasis, spaces, '-', '_' and
// a trailing colon.
func storyFoldKey(k string) string {
	if len(k) > 64 {
		return ""
	}
	var b strings.Builder
	for _, r := range workflow.FoldStatus(k) {
		switch r {
		case '*', '_', '`', ' ', '-', '\t', ':':
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// dependencyField takes the story's own "**Dependencies:** Story 2.3" line
// as its Dependencies section, unless the story has one already. An empty
// value introduces a list: the list items that follow are the section.
func (s *storyState) dependencyField(lineNo int, val string) {
	if s.seen.has(workflow.SectionDependencies) {
		return
	}
	s.seen.add(workflow.SectionDependencies)
	v := storyPlain(val)
	if v == "" {
		s.depList = &storyDepList{line: lineNo}
		return
	}
	s.setDependencies(lineNo, v)
}

// storyDepList collects the list under a "**Dependencies:**" line.
type storyDepList struct {
	line  int
	items []string
}

// depListLine adds a list item to the pending Dependencies list, or ends it.
func (s *storyState) depListLine(lineNo int, line string, indented bool) {
	d := s.depList
	if d == nil || lineNo == d.line {
		return
	}
	if body, ok := Bullet(strings.TrimSpace(line)); ok && len(d.items) < 100 {
		d.items = append(d.items, "- "+storyPlain(body))
		return
	}
	if indented && len(d.items) > 0 {
		return // a continuation of the last item
	}
	s.endDepList()
}

// endDepList stores the pending Dependencies list.
func (s *storyState) endDepList() {
	d := s.depList
	if d == nil {
		return
	}
	s.depList = nil
	if len(d.items) > 0 {
		s.setDependencies(d.line, strings.Join(d.items, "\n"))
	}
}

// setDependencies stores raw as the Dependencies section found on line.
func (s *storyState) setDependencies(line int, raw string) {
	s.secs.Set(workflow.Section{Name: workflow.SectionDependencies, Raw: raw, Hash: storySectionHash(raw, &s.hashBuf), Line: line})
}
