package speckit

import (
	"github.com/orchestrate-dev/orchestrate/internal/textfmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
)

// Bounds on what one tasks.md contributes: a hostile file costs at most
// this much, whatever its size.
const (
	maxTasks     = 5000
	maxTaskPaths = 32
	maxLineLen   = 4096
	maxTitleLen  = 200
)

// Task is one task line of a tasks.md: `- [ ] T014 [P] [US1] Do x in src/y.go`.
type Task struct {
	ID      string   // normalised: T014 (written T014, **T014** or T-014)
	Raw     string   // the id as written
	Done    bool     // [x] or [X]
	Dropped bool     // ticked and marked (DROPPED …)
	Labels  []string // [P], [US1], [Word], in the order written
	Title   string   // the description, one line, bounded
	Paths   []string // the paths the task names, cleaned, in order
	Section string   // the phase heading it stands under ("" before any)
	Phase   int      // index into Tasks.Phases, -1 before any heading
	Line    int      // 1-based
}

// Tasks is a parsed tasks.md.
type Tasks struct {
	Tasks  []Task
	Phases []string // the headings tasks stand under, in document order
	// Duplicates are ids written on more than one task line.
	Duplicates []string
	// Truncated reports that the file holds more than maxTasks tasks.
	Truncated bool
}

// Done counts the closed tasks (ticked, dropped included).
func (t *Tasks) Done() int {
	n := 0
	for _, x := range t.Tasks {
		if x.Done {
			n++
		}
	}
	return n
}

// FirstOpen returns the first unchecked task in document order, or nil.
func (t *Tasks) FirstOpen() *Task {
	for i := range t.Tasks {
		if !t.Tasks[i].Done {
			return &t.Tasks[i]
		}
	}
	return nil
}

// Holes lists the open tasks that stand before a closed one: work done out
// of order, or a reopened feature.
func (t *Tasks) Holes() []string {
	last := -1
	for i, x := range t.Tasks {
		if x.Done {
			last = i
		}
	}
	var out []string
	for i := 0; i < last; i++ {
		if !t.Tasks[i].Done {
			out = append(out, t.Tasks[i].ID)
		}
	}
	return out
}

// Dropped lists the ids of the closed tasks marked dropped.
func (t *Tasks) Dropped() []string {
	var out []string
	for _, x := range t.Tasks {
		if x.Dropped {
			out = append(out, x.ID)
		}
	}
	return out
}

