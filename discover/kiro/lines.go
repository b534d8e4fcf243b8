package kiro

// The small readers of a task line: indentation, titles, paths, fences,
// headings, boxes, ids (tasks.go holds the grammar that uses them).

import (
	"github.com/orchestrate-dev/orchestrate/internal/textfmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
)

// indent measures leading whitespace (a tab counts 4 columns).
func indent(s string) int {
	n := 0
	for _, r := range s {
		if r == '\t' {
			n += 4
		} else {
			n++
		}
	}
	return n
}

// oneLine bounds text for a title (textfmt.Title).
func oneLine(s string) string { return textfmt.Title(s, maxTitleLen) }

// clipCut is where textfmt.Clip(s, n) cuts s: len(s) when it fits, else
// the last rune start at or before n.
func clipCut(s string, n int) int {
	if len(s) <= n {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// clip is textfmt.Clip.
func clip(s string, n int) string { return textfmt.Clip(s, n) }

// descPaths finds the paths a text names: backticked tokens that are
// paths, and bare tokens holding a folder and a known extension.
func descPaths(desc string, out []string, exists func(string) bool) []string {
	plain := desc
	if strings.IndexByte(desc, '`') >= 0 {
		spans, slash := backtickSpans(desc)
		for _, sp := range spans {
			if p, ok := pathToken(sp, exists); ok {
				out = addPaths(out, p)
			}
		}
		if !slash {
			return out // no folder outside the spans: no bare path
		}
		_, plain = backticks(desc)
	}
	if !strings.Contains(plain, "/") {
		return out
	}
	for _, w := range strings.Fields(plain) {
		if len(out) >= maxTaskPaths {
			break
		}
		tok := trimRightSet(trimLeftSet(w, "(\"'["), ".,;:)\"']")
		if !strings.Contains(tok, "/") || path.Ext(tok) == "" {
			continue
		}
		if p, ok := pathToken(tok, exists); ok {
			out = addPaths(out, p)
		}
	}
	return out
}

// filesPaths reads a `File: …` / `Files: …` detail (refpath.Listed).
func filesPaths(rest string, exists func(string) bool) []string {
	spans, _ := backticks(rest)
	return refpath.Listed(rest, spans, exists)
}

// pathToken is refpath.Token: the one prose rule, and not a version.
func pathToken(s string, exists func(string) bool) (string, bool) { return refpath.Token(s, exists) }

// addPaths appends the paths not yet in list, up to maxTaskPaths.
func addPaths(list []string, ps ...string) []string {
	return refpath.AppendNew(list, maxTaskPaths, ps...)
}

// fence is the fence a line (without its indentation) opens or closes,
// "" for none.
func fence(trim string) string {
	switch {
	case strings.HasPrefix(trim, "```"):
		return "```"
	case strings.HasPrefix(trim, "~~~"):
		return "~~~"
	}
	return ""
}

// heading reads a heading line (trim is the line without indentation):
// its text, and whether it is one (source.Heading).
func heading(trim, line string) (string, bool) {
	if !strings.HasPrefix(trim, "#") {
		return "", false
	}
	_, text, ok := source.Heading(line)
	return text, ok
}

// isRefID reports whether s is a numbered task or requirement id: the
// regular expression `^\d+(?:\.\d+)*$` (ASCII digits) read by hand.
func isRefID(s string) bool {
	digits := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && digits > 0 && i+1 < len(s):
			digits = 0
		default:
			return false
		}
	}
	return digits > 0
}

// hasFoldPrefix is strings.HasPrefix(strings.ToLower(s), word) for a
// lower-case ASCII word, without the copy when the start of s is ASCII
// (two other characters lower-case to ASCII letters: U+0130 to i, the
// Kelvin sign to k; those starts go through strings.ToLower).
func hasFoldPrefix(s, word string) bool {
	for i := 0; i < len(word); i++ {
		if i >= len(s) {
			return false
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			return strings.HasPrefix(strings.ToLower(s), word)
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != word[i] {
			return false
		}
	}
	return true
}

// trimLeftSet is strings.TrimLeft for a cutset of ASCII characters,
// without building the set on every call.
func trimLeftSet(s, set string) string {
	i := 0
	for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
		i++
	}
	return s[i:]
}

// trimRightSet is strings.TrimRight for a cutset of ASCII characters.
func trimRightSet(s, set string) string {
	i := len(s)
	for i > 0 && strings.IndexByte(set, s[i-1]) >= 0 {
		i--
	}
	return s[:i]
}

// colonIndex is strings.IndexAny(s, ":：") for valid UTF-8 s: the first
// ASCII or full-width colon, -1 for none.
func colonIndex(s string) int {
	i := strings.IndexByte(s, ':')
	limit := s
	if i >= 0 {
		limit = s[:i]
	}
	if j := strings.Index(limit, "："); j >= 0 {
		return j
	}
	return i
}

