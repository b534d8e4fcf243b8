package progress

// The patch side of the progress format: a resume marks a markdown progress file active
// the way it marks other state files, keeping it human-readable: only the
// value of the Status line of the metadata list is rewritten (→ active), and
// "Resumed At" and "Resume Count" lines are updated, or added at the end of
// that list in the style of its Status line. Every other byte is kept; the
// result is parsed back (ParseProgress) before it is written. It finds the
// items with the same classifier, key normaliser, fence rule and key lists
// ParseProgress uses.

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/statepatch"
)

// Normalised keys of the fields a resume writes in a progress file, apart
// from the status (progStatusKeys).
var (
	progResumedKeys = []string{"resumed_at", "last_resumed", "last_resumed_at"}
	progCountKeys   = []string{"resume_count", "resumes"}
)

var (
	pgHeadingRe = lazyre.New(`^(#{1,6})[ \t]+(.*?)[ \t#]*$`)
	pgItemRe    = lazyre.New(`^([ \t]*)(?:[-*+]|\d{1,3}[.)])[ \t]+`)
)

// pgItem is one "key: value" line of a list (or a "**Key:** value" line).
type pgItem struct {
	line       int // index into the lines
	sec        progSection
	indent     int
	norm       string
	keyStart   int // byte offsets within the line (without its line ending)
	keyEnd     int
	valStart   int
	valEnd     int
	emptyValue bool
}

// pgDoc is a progress file as lines, with its metadata and execution state
// items.
type pgDoc struct {
	lines []string // without line endings
	ends  []string // each line's ending ("\n", "\r\n", or "" for the last)
	meta  []*pgItem
	exec  []*pgItem
}

func pgStrip(s string) string {
	return strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "*_`~"))
}

// pgKeyValue finds the key and value of an item's text starting at off in
// line: "**Key**: value", "**Key:** value" or "Key: value".
func pgKeyValue(line string, off int) (ks, ke, vs int, ok bool) {
	s := line[off:]
	lead := len(s) - len(strings.TrimLeft(s, " \t"))
	s = s[lead:]
	base := off + lead
	for _, em := range []string{"**", "__"} {
		if !strings.HasPrefix(s, em) {
			continue
		}
		end := strings.Index(s[len(em):], em)
		if end < 0 {
			break
		}
		key := s[len(em) : len(em)+end]
		rest := s[len(em)+end+len(em):]
		ks, ke = base+len(em), base+len(em)+end
		trimmedKey := strings.TrimRight(key, " \t")
		switch {
		case strings.HasSuffix(trimmedKey, ":"):
			ke = ks + len(strings.TrimSuffix(trimmedKey, ":"))
			vs = base + len(em) + end + len(em)
		case strings.HasPrefix(strings.TrimLeft(rest, " \t"), ":"):
			vs = base + len(em) + end + len(em) + strings.Index(rest, ":") + 1
		default:
			return 0, 0, 0, false
		}
		for ks < ke && (line[ks] == ' ' || line[ks] == '\t') {
			ks++
		}
		for ke > ks && (line[ke-1] == ' ' || line[ke-1] == '\t') {
			ke--
		}
		if ke == ks || ke-ks > 60 {
			return 0, 0, 0, false
		}
		for vs < len(line) && (line[vs] == ' ' || line[vs] == '\t') {
			vs++
		}
		return ks, ke, vs, true
	}
	i := strings.Index(s, ":")
	if i <= 0 || i > 60 {
		return 0, 0, 0, false
	}
	key := s[:i]
	if strings.ContainsAny(key, "/\\{}[]\"") || strings.HasPrefix(s[i:], "://") {
		return 0, 0, 0, false
	}
	ks, ke = base, base+i
	for ks < ke && strings.ContainsRune("*_` \t", rune(line[ks])) {
		ks++
	}
	for ke > ks && strings.ContainsRune("*_` \t", rune(line[ke-1])) {
		ke--
	}
	if ke == ks {
		return 0, 0, 0, false
	}
	vs = base + i + 1
	for vs < len(line) && (line[vs] == ' ' || line[vs] == '\t') {
		vs++
	}
	return ks, ke, vs, true
}