var (
	// taskRe is the task grammar: a list item, a checkbox, a task id (T014,
	// **T014**, T-014); what follows the id must not continue a word.
	taskRe     = lazyre.New(`^\s*[-*]\s+\[([ xX])\]\s+(\*\*)?(T-?(\d{2,4}))(\*\*)?(.*)$`)
	headingRe  = lazyre.New(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	phaseRe    = lazyre.New(`^\S+\s*\d+(?:\.\d+)*\s*[:：\-—–]`)
	labelRe    = lazyre.New(`^\[(P|US\d+|[\pL][\pL\pN_-]{0,40})\]`)
	trailingP  = lazyre.New(`\s*\[P\]\s*$`)
	droppedRe  = lazyre.New(`(?i)(^|\(|~~|\[)\s*dropped\b`)
	filesRe    = lazyre.New(`^\s+[-*]\s+\*\*(?:Files?|Paths?)\*\*\s*[:：]\s*(.*)$`)
	acRe       = lazyre.New(`^\s+[-*]\s+\*\*AC\*\*\s*[:：]\s*(.*)$`)
	backtickRe = lazyre.New("`([^`]{1,512})`")
	fenceRe    = lazyre.New("^\\s{0,3}(```|~~~)")
)

// pathWords are the words after which a bare token is read as a path
// ("in src/x.py", localised spellings included).
var pathWords = map[string]bool{
	"in": true, "at": true, "into": true, "to": true, "under": true, "file": true,
	"en": true, "em": true, "dans": true, "im": true, "na": true, "no": true, "della": true, "nel": true,
	"в": true, "在": true, "于": true, "に": true, "で": true,
}

// ParseTasks reads a tasks.md without a repository at hand: only
// file-like tokens are paths (see ParseTasksIn).
func ParseTasks(data []byte) Tasks { return ParseTasksIn(data, nil) }

// ParseTasksIn reads a tasks.md. It never fails: lines that are not task
// lines (prose, checkboxes without a task id, fenced examples, HTML
// comments) are skipped. The paths a task names are read by the one prose
// rule (refpath.Prose), exists answering for the repository: a route
// ("/api/v2/contacts"), URL, glob or command is never a path.
func ParseTasksIn(data []byte, exists func(string) bool) Tasks {
	pt := func(s string) (string, bool) { return pathToken(s, exists) }
	var out Tasks
	seen := map[string]int{}
	section := ""
	phase := -1
	fence := ""
	comment := false
	var cur *Task // the last task, for its indented sub-bullets
	lines := strings.Split(strings.ToValidUTF8(string(data), "\uFFFD"), "\n")
	for n, line := range lines {
		line = strings.TrimRight(line, "\r")
		if len(line) > maxLineLen {
			line = line[:maxLineLen]
		}
		if m := fenceRe().FindStringSubmatch(line); m != nil {
			switch {
			case fence == "":
				fence = m[1]
			case fence == m[1]:
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if comment {
			if strings.Contains(line, "-->") {
				comment = false
			}
			continue
		}
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "<!--") {
			comment = !strings.Contains(t, "-->")
			continue
		}
		if m := headingRe().FindStringSubmatch(line); m != nil {
			text := cleanHeading(m[2])
			level := len(m[1])
			if phaseRe().MatchString(text) || level == 2 {
				section = text
				phase = -1
			}
			cur = nil
			continue
		}
		if m := taskRe().FindStringSubmatch(line); m != nil && idEnds(m[6]) {
			suffix := ""
			if m[5] == "" {
				suffix, m[6] = idSuffix(m[6], m[2] != "")
			}
			if len(out.Tasks) >= maxTasks {
				out.Truncated = true // nothing after it is read: stop here
				break
			}
			if phase < 0 && section != "" {
				out.Phases = append(out.Phases, section)
				phase = len(out.Phases) - 1
			}
			t := Task{ID: "T" + m[4] + suffix, Raw: m[3] + suffix, Done: m[1] != " ", Section: section, Phase: phase, Line: n + 1}
			desc := strings.TrimSpace(m[6])
			desc, t.Labels = takeLabels(desc)
			t.Dropped = t.Done && droppedRe().MatchString(desc)
			t.Title = oneLine(desc)
			t.Paths = descPaths(desc, nil, pt)
			if k, dup := seen[t.ID]; dup {
				if k == 1 {
					out.Duplicates = append(out.Duplicates, t.ID)
				}
			}
			seen[t.ID]++
			out.Tasks = append(out.Tasks, t)
			cur = &out.Tasks[len(out.Tasks)-1]
			continue
		}
		if cur == nil {
			continue
		}
		switch {
		case filesRe().MatchString(line):
			rest := filesRe().FindStringSubmatch(line)[1]
			cur.Paths = addPaths(cur.Paths, filesPaths(rest, pt)...)
		case acRe().MatchString(line):
			rest := acRe().FindStringSubmatch(line)[1]
			cur.Paths = addPaths(cur.Paths, acPaths(rest, pt)...)
		case strings.TrimSpace(line) == "":
		case line[0] == ' ' || line[0] == '\t':
			// another sub-bullet or a continuation of the task: not a path source
		default:
			cur = nil
		}
	}
	return out
}

// idEnds reports whether the text after a task id ends the id: nothing, or
// a character that cannot continue a word (T0145 is no task T014).
func idEnds(rest string) bool {
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_')
}

// idSuffixRe is the suffix of a task split in parts: T071-A, T071-B,
// T014.1, T014-2. (Written T014a, a letter glued to the number, the line
// stays no task: the id must end at a non-word character.)
var idSuffixRe = lazyre.New(`^((?:-[A-Za-z]{1,2})|(?:[-.]\d{1,2}))`)

// idSuffix takes a part suffix off the text after a task id when it ends
// the id (a character that cannot continue a word follows it, or the
// closing "**" of a bold id), and returns the suffix (letters upper-cased)
// and the rest. Without one, rest is returned unchanged: "T014-setup" stays
// task T014.
func idSuffix(rest string, bold bool) (string, string) {
	m := idSuffixRe().FindString(rest)
	if m == "" {
		return "", rest
	}
	after := rest[len(m):]
	if bold {
		if !strings.HasPrefix(after, "**") {
			return "", rest
		}
		after = after[2:]
	}
	if !idEnds(after) {
		return "", rest
	}
	return strings.ToUpper(m), after
}

// cleanHeading strips emphasis, decorations (✅, 🎯) and spacing from a
// heading, keeping its words.
func cleanHeading(s string) string {
	s = strings.NewReplacer("**", "", "__", "", "`", "").Replace(s)
	s = strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.Is(unicode.So, r) || unicode.Is(unicode.Sk, r) || r == '\uFE0F' || r == '\u200D'
	})
	return oneLine(s)
}

