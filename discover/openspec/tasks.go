package openspec

import (
	"github.com/orchestrate-dev/orchestrate/internal/textfmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
)

// Bounds on what one tasks.md contributes: a hostile file costs at most
// this much, whatever its size (the same bounds as spec-kit's tasks.md).
const (
	maxTasks     = 5000
	maxTaskPaths = 32
	maxTaskRefs  = 16
	maxLineLen   = 4096
	maxTitleLen  = 200
	maxRefLen    = 120
	maxGroups    = 1000
)

// Task is one checkbox line of a tasks.md.
type Task struct {
	// Item names the task: its leading number as written ("2.3", "6.1.1"),
	// else a hand-written id ("T-3", "FB-1"), else "line N".
	Item string
	// Num is the leading number, "" when the task has none.
	Num   string
	Title string // the text after the number, one line, bounded
	Done  bool   // [x] or [X]
	// Empty is a box with no text: it counts toward progress but is no task
	// to work on (OpenSpec's own apply list leaves it out).
	Empty bool
	// Fenced is a box inside a code fence: orchestrate does not count it
	// (FORMATS-openspec-kiro Part D.1); the openspec CLI (1.8+) does.
	Fenced bool
	// Column0 is a line the CLIs up to 1.7 counted (`^[-*]\s+\[[\sx]\]`,
	// column 0 only).
	Column0 bool
	// OtherMarker is a box under a `+` bullet or an ordered-list marker
	// (`1.`, `1)`): the CLI counts it since 1.13.1 (#1862), the CLIs 1.8
	// to 1.13.0 did not.
	OtherMarker bool
	Group       string   // the heading it stands under ("" before any)
	GroupIx     int      // index into Tasks.Groups, -1 before any heading
	Refs        []string // requirement references ("1.1, 2.3", "User login")
	Paths       []string // the repository paths the task names, cleaned
	Line        int      // 1-based
}

// Tasks is a parsed tasks.md.
type Tasks struct {
	// Tasks are every checkbox line in document order, fenced ones included
	// (flagged).
	Tasks []Task
	// Groups are the headings counted tasks stand under, in order.
	Groups []string
	// Truncated reports more than maxTasks checkbox lines: the rest are
	// not read.
	Truncated bool
	// UnclosedFence is the line of a code fence never closed (0 when
	// none): its boxes are counted, a stray fence must not hide real tasks.
	UnclosedFence int
}

// Count is done/total by orchestrate's rule (Part D.1): every box at any
// indentation, outside code fences.
func (t *Tasks) Count() (done, total int) {
	return t.count(func(k *Task) bool { return !k.Fenced })
}

// CLICount is done/total as the current openspec CLI (1.13.1+) counts
// (every box under any list marker, fenced ones included).
func (t *Tasks) CLICount() (done, total int) {
	return t.count(func(*Task) bool { return true })
}

// MidCount is done/total as the openspec CLIs 1.8 to 1.13.0 counted (`-`
// and `*` boxes at any indentation, fenced ones included; `+` and
// ordered-list boxes not).
func (t *Tasks) MidCount() (done, total int) {
	return t.count(func(k *Task) bool { return !k.OtherMarker })
}

// OldCount is done/total as the CLIs up to 1.7 counted (column-0 boxes
// only, fenced ones included).
func (t *Tasks) OldCount() (done, total int) {
	return t.count(func(k *Task) bool { return k.Column0 })
}

// count is done/total over the boxes counts keeps.
func (t *Tasks) count(counts func(*Task) bool) (done, total int) {
	for i := range t.Tasks {
		if k := &t.Tasks[i]; counts(k) {
			total++
			if k.Done {
				done++
			}
		}
	}
	return done, total
}

// FirstOpen is the resume point: the first open counted task with text,
// in document order; nil when none.
func (t *Tasks) FirstOpen() *Task {
	for i := range t.Tasks {
		x := &t.Tasks[i]
		if !x.Done && !x.Fenced && !x.Empty {
			return x
		}
	}
	return nil
}

// CLIFirstOpen is the first open task the openspec CLI lists to apply
// (fenced boxes included, empty ones left out); nil when none.
func (t *Tasks) CLIFirstOpen() *Task {
	for i := range t.Tasks {
		x := &t.Tasks[i]
		if !x.Done && !x.Empty {
			return x
		}
	}
	return nil
}

