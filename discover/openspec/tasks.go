package openspec

import (
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

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
	// else "line N".
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
	Group   string   // the heading it stands under ("" before any)
	GroupIx int      // index into Tasks.Groups, -1 before any heading
	Refs    []string // requirement references ("1.1, 2.3", "User login")
	Paths   []string // the repository paths the task names, cleaned
	Line    int      // 1-based
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
	for i := range t.Tasks {
		if !t.Tasks[i].Fenced {
			total++
			if t.Tasks[i].Done {
				done++
			}
		}
	}
	return done, total
}

// CLICount is done/total as the openspec CLI 1.8+ counts (every box,
// fenced ones included).
func (t *Tasks) CLICount() (done, total int) {
	for i := range t.Tasks {
		total++
		if t.Tasks[i].Done {
			done++
		}
	}
	return done, total
}

// OldCount is done/total as the CLIs up to 1.7 counted (column-0 boxes
// only, fenced ones included).
func (t *Tasks) OldCount() (done, total int) {
	for i := range t.Tasks {
		if t.Tasks[i].Column0 {
			total++
			if t.Tasks[i].Done {
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

// ws is the whitespace the CLI's JavaScript `\s` matches (Go's `\s` is
// ASCII only): a tab or a no-break space inside the brackets is an open box.
const ws = `\s\x{00A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}`

var (
	// taskRe is the 1.8+ task line (src/utils/task-progress.ts): a list
	// item at any indentation, a box holding whitespace, x or X.
	taskRe = lazyre.New(`^[` + ws + `]*[-*][` + ws + `]*\[([` + ws + `xX])\][` + ws + `]*(.*)$`)
	// oldRe is the task line of the CLIs up to 1.7: column 0 only.
	oldRe      = lazyre.New(`^[-*][` + ws + `]+\[[` + ws + `xX]\]`)
	headingRe  = lazyre.New(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	fenceRe    = lazyre.New("^\\s*(`{3,}|~{3,})")
	numRe      = lazyre.New(`^(?:\*\*)?(\d{1,4}(?:\.\d{1,4}){0,4})\.?(?:\*\*)?(?:\s+|$)`)
	refRe      = lazyre.New(`(?i)(?:^|[\s(\[])(?:requirements?|reqs?|validates|spec)\s*[:：]\s*(.+?)\s*[)\]]?\s*$`)
	filesRe    = lazyre.New(`(?i)^(?:files?|paths?)\s*[:：]\s*(.*)$`)
	backtickRe = lazyre.New("`([^`]{1,512})`")
)

// ParseTasks reads a tasks.md without a repository at hand: only file-like
// tokens are paths (see ParseTasksIn).
func ParseTasks(data []byte) Tasks { return ParseTasksIn(data, nil) }

// ParseTasksIn reads a tasks.md. It never fails: lines that are not
// checkbox lines are prose. The paths a task names are read by the one
// prose rule (refpath.Prose) with exists answering for the repository: a
// route, URL, glob, command or version is never a path.
func ParseTasksIn(data []byte, exists func(string) bool) Tasks {
	var out Tasks
	group, groupIx := "", -1
	fence, fenceLen, fenceAt := byte(0), 0, 0
	var cur *Task // the last task, for its indented sub-bullets
	curIndent := 0
	text := strings.ToValidUTF8(string(data), "\uFFFD")
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
		if m := fenceRe().FindStringSubmatch(line); m != nil {
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
		if fence == 0 {
			if m := headingRe().FindStringSubmatch(line); m != nil {
				cur = nil
				if len(m[1]) == 1 {
					group, groupIx = "", -1
					continue
				}
				group, groupIx = cleanText(m[2]), -1
				continue
			}
		}
		if m := taskRe().FindStringSubmatch(line); m != nil {
			if len(out.Tasks) >= maxTasks {
				out.Truncated = true
				break
			}
			t := Task{Done: m[1] == "x" || m[1] == "X", Fenced: fence != 0, Column0: oldRe().MatchString(line), Line: n, Group: group, GroupIx: -1}
			desc := strings.TrimSpace(m[2])
			if nm := numRe().FindStringSubmatch(desc); nm != nil {
				t.Num = nm[1]
				desc = strings.TrimSpace(desc[len(nm[0]):])
			}
			t.Empty = t.Num == "" && strings.TrimSpace(desc) == ""
			t.Item = t.Num
			if t.Item == "" {
				t.Item = "line " + strconv.Itoa(n)
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
				t.Refs = addRefs(nil, desc)
				t.Paths = descPaths(desc, nil, exists)
			}
			out.Tasks = append(out.Tasks, t)
			cur = &out.Tasks[len(out.Tasks)-1]
			curIndent = indentOf(line)
			if fence != 0 {
				cur = nil
			}
			continue
		}
		if cur == nil || fence != 0 {
			continue
		}
		switch trimmed := strings.TrimSpace(line); {
		case trimmed == "":
		case indentOf(line) > curIndent:
			// a sub-bullet of the task: requirement references and files
			sub := strings.TrimSpace(strings.TrimLeft(trimmed, "-*+"))
			plain := strings.NewReplacer("**", "", "__", "").Replace(sub)
			plain = strings.Trim(plain, "_ ")
			if fm := filesRe().FindStringSubmatch(plain); fm != nil {
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
				t.Refs = addRefs(nil, t.Title)
				t.Paths = descPaths(t.Title, nil, exists)
			}
		}
	}
	for i := range out.Tasks {
		if out.Tasks[i].Fenced {
			out.Tasks[i].GroupIx = -1
		}
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
	plain := strings.NewReplacer("**", "", "__", "", "`", "").Replace(text)
	plain = strings.Trim(plain, "_ ")
	m := refRe().FindStringSubmatch(plain)
	if m == nil {
		return refs
	}
	v := strings.Trim(strings.TrimSpace(m[1]), "_*. ")
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
	for _, m := range backtickRe().FindAllStringSubmatch(desc, maxTaskPaths) {
		if p, ok := pathToken(m[1], exists); ok {
			out = addPath(out, p)
		}
	}
	plain := backtickRe().ReplaceAllString(desc, " ")
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

// filesPaths reads a "Files: a, b" sub-bullet: backticked paths, else
// comma-separated ones.
func filesPaths(rest string, out []string, exists func(string) bool) []string {
	if ms := backtickRe().FindAllStringSubmatch(rest, maxTaskPaths); len(ms) > 0 {
		for _, m := range ms {
			if p, ok := pathToken(m[1], exists); ok {
				out = addPath(out, p)
			}
		}
		return out
	}
	for _, part := range strings.Split(rest, ",") {
		if p, ok := refpath.Output(part); ok {
			if c, ok := pathToken(p, exists); ok {
				out = addPath(out, c)
			}
		}
	}
	return out
}

// pathToken reports whether a token is a repository path by the one prose
// rule (refpath.Prose), and not a version number ("1.2.3", "v2.0").
func pathToken(s string, exists func(string) bool) (string, bool) {
	s = strings.TrimSpace(s)
	if v := strings.TrimLeft(s, "vV"); v != "" && strings.Trim(v, "0123456789.") == "" {
		return "", false
	}
	p, ok := refpath.Prose(s, exists)
	if !ok || path.Clean(p) == "." {
		return "", false
	}
	return p, true
}

// addPath appends p when new, up to maxTaskPaths.
func addPath(list []string, p string) []string {
	if len(list) >= maxTaskPaths {
		return list
	}
	for _, x := range list {
		if x == p {
			return list
		}
	}
	return append(list, p)
}

// cleanText strips emphasis and decorations from a heading.
func cleanText(s string) string {
	s = strings.NewReplacer("**", "", "__", "", "`", "").Replace(s)
	s = strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.Is(unicode.So, r) || unicode.Is(unicode.Sk, r) || r == '\uFE0F' || r == '\u200D'
	})
	return oneLine(s)
}

// oneLine bounds text for a title: control characters out, at most
// maxTitleLen bytes on a rune boundary.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
	if len(s) > maxTitleLen {
		s = cutRunes(s, maxTitleLen) + "…"
	}
	return s
}

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