// pgParse splits a progress file into lines and finds its metadata and
// execution state items, as discover reads them.
func pgParse(text string) *pgDoc {
	d := &pgDoc{}
	rest := text
	for {
		i := strings.IndexByte(rest, '\n')
		if i < 0 {
			d.lines = append(d.lines, rest)
			d.ends = append(d.ends, "")
			break
		}
		l, end := rest[:i], "\n"
		if strings.HasSuffix(l, "\r") {
			l, end = l[:len(l)-1], "\r\n"
		}
		d.lines = append(d.lines, l)
		d.ends = append(d.ends, end)
		rest = rest[i+1:]
	}

	sec := progPreamble
	title := false
	var last *pgItem
	var pre, meta []*pgItem
	for i := 0; i < len(d.lines); i++ {
		line := d.lines[i]
		if open, ok := progFenceOf(line); ok {
			j := i + 1
			for ; j < len(d.lines); j++ {
				if cl, ok := progFenceOf(d.lines[j]); ok && cl.closer && cl.char == open.char && cl.n >= open.n {
					break
				}
			}
			if j < len(d.lines) {
				i, last = j, nil
				continue
			}
		}
		trimmedLeft := strings.TrimLeft(line, " ")
		if m := pgHeadingRe().FindStringSubmatch(trimmedLeft); m != nil && len(line)-len(trimmedLeft) < 4 {
			level := len(m[1])
			if level == 1 && !title && sec == progPreamble {
				title = true
				continue
			}
			next, known := progClassify(m[2])
			if sec == progConversation && !known {
				continue
			}
			if known || level <= 2 {
				sec, last = next, nil
			}
			continue
		}
		switch sec {
		case progConversation, progOther, progConfig:
			continue
		}
		it := &pgItem{line: i, sec: sec}
		off := -1
		if m := pgItemRe().FindStringSubmatch(line); m != nil {
			off = len(m[0])
			it.indent = len(strings.ReplaceAll(m[1], "\t", "    "))
		} else if t := strings.TrimSpace(line); (sec == progPreamble || sec == progMetadata) && strings.HasPrefix(t, "**") {
			off = len(line) - len(strings.TrimLeft(line, " \t"))
		}
		if off < 0 {
			if strings.TrimSpace(line) != "" && (last == nil || !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t")) {
				last = nil
			}
			continue
		}
		ks, ke, vs, ok := pgKeyValue(line, off)
		if last != nil && it.indent > last.indent && (!ok || last.emptyValue) {
			continue // nested under an item whose value is a list
		}
		if !ok {
			last = nil
			continue
		}
		it.keyStart, it.keyEnd, it.valStart = ks, ke, vs
		it.valEnd = len(strings.TrimRight(line, " \t"))
		if it.valEnd < it.valStart {
			it.valEnd = it.valStart
		}
		it.emptyValue = it.valEnd == it.valStart
		it.norm = progNorm(line[ks:ke])
		switch sec {
		case progExecState:
			d.exec = append(d.exec, it)
		case progPreamble:
			pre = append(pre, it)
		default:
			meta = append(meta, it)
		}
		last = it
	}
	for _, it := range pre {
		if progMetaKey(it.norm) {
			meta = append(pre, meta...)
			break
		}
	}
	d.meta = meta
	return d
}