// Holes lists the open counted tasks (with text) that stand before a
// ticked one.
func (t *Tasks) Holes() []string {
	last := -1
	for i := range t.Tasks {
		if t.Tasks[i].Done && !t.Tasks[i].Fenced {
			last = i
		}
	}
	var out []string
	for i := 0; i < last; i++ {
		x := &t.Tasks[i]
		if !x.Done && !x.Fenced && !x.Empty {
			out = append(out, x.Item)
		}
	}
	return out
}

// FencedCount counts the boxes inside code fences.
func (t *Tasks) FencedCount() int {
	n := 0
	for i := range t.Tasks {
		if t.Tasks[i].Fenced {
			n++
		}
	}
	return n
}

var (
	fenceRe = lazyre.New("^\\s*(`{3,}|~{3,})")
	refRe   = lazyre.New(`(?i)(?:^|[\s(\[])(?:requirements?|reqs?|validates|spec)\s*[:：]\s*(.+?)\s*[)\]]?\s*$`)
	filesRe = lazyre.New(`(?i)^(?:files?|paths?)\s*[:：]\s*(.*)$`)
)

// emphasis removes bold markers; plainText also backticks.
var (
	emphasis  = strings.NewReplacer("**", "", "__", "")
	plainText = strings.NewReplacer("**", "", "__", "", "`", "")
)

// unEmphasis is emphasis.Replace(s), s itself when it holds no marker
// (the replacer copies every string it is given).
func unEmphasis(s string) string {
	if !strings.Contains(s, "**") && !strings.Contains(s, "__") {
		return s
	}
	return emphasis.Replace(s)
}

// toPlain is plainText.Replace(s), s itself when it holds no marker.
func toPlain(s string) string {
	if strings.IndexByte(s, '`') < 0 && !strings.Contains(s, "**") && !strings.Contains(s, "__") {
		return s
	}
	return plainText.Replace(s)
}

// ParseTasks reads a tasks.md without a repository at hand: only file-like
// tokens are paths (see ParseTasksIn).
func ParseTasks(data []byte) Tasks { return ParseTasksIn(data, nil) }

// ParseTasksIn reads a tasks.md. It never fails: lines that are not
// checkbox lines are prose. The paths a task names are read by the one
// prose rule (refpath.Prose) with exists answering for the repository: a
// route, URL, glob, command or version is never a path.
func ParseTasksIn(data []byte, exists func(string) bool) Tasks {
	return parseTasks(data, exists, true)
}

// countTasks reads only the boxes of a tasks.md (an archived change's):
// no references, no paths.
func countTasks(data []byte) Tasks { return parseTasks(data, nil, false) }

