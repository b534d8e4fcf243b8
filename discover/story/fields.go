// Headings, fields, section hashes and the parallel read of story files:
// the line-level helpers of the story parser (story.go).

package story

import (
	"crypto/sha256"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// StorySectionHash is the content hash of a story section: the sha256 of its
// text with trailing whitespace trimmed from every line and leading and
// trailing blank lines removed, so that re-saving a file (line endings,
// trailing spaces, blank lines around the section) is not a change.
func StorySectionHash(raw string) workflow.SectionHash {
	var buf []byte
	return storySectionHash(raw, &buf)
}

// storySectionHash is StorySectionHash normalising into *scratch, which it
// grows as needed and leaves for the next call: a parser hashes every
// section of a file with one buffer.
func storySectionHash(raw string, scratch *[]byte) workflow.SectionHash {
	if storySectionNormal(raw) {
		// normalising changes nothing: the text itself, not a copy
		return sha256.Sum256(unsafe.Slice(unsafe.StringData(raw), len(raw)))
	}
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
	*scratch = buf[:0]
	return sha256.Sum256(buf)
}

// storySectionNormal reports whether raw is its own normalisation for
// storySectionHash: not empty, no blank first or last line, no trailing
// white space on any line (blank lines inside are kept as they are).
func storySectionNormal(raw string) bool {
	if raw == "" || raw[0] == '\n' || raw[len(raw)-1] == '\n' {
		return false
	}
	for off := 0; ; {
		end := strings.IndexByte(raw[off:], '\n')
		if end < 0 {
			end = len(raw)
		} else {
			end += off
		}
		if end > off { // a line's last rune must not be white space
			c := raw[end-1]
			if c < utf8.RuneSelf {
				if c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' {
					return false
				}
			} else if r, _ := utf8.DecodeLastRuneInString(raw[off:end]); unicode.IsSpace(r) {
				return false
			}
		}
		if end == len(raw) {
			return true
		}
		off = end + 1
	}
}