// parallelLoc finds cc-sdd's (P) marker in a task's text: where the
// regular expression `\s*\(P\)\s*` (RE2's \s: [\t\n\f\r ]) first matches,
// read by hand: the first "(P)" with the blanks on both sides of it; nil
// for none.
func parallelLoc(s string) []int {
	j := strings.Index(s, "(P)")
	if j < 0 {
		return nil
	}
	start, end := j, j+len("(P)")
	for start > 0 && isSpaceRE(s[start-1]) {
		start--
	}
	for end < len(s) && isSpaceRE(s[end]) {
		end++
	}
	return []int{start, end}
}

// isSpaceRE reports whether c is in RE2's \s: [\t\n\f\r ].
func isSpaceRE(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// box reads a checkbox list item by hand (the grammar of Rule B3.1 before
// the id): indent, a bullet, blanks, "[", one character, "]", an optional
// star; it returns {line, indent, state, star, rest} or nil.
func box(line string) []string {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	ind := line[:i]
	if i >= len(line) || strings.IndexByte("-*+", line[i]) < 0 {
		return nil
	}
	i++
	j := i
	for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
		j++
	}
	if j == i || j >= len(line) || line[j] != '[' {
		return nil
	}
	j++
	r, size := utf8.DecodeRuneInString(line[j:])
	if size == 0 || r == ']' {
		return nil
	}
	k := j + size
	if k >= len(line) || line[k] != ']' {
		return nil
	}
	k++
	star := ""
	if k < len(line) && line[k] == '*' {
		star, k = "*", k+1
	}
	return []string{line, ind, line[j : j+size], star, line[k:]}
}

// firstToken splits off the first blank-separated token of s.
func firstToken(s string) (tok, rest string) {
	s = trimLeftSet(s, " \t")
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' || s[i] == '\t' {
			return s[:i], s[i:]
		}
	}
	return s, ""
}

// backticks returns the backticked spans of s (at most maxTaskPaths, each
// 1…512 bytes) and s with every span replaced by a blank.
func backticks(s string) ([]string, string) {
	var spans []string
	var b strings.Builder
	backtickScan(s, func(t string) { b.WriteString(t) }, func(sp string) {
		if len(spans) < maxTaskPaths {
			spans = append(spans, sp)
		}
		b.WriteByte(' ')
	})
	return spans, b.String()
}

// backtickSpans is backticks without building the text outside the
// spans: the spans, and whether that text holds a "/".
func backtickSpans(s string) (spans []string, slash bool) {
	backtickScan(s, func(t string) { slash = slash || strings.IndexByte(t, '/') >= 0 }, func(sp string) {
		if len(spans) < maxTaskPaths {
			spans = append(spans, sp)
		}
	})
	return spans, slash
}

// backtickScan reads s as backticks does, the one rule of both: text gets
// each piece of s outside the spans in order, span each span (1…512
// bytes between two backticks; an empty or longer pair is text, both
// backticks included), after the text before it.
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
		if sp := s[i+1 : i+1+j]; j > 0 && j <= 512 {
			text(s[:i])
			span(sp)
		} else {
			text(s[:i+1+j+1])
		}
		s = s[i+1+j+1:]
	}
	text(s)
}

// taskID reads a task id token (Rule B3.1): 2, 2.1, 0.V, M24-T002, bold
// (**2.1**), with a star on it (12.7*: optional) and a trailing ".", ":"
// or ")". ok is false for any other token.
func taskID(tok string) (id string, star, ok bool) {
	if b, found := strings.CutPrefix(tok, "**"); found {
		k := strings.Index(b, "**")
		if k <= 0 {
			return "", false, false
		}
		tok = b[:k] + b[k+2:]
	}
	punct := false
	for n := 0; n < 3 && tok != ""; n++ {
		switch c := tok[len(tok)-1]; {
		case c == '*':
			star = true
		case (c == '.' || c == ':' || c == ')') && !punct:
			punct = true
		default:
			n = 3
			continue
		}
		tok = tok[:len(tok)-1]
	}
	if tok == "" || !idShape(tok) {
		return "", false, false
	}
	return tok, star, true
}

// idShape reports whether s is \d+(\.[0-9A-Za-z]+)* or
// [A-Z]{1,4}-?\d+([-.][0-9A-Za-z]+)*.
func idShape(s string) bool {
	i := 0
	for i < len(s) && s[i] >= 'A' && s[i] <= 'Z' {
		i++
	}
	letters := i
	if letters > 4 {
		return false
	}
	if letters > 0 && i < len(s) && s[i] == '-' {
		i++
	}
	d := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == d {
		return false
	}
	for i < len(s) {
		if s[i] != '.' && (letters == 0 || s[i] != '-') {
			return false
		}
		i++
		k := i
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
			i++
		}
		if i == k {
			return false
		}
	}
	return true
}

// boxLines counts the lines of text that may be task lines: a list marker
// ("-", "*" or "+") after blanks, blanks, then "[" — at least every line
// box matches, and little more. ParseTasksIn sizes its tasks with it.
func boxLines(text string) int {
	n := 0
	for line := range strings.Lines(text) {
		i := 0
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) || (line[i] != '-' && line[i] != '*' && line[i] != '+') {
			continue
		}
		j := i + 1
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		if j > i+1 && j < len(line) && line[j] == '[' {
			n++
		}
	}
	return n
}