// parseTasks is ParseTasksIn; detail false skips references and paths.
func parseTasks(data []byte, exists func(string) bool, detail bool) Tasks {
	var out Tasks
	group, groupIx := "", -1
	fence, fenceLen, fenceAt := byte(0), 0, 0
	var cur *Task // the last task, for its indented sub-bullets
	curIndent := 0
	text := string(data)
	if !utf8.ValidString(text) { // (ToValidUTF8 decodes every rune to find out)
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	// the tasks made once at (about) their number: grown by appending, a
	// change's tasks left twice their bytes behind for the collector
	if boxes := min(boxLines(text), maxTasks); boxes > 0 {
		out.Tasks = make([]Task, 0, boxes)
	}
	n := 0
	for len(text) > 0 {
		var line string
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			line, text = text, ""
		}
		n++
		line = strings.TrimRight(line, "\r")
		if len(line) > maxLineLen {
			line = cutRunes(line, maxLineLen)
		}
		if m := fenceMatch(line); m != nil {
			switch {
			case fence == 0:
				fence, fenceLen, fenceAt = m[1][0], len(m[1]), n
				cur = nil
				continue
			case m[1][0] == fence && len(m[1]) >= fenceLen && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), string(fence))) == "":
				fence, fenceAt = 0, 0
				continue
			}
		}
		if fence == 0 && strings.HasPrefix(strings.TrimLeft(line, " "), "#") {
			if level, text, ok := source.Heading(line); ok {
				cur = nil
				if level == 1 {
					group, groupIx = "", -1
					continue
				}
				group, groupIx = cleanText(text), -1
				continue
			}
		}
		if m := taskMatch(line); m != nil {
			if len(out.Tasks) >= maxTasks {
				out.Truncated = true
				break
			}
			t := Task{Done: m[1] == "x" || m[1] == "X", Fenced: fence != 0, Column0: column0(line), OtherMarker: m[3] != "", Line: n, Group: group, GroupIx: -1}
			desc := strings.TrimSpace(m[2])
			if num, rest, ok := leadingNumber(desc); ok {
				t.Num = num
				desc = strings.TrimSpace(rest)
			}
			t.Empty = t.Num == "" && strings.TrimSpace(desc) == ""
			t.Item = t.Num
			if t.Item == "" {
				if id, rest, ok := labelID(desc); ok {
					t.Item, desc = id, rest
				} else {
					t.Item = "line " + strconv.Itoa(n)
				}
			}
			t.Title = oneLine(desc)
			if fence != 0 {
				t.GroupIx = -fenceAt - 1 // remembered: an unclosed fence is undone below
			} else {
				if groupIx < 0 && group != "" && len(out.Groups) < maxGroups {
					out.Groups = append(out.Groups, group)
					groupIx = len(out.Groups) - 1
				}
				t.GroupIx = groupIx
				if detail {
					t.Refs = addRefs(nil, desc)
					t.Paths = descPaths(desc, nil, exists)
				}
			}
			out.Tasks = append(out.Tasks, t)
			cur = &out.Tasks[len(out.Tasks)-1]
			curIndent = indentOf(line)
			if fence != 0 {
				cur = nil
			}
			continue
		}
		if cur == nil || fence != 0 || !detail {
			continue
		}
		switch trimmed := strings.TrimSpace(line); {
		case trimmed == "":
		case indentOf(line) > curIndent:
			// a sub-bullet of the task: requirement references and files
			sub := strings.TrimSpace(strings.TrimLeft(trimmed, "-*+"))
			plain := unEmphasis(sub)
			plain = strings.Trim(plain, "_ ")
			if fm := filesMatch(plain); fm != nil {
				cur.Paths = filesPaths(fm[1], cur.Paths, exists)
				continue
			}
			cur.Refs = addRefs(cur.Refs, plain)
		default:
			cur = nil
		}
	}
	if fence != 0 {
		// a fence never closed: its boxes count (a stray ``` must not hide
		// real tasks), and they take their place among the groups
		out.UnclosedFence = fenceAt
		for i := range out.Tasks {
			t := &out.Tasks[i]
			if t.Fenced && t.GroupIx == -fenceAt-1 {
				t.Fenced = false
				t.GroupIx = groupIndex(&out, t.Group)
				if detail {
					t.Refs = addRefs(nil, t.Title)
					t.Paths = descPaths(t.Title, nil, exists)
				}
			}
		}
	}
	for i := range out.Tasks {
		if out.Tasks[i].Fenced {
			out.Tasks[i].GroupIx = -1
		}
	}
	if len(out.Tasks) == 0 {
		out.Tasks = nil // as without the estimate: no line was a task
	}
	return out
}

// groupIndex is the index of group in out.Groups, adding it (bounded);
// -1 for no group.
func groupIndex(out *Tasks, group string) int {
	if group == "" {
		return -1
	}
	for i, g := range out.Groups {
		if g == group {
			return i
		}
	}
	if len(out.Groups) >= maxGroups {
		return -1
	}
	out.Groups = append(out.Groups, group)
	return len(out.Groups) - 1
}