// storyHeadingName normalises a heading for matching section names:
// emphasis, emoji, a trailing colon and a trailing parenthetical
// ("Acceptance Criteria (MVP Scope)") removed, a leading number ("3. Scope")
// dropped, lower case, single spaces — and returns its entry in
// storyKnownNames (nil: none), all the parser wants of the name: a name
// that is no known one is never built.
func storyHeadingName(htext string) *storyName {
	if len(htext) > 160 {
		return nil // no section name is that long
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
	if n, ascii := storyKnownNameASCII(t); ascii {
		return n
	}
	return storyKnownNames[strings.ToLower(t)] // "K" (the Kelvin sign) lowers to an ASCII "k"
}

// storyName is a name the parser looks for (a heading name or a field
// key, lower case) and the sets it is in, found with one look-up.
type storyName struct {
	name    string
	section string // its canonical section (storySectionNames), "" for none
	// in storyHistorySections, storyNotesSections, storyMetaSections,
	// storyRecordExcluded; record: it is storyRecordSection
	history, notes, meta, recordExcluded, record bool
}

// storyKnownNames are the lower-case heading names and field keys the
// parser looks for, with the sets each is in: a heading's name
// (storyHeadingName) and a field key are found without allocating.
var storyKnownNames = func() map[string]*storyName {
	m := map[string]*storyName{}
	add := func(k string) *storyName {
		if m[k] == nil {
			m[k] = &storyName{name: k}
		}
		return m[k]
	}
	for _, k := range []string{"story", "user story", "executor", "qualitygate", "epic", "status", "current", "storystatus"} {
		add(k)
	}
	for _, set := range []map[string]bool{storyStatusKeys, storyDependencyKeys} {
		for k := range set {
			add(k)
		}
	}
	for k := range storyHistorySections {
		add(k).history = true
	}
	for k := range storyNotesSections {
		add(k).notes = true
	}
	for k := range storyMetaSections {
		add(k).meta = true
	}
	for k := range storyRecordExcluded {
		add(k).recordExcluded = true
	}
	add(storyRecordSection).record = true
	for k, sec := range storySectionNames {
		add(k).section = sec
	}
	return m
}()

// storyKnownASCII looks w up in storyKnownNames in any ASCII case, without
// allocating: k is the name when known. ascii is false, and w not looked
// up, when w is not ASCII or is over 64 bytes.
func storyKnownASCII(w string) (k string, known, ascii bool) {
	n, ascii := storyKnownNameASCII(w)
	if n == nil {
		return "", false, ascii
	}
	return n.name, true, true
}

// storyKnownNameASCII is storyKnownASCII giving the name's entry (nil:
// unknown).
func storyKnownNameASCII(w string) (n *storyName, ascii bool) {
	var buf [64]byte
	if len(w) > len(buf) {
		return nil, false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			return nil, false
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return storyKnownNames[string(buf[:len(w)])], true
}

// headerField reads a "**Key:** value" line near the top.
func (s *storyState) headerField(lineNo int, line string) {
	if strings.IndexByte(line, ':') < 0 {
		return // no field: storyField needs a ':'
	}
	key, val, ok := s.lineField(lineNo, line)
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

// lineField is storyField of line number lineNo, computed once for the
// line: a line near the top is read as a body line (trimmed: storyField
// trims it anyway) and as a header field.
func (s *storyState) lineField(lineNo int, line string) (string, string, bool) {
	if s.fieldLineNo != lineNo {
		s.fieldLineNo = lineNo
		s.fieldKey, s.fieldVal, s.fieldOK = storyField(line)
	}
	return s.fieldKey, s.fieldVal, s.fieldOK
}

// storyField splits a "**Key:** value" line (also "Key: value",
// "**Key**: value", "- **Key:** value", "> Key: value") into its folded key
// (lower case, without emphasis, spaces, '-' and '_') and its value as
// written, trimmed, at most workflow.MaxStatusLen bytes.
func storyField(line string) (string, string, bool) {
	t := strings.TrimSpace(line)
	// one leading "> ", "- ", "* " or "+ " (never "**")
	if len(t) >= 2 && t[1] == ' ' && (t[0] == '>' || t[0] == '-' || t[0] == '*' || t[0] == '+') {
		t = strings.TrimSpace(t[2:])
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
// letters and those. A known key (storyKnownNames: every key the parser
// looks for) in plain ASCII comes back without allocating, and any other
// ASCII key as storyNoKey, which equals no key.
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
	if k := storyKnownNames[string(buf[:n])]; k != nil {
		return k.name, true
	}
	if n == 0 {
		return "", true
	}
	return storyNoKey, true // no key the parser looks for: not built
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
// readable[i] is false for a file that could not be read. With r.Cache, a
// story whose file has not changed since a scan stored it is taken from the
// cache sc (openStoryCache(r); nil: none), and the new parses are stored
// at the end (see cache.go).
func storyReadAll(r *source.Repo, paths []string, sc *storyCache) (out []*workflow.Story, readable []bool) {
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
			rd := newStoryReader(r, sc)
			defer rd.done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(paths) {
					return
				}
				out[i], readable[i] = rd.read(paths[i])
			}
		}()
	}
	wg.Wait()
	sc.save()
	return out, readable
}

// storyReader is one scan worker's reader of story files: its parser state
// and its use of the story cache (nil: none).
type storyReader struct {
	r     *source.Repo
	state storyState // reused for every file of this worker
	cw    *storyCacheWorker
	dirs  storyFolders // without the cache: the folders read by name
	buf   storyBuf     // without the cache: the read buffer
}

// storyBufMax bounds the capacity of a worker's reused read buffer: a
// larger file is read into a buffer of its own, dropped after its parse.
const storyBufMax = 64 << 10

// storyBufMin is the capacity a worker's read buffer starts with: most
// stories fit.
const storyBufMin = 16 << 10

// storyBuf is a scan worker's read buffer, reused for every file it reads:
// 20,000 stories are read into one buffer per worker, not 20,000 (17 MB in
// the bench's stories shape). The parse of a scan takes the buffer as its
// text and copies out all the story keeps (storyState.compact).
type storyBuf struct{ b []byte }

// get is the buffer to read the next file into.
func (b *storyBuf) get() []byte {
	if b.b == nil {
		b.b = make([]byte, 0, storyBufMin)
	}
	return b.b
}

// keep makes data's array (read by ReadRegularInto into get's buffer, or
// into a larger one of its own) the buffer for the next file, when it is
// larger and within storyBufMax.
func (b *storyBuf) keep(data []byte) {
	if c := cap(data); c > cap(b.b) && c <= storyBufMax {
		b.b = data[:0]
	}
}

// newStoryReader is a worker's reader of r's stories with the cache sc
// (nil: none); done ends its use of the cache.
func newStoryReader(r *source.Repo, sc *storyCache) *storyReader {
	rd := &storyReader{r: r}
	if sc != nil {
		rd.cw = sc.worker()
	} else {
		rd.dirs.openRoot = func() (*safefile.Dir, error) { return safefile.OpenDir(r.Root, ".", false) }
	}
	return rd
}

// done closes the reader's cache folders and counts its hits.
func (rd *storyReader) done() {
	if rd.cw != nil {
		rd.cw.done()
	}
	rd.dirs.closeFrom(0)
}

// read reads and parses the story file at p (see storyReadAll): nil for a
// file that is not a story; readable is false for one that could not be
// read.
func (rd *storyReader) read(p string) (st *workflow.Story, readable bool) {
	var d *safefile.Dir
	name := p
	if rd.cw != nil {
		d, name = rd.cw.folder(p)
	} else {
		d, name = rd.dirs.folder(p)
	}
	return rd.readIn(d, name, p)
}

// readIn is read of the story file p, name in its folder d, reached one
// component at a time from the repository's root without following a
// symlink (storyFolders, or the story walk's own folders); d nil: a folder
// that cannot be reached that way, whose files take the usual read.
func (rd *storyReader) readIn(d *safefile.Dir, name, p string) (st *workflow.Story, readable bool) {
	if rd.cw != nil && d != nil {
		// from the cache, or read and parsed and stored; else the usual
		// read below, which reports why
		if st, ok, done := rd.cw.readIn(d, name, p, &rd.state); done {
			return st, ok
		}
	}
	return rd.readUsual(d, name, p)
}

// readAllIn appends to hits what readIn gives for each of the files names
// of folder d (not nil), at paths ps, in that order. With the cache, the
// files are looked up in the table ahead, storyAheadMax at a time
// (storyCacheWorker.lookAhead).
func (rd *storyReader) readAllIn(d *safefile.Dir, names, ps []string, hits []storyHit) []storyHit {
	if rd.cw == nil {
		for i, name := range names {
			st, ok := rd.readIn(d, name, ps[i])
			hits = append(hits, storyHit{ps[i], st, ok})
		}
		return hits
	}
	var ahead [storyAheadMax]storyAhead
	for len(names) > 0 {
		n := min(len(names), storyAheadMax)
		clear(ahead[:n])
		rd.cw.lookAhead(d, names[:n], ps[:n], ahead[:n])
		for i, name := range names[:n] {
			p := ps[i]
			st, ok, done := rd.cw.readFound(d, name, p, &rd.state, ahead[i])
			if !done {
				st, ok = rd.readUsual(d, name, p)
			}
			hits = append(hits, storyHit{p, st, ok})
		}
		names, ps = names[n:], ps[n:]
	}
	return hits
}

// readUsual is readIn of a file the cache did not give (or without the
// cache).
func (rd *storyReader) readUsual(d *safefile.Dir, name, p string) (st *workflow.Story, readable bool) {
	r := rd.r
	data, mtime, err := rd.readFile(d, name, p)
	if err != nil {
		st = storyUnreadable(p, err)
	} else {
		parsed := rd.state.parse(p, data, r.Config.Statuses, true) // a scan's: data is this worker's (compact copies out what the story keeps)
		if !parsed.hasID && !parsed.hasStatus && !parsed.hasSections {
			return nil, false
		}
		st = parsed.story
		readable = true
	}
	if mtime.IsZero() {
		mtime = r.ModTime(p)
	}
	st.ModTime = mtime
	return st, readable
}

// readFile is rd.r.ReadWithTime(p) (the data drawn from the scan's
// budget) for a scan without the cache: a regular file is read by its name
// in its folder d (no symlink followed, no FIFO waited on, the size
// bounded, as safefile.Dir.ReadRegular reads); anything else, and any file
// that read refuses, takes the usual read, which reports why.
func (rd *storyReader) readFile(d *safefile.Dir, name, p string) ([]byte, time.Time, error) {
	if rd.cw == nil && d != nil {
		if data, fs, ok := d.ReadRegularInto(name, rd.r.Config.MaxFileSize, rd.buf.get()); ok {
			rd.buf.keep(data) // written again with the next file: compact copies out what the story keeps
			if err := rd.r.Spend(p, data); err != nil {
				return nil, fs.Mtime, err
			}
			return data, fs.Mtime, nil
		}
	}
	return rd.r.ReadWithTime(p)
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