func pgIn(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// pgFind is the item discover reads for norms: the first spelling present
// (the first item of each key).
func pgFind(items []*pgItem, norms []string) *pgItem {
	for _, n := range norms {
		for _, it := range items {
			if it.norm == n {
				return it
			}
		}
	}
	return nil
}

// value is the text of an item's value.
func (d *pgDoc) value(it *pgItem) string {
	return d.lines[it.line][it.valStart:it.valEnd]
}

// wrapValue writes v inside the emphasis or backticks wrapping old (when
// all of old is wrapped).
func wrapValue(old, v string) string {
	for _, w := range []string{"**", "__", "`", "*", "_"} {
		if len(old) > 2*len(w) && strings.HasPrefix(old, w) && strings.HasSuffix(old, w) {
			return w + v + w
		}
	}
	return v
}

// keyStyle spells a new key as the template key is spelt ("Status" →
// "Resumed At", "status" → "resumed_at", "STATUS" → "RESUMED AT").
func keyStyle(tmpl string, words []string) string {
	switch {
	case tmpl == strings.ToLower(tmpl):
		if strings.Contains(tmpl, " ") {
			return strings.Join(words, " ")
		}
		return strings.Join(words, "_")
	case tmpl == strings.ToUpper(tmpl) && len(tmpl) > 1:
		return strings.ToUpper(strings.Join(words, " "))
	}
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(out, " ")
}

// newLine renders "key: value" in the style of the template item's line.
func (d *pgDoc) newLine(tmpl *pgItem, words []string, value string) string {
	l := d.lines[tmpl.line]
	key := keyStyle(l[tmpl.keyStart:tmpl.keyEnd], words)
	return l[:tmpl.keyStart] + key + l[tmpl.keyEnd:tmpl.valStart] + value
}

// blockEnd is the last line of the item: its nested and continuation lines
// (indented deeper, not blank) included.
func (d *pgDoc) blockEnd(it *pgItem) int {
	base := len(d.lines[it.line]) - len(strings.TrimLeft(d.lines[it.line], " \t"))
	end := it.line
	for j := it.line + 1; j < len(d.lines); j++ {
		l := d.lines[j]
		if strings.TrimSpace(l) == "" {
			break
		}
		ind := len(l) - len(strings.TrimLeft(l, " \t"))
		if ind <= base {
			break
		}
		end = j
	}
	return end
}

// Patch marks a progress file resumed: the Status value of its
// metadata list becomes "active" and Resumed At (now, RFC 3339 UTC) and
// Resume Count (+1) are updated or added to that list. A markdown file that
// is not a progress file gives statepatch.ErrNotPatchable. The result is
// parsed back and compared with the original before it is returned.
func Patch(path string, data []byte, now time.Time) ([]byte, error) {
	bom := bytes.HasPrefix(data, statepatch.BOM)
	body := bytes.TrimPrefix(data, statepatch.BOM)
	if !utf8.Valid(body) {
		return nil, fmt.Errorf("%w: not valid UTF-8 text", statepatch.ErrNotPatchable)
	}
	before, _ := ParseProgress(path, body)
	if before.Status == "unreadable" {
		return nil, fmt.Errorf("%w: not a progress file (no execution metadata list)", statepatch.ErrNotPatchable)
	}
	d := pgParse(string(body))
	items := d.meta
	if len(items) == 0 {
		items = d.exec
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%w: the progress file has no metadata list to mark", statepatch.ErrNotPatchable)
	}
	status := pgFind(d.meta, progStatusKeys)
	if status == nil {
		if status = pgFind(d.exec, progStatusKeys); status != nil {
			items = d.exec
		}
	}
	// the list the fields go in: the status item's section
	var list []*pgItem
	tmpl := status
	if status != nil {
		for _, it := range items {
			if it.sec == status.sec {
				list = append(list, it)
			}
		}
	} else {
		tmpl = items[0]
		for _, it := range items {
			if it.sec == tmpl.sec {
				list = append(list, it)
			}
		}
	}

	ts := now.UTC().Format(time.RFC3339)
	count := 1
	countItem := pgFind(list, progCountKeys)
	if countItem != nil {
		raw := pgStrip(d.value(countItem))
		switch n, err := strconv.Atoi(raw); {
		case raw == "" || raw == "-" || strings.EqualFold(raw, "none") || strings.EqualFold(raw, "null"):
		case err != nil || n < 0:
			return nil, fmt.Errorf("%s is %q, not a count", d.lines[countItem.line][countItem.keyStart:countItem.keyEnd], raw)
		default:
			count = n + 1
		}
	}
	resumedItem := pgFind(list, progResumedKeys)

	// edits in place, then new lines after the list
	lines := append([]string(nil), d.lines...)
	set := func(it *pgItem, v string) {
		l := lines[it.line]
		old := l[it.valStart:it.valEnd]
		lines[it.line] = l[:it.valStart] + wrapValue(old, v) + l[it.valEnd:]
	}
	var added []string
	if status != nil {
		set(status, statepatch.StatusActive)
	} else {
		added = append(added, d.newLine(tmpl, []string{"status"}, statepatch.StatusActive))
	}
	if resumedItem != nil {
		set(resumedItem, ts)
	} else {
		added = append(added, d.newLine(tmpl, []string{"resumed", "at"}, ts))
	}
	if countItem != nil {
		set(countItem, strconv.Itoa(count))
	} else {
		added = append(added, d.newLine(tmpl, []string{"resume", "count"}, strconv.Itoa(count)))
	}
	after := -1
	if len(added) > 0 {
		lastItem := list[len(list)-1]
		after = d.blockEnd(lastItem)
	}
	var out strings.Builder
	nl := "\n"
	for _, e := range d.ends {
		if e != "" {
			nl = e
			break
		}
	}
	for i, l := range lines {
		out.WriteString(l)
		if i == after {
			end := d.ends[i]
			if end == "" {
				end = nl
			}
			out.WriteString(end)
			for k, a := range added {
				out.WriteString(a)
				if k < len(added)-1 || d.ends[i] != "" {
					out.WriteString(nl)
				}
			}
			continue
		}
		out.WriteString(d.ends[i])
	}
	patched := []byte(out.String())
	if err := verifyProgress(path, body, patched, ts, count); err != nil {
		return nil, fmt.Errorf("the patched file does not check out (nothing written): %w", err)
	}
	if bom {
		patched = append(append([]byte{}, statepatch.BOM...), patched...)
	}
	return patched, nil
}

// progressView is what a progress file says apart from the fields a resume
// writes, for comparing before and after.
func progressView(path string, data []byte) (string, map[string]any) {
	c, _ := ParseProgress(path, data)
	fields := map[string]any{}
	strip := func(key string) {
		m, ok := c.Context[key].(map[string]any)
		if !ok {
			return
		}
		cp := make(map[string]any, len(m))
		for k, v := range m {
			if pgIn(k, progStatusKeys) || pgIn(k, progResumedKeys) || pgIn(k, progCountKeys) {
				fields[k] = v
				continue
			}
			cp[k] = v
		}
		c.Context[key] = cp
	}
	strip(ProgressCtxMetadata)
	strip(ProgressCtxExecutionState)
	view := fmt.Sprintf("%s|%s|%s|%v|%v|%v|%v|%s|%s|%s|%s|%s|%#v|%#v|%#v",
		c.ID, c.Workflow, c.Type, c.Resumable, c.UpdatedAt, c.StartedAt, c.Stories,
		c.AISessionID, c.Agent, c.Mode, c.Commit, c.Position.String(), c.Phases, c.Files, c.Context)
	fields["_status"] = c.Status
	return view, fields
}

// verifyProgress parses the patched file back: status active, the resume
// fields read back, everything else as before.
func verifyProgress(path string, orig, patched []byte, ts string, count int) error {
	v0, _ := progressView(path, orig)
	v1, f1 := progressView(path, patched)
	if f1["_status"] != statepatch.StatusActive {
		return fmt.Errorf("status reads back as %v", f1["_status"])
	}
	if got := pgReadBack(f1, progResumedKeys); got != ts {
		return fmt.Errorf("resumed at reads back as %q", got)
	}
	if got := pgReadBack(f1, progCountKeys); got != strconv.Itoa(count) {
		return fmt.Errorf("resume count reads back as %q", got)
	}
	if v0 != v1 {
		return errors.New("other fields changed")
	}
	return nil
}

func pgReadBack(fields map[string]any, norms []string) string {
	for _, n := range norms {
		if v, ok := fields[n]; ok {
			return pgStrip(fmt.Sprint(v))
		}
	}
	return ""
}

// StateHash hashes a progress file apart from what a resume writes: the
// Status value and the Resumed At and Resume Count lines.
func StateHash(data []byte) string {
	body := bytes.TrimPrefix(data, statepatch.BOM)
	if !utf8.Valid(body) {
		return statepatch.HashHex(data)
	}
	d := pgParse(string(body))
	drop := map[int]bool{}
	lines := append([]string(nil), d.lines...)
	items := d.meta
	status := pgFind(d.meta, progStatusKeys)
	if status == nil {
		if status = pgFind(d.exec, progStatusKeys); status != nil {
			items = d.exec
		}
	}
	if status != nil {
		l := lines[status.line]
		lines[status.line] = l[:status.valStart] + l[status.valEnd:]
	}
	for _, it := range items {
		if pgIn(it.norm, progResumedKeys) || pgIn(it.norm, progCountKeys) {
			drop[it.line] = true
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if !drop[i] {
			b.WriteString(l)
			b.WriteString("\n")
		}
	}
	return statepatch.HashHex([]byte(b.String()))
}