// indentOf is a line's leading whitespace width (a tab counts 4).
func indentOf(line string) int {
	n := 0
	for _, r := range line {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

// addRefs adds the requirement reference text holds ("_Requirements: 1.1,
// 2.3_", "(Req: login)", "**Validates: Requirements 2.1**"), bounded.
func addRefs(refs []string, text string) []string {
	if len(refs) >= maxTaskRefs {
		return refs
	}
	if !mayRef(text) {
		return refs
	}
	plain := toPlain(text)
	plain = strings.Trim(plain, "_ ")
	m, ok := refMatch(plain)
	if !ok {
		return refs
	}
	v := strings.Trim(strings.TrimSpace(m), "_*. ")
	v = strings.TrimPrefix(strings.TrimPrefix(v, "Requirements "), "Requirement ")
	if v == "" {
		return refs
	}
	v = oneLine(v)
	if len(v) > maxRefLen {
		v = cutRunes(v, maxRefLen) + "…"
	}
	for _, r := range refs {
		if r == v {
			return refs
		}
	}
	return append(refs, v)
}

// descPaths finds the paths a task's text names: backticked tokens that
// are paths, and bare tokens holding a folder that are paths (a markdown
// link's target included).
func descPaths(desc string, out []string, exists func(string) bool) []string {
	if !strings.Contains(desc, "/") && !strings.Contains(desc, "`") {
		return out
	}
	quoted, slash := backtickSpans(desc)
	for _, q := range quoted {
		if p, ok := pathToken(q, exists); ok {
			out = addPath(out, p)
		}
	}
	if !slash {
		return out // no folder outside the spans: no bare path
	}
	_, plain := backticks(desc)
	for _, w := range strings.Fields(plain) {
		if len(out) >= maxTaskPaths {
			break
		}
		if i := strings.Index(w, "]("); i >= 0 {
			w = w[i+2:]
		}
		tok := strings.TrimRight(strings.TrimLeft(w, "([{\"'*_"), ".,;:!?)]}\"'*_")
		if !strings.Contains(tok, "/") {
			continue
		}
		if p, ok := pathToken(tok, exists); ok {
			out = addPath(out, p)
		}
	}
	return out
}

// backticks splits text into its backticked spans (at most maxTaskPaths,
// each 1–512 bytes, as "`([^`]{1,512})`" would find them) and the text
// outside them, the spans replaced by a space.
func backticks(text string) (quoted []string, plain string) {
	if !strings.Contains(text, "`") {
		return nil, text
	}
	var b strings.Builder
	backtickScan(text, func(t string) { b.WriteString(t) }, func(span string) {
		b.WriteByte(' ')
		if len(quoted) < maxTaskPaths {
			quoted = append(quoted, span)
		}
	})
	return quoted, b.String()
}

// backtickSpans is backticks without building the text outside the
// spans: the spans, and whether that text holds a "/".
func backtickSpans(text string) (quoted []string, slash bool) {
	if !strings.Contains(text, "`") {
		return nil, strings.IndexByte(text, '/') >= 0
	}
	backtickScan(text, func(t string) { slash = slash || strings.IndexByte(t, '/') >= 0 }, func(span string) {
		if len(quoted) < maxTaskPaths {
			quoted = append(quoted, span)
		}
	})
	return quoted, slash
}

// backtickScan reads text as "`([^`]{1,512})`" finds its spans, the one
// rule of backticks and backtickSpans: text gets each piece outside the
// spans in order, span each span, after the text before it. A backtick
// that opens no span (the next one right after it, more than 512 bytes
// on, or none) is text, and the search goes on after it.
func backtickScan(s string, text, span func(string)) {
	for {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], '`')
		if j < 0 {
			break
		}
		if j == 0 || j > 512 {
			text(s[:i+1])
			s = s[i+1:]
			continue
		}
		text(s[:i])
		span(s[i+1 : i+1+j])
		s = s[i+2+j:]
	}
	text(s)
}

// filesPaths reads a "Files: a, b" sub-bullet (refpath.Listed) into out.
func filesPaths(rest string, out []string, exists func(string) bool) []string {
	quoted, _ := backticks(rest)
	return refpath.AppendNew(out, maxTaskPaths, refpath.Listed(rest, quoted, exists)...)
}

// pathToken is refpath.Token: the one prose rule, and not a version.
func pathToken(s string, exists func(string) bool) (string, bool) { return refpath.Token(s, exists) }

// addPath appends p when new, up to maxTaskPaths.
func addPath(list []string, p string) []string { return refpath.AppendNew(list, maxTaskPaths, p) }

// cleanText strips emphasis and decorations from a heading.
func cleanText(s string) string {
	s = toPlain(s)
	s = strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.Is(unicode.So, r) || unicode.Is(unicode.Sk, r) || r == '\uFE0F' || r == '\u200D'
	})
	return oneLine(s)
}

// oneLine bounds text for a title (textfmt.Title).
func oneLine(s string) string { return textfmt.Title(s, maxTitleLen) }

// cutRunes cuts s to at most n bytes on a rune boundary.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