// takeLabels removes the leading labels ([P] [US1] [Word], any order) and a
// trailing [P] from a task's description.
func takeLabels(desc string) (string, []string) {
	var labels []string
	for len(labels) < 16 {
		m := labelRe().FindStringSubmatch(desc)
		if m == nil {
			break
		}
		labels = append(labels, "["+m[1]+"]")
		desc = strings.TrimSpace(desc[len(m[0]):])
	}
	if loc := trailingP().FindStringIndex(desc); loc != nil && !hasLabel(labels, "[P]") {
		labels = append(labels, "[P]")
		desc = strings.TrimSpace(desc[:loc[0]])
	}
	return desc, labels
}

func hasLabel(labels []string, l string) bool {
	for _, x := range labels {
		if x == l {
			return true
		}
	}
	return false
}

// oneLine bounds text for a title (textfmt.Title).
func oneLine(s string) string { return textfmt.Title(s, maxTitleLen) }

// descPaths finds the paths a task description names: backticked tokens
// that look like paths, bare tokens after "in" (or a localised word) that
// look like paths, bare tokens holding a folder and an extension, and a
// bare file name after a path, relative to that path's folder.
func descPaths(desc string, out []string, pathToken func(string) (string, bool)) []string {
	for _, m := range backtickRe().FindAllStringSubmatch(desc, maxTaskPaths) {
		if p, ok := pathToken(m[1]); ok {
			out = addPaths(out, p)
		}
	}
	plain := backtickRe().ReplaceAllString(desc, " ")
	words := strings.Fields(plain)
	prevDir := ""
	for i, w := range words {
		if len(out) >= maxTaskPaths {
			break
		}
		tok := strings.TrimRight(strings.TrimLeft(w, "(\"'"), ".,;:)\"'")
		p, ok := pathToken(tok)
		if !ok {
			continue
		}
		after := i > 0 && pathWords[strings.ToLower(strings.TrimRight(words[i-1], ":"))]
		hasDir := strings.Contains(p, "/")
		switch {
		case hasDir && (after || path.Ext(p) != ""):
			out = addPaths(out, p)
			prevDir = path.Dir(p)
		case !hasDir && after:
			out = addPaths(out, p)
		case !hasDir && prevDir != "" && path.Ext(p) != "":
			out = addPaths(out, path.Join(prevDir, p))
		}
	}
	return out
}

// filesPaths reads a `- **Files**:` sub-bullet: backticked paths, else
// comma-separated ones (a trailing "(new)" dropped).
func filesPaths(rest string, pathToken func(string) (string, bool)) []string {
	var out []string
	if ms := backtickRe().FindAllStringSubmatch(rest, maxTaskPaths); len(ms) > 0 {
		for _, m := range ms {
			if p, ok := pathToken(m[1]); ok {
				out = append(out, p)
			}
		}
		return out
	}
	for _, part := range strings.Split(rest, ",") {
		if p, ok := refpath.Output(part); ok {
			if c, ok := pathToken(p); ok {
				out = append(out, c)
			}
		}
	}
	return out
}

// acPaths reads an `**AC**:` line: only tokens with a "/" or an extension.
func acPaths(rest string, pathToken func(string) (string, bool)) []string {
	var out []string
	for _, m := range backtickRe().FindAllStringSubmatch(rest, maxTaskPaths) {
		if p, ok := pathToken(m[1]); ok {
			out = append(out, p)
		}
	}
	plain := backtickRe().ReplaceAllString(rest, " ")
	for _, w := range strings.Fields(plain) {
		tok := strings.TrimRight(strings.TrimLeft(w, "(\"'"), ".,;:)\"'")
		if p, ok := pathToken(tok); ok {
			out = append(out, p)
		}
	}
	return out
}

// pathToken is refpath.Token: the one prose rule, and not a version.
func pathToken(s string, exists func(string) bool) (string, bool) { return refpath.Token(s, exists) }

// addPaths appends the paths not yet in list, up to maxTaskPaths.
func addPaths(list []string, ps ...string) []string {
	return refpath.AppendNew(list, maxTaskPaths, ps...)
}
