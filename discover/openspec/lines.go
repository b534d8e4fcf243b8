package openspec

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
)

// The line readers of tasks.md: a fence, a task line by each CLI's rule,
// a requirement reference, read by hand where the expressions they
// replace cost too much on every line (see tasks.go for the parse).

// fenceMatch is fenceRe's match of a line that may open or close a fence
// (a cheap test first: most lines hold no ``` or ~~~).
func fenceMatch(line string) []string {
	if !strings.Contains(line, "```") && !strings.Contains(line, "~~~") {
		return nil
	}
	return fenceRe().FindStringSubmatch(line)
}

// taskMatch reads a task line by the current CLI's rule
// (`^\s*(?:[-*+]|\d{1,9}[.)])\s*\[([\sxX])\]\s*(.*)` in
// src/utils/task-progress.ts since 1.13.1; 1.8 to 1.13.0 knew only `-` and
// `*`), written out: the regular expression's Unicode classes cost too
// much on every line. It returns the box's content ("x", "X" or
// whitespace), the text after it, and the marker when it is `+` or an
// ordered one ("" for `-` and `*`); nil when the line is no task line.
func taskMatch(line string) []string {
	i := skipSpace(line, 0)
	if i >= len(line) {
		return nil
	}
	marker := ""
	switch c := line[i]; {
	case c == '-' || c == '*':
		i++
	case c == '+':
		marker = "+"
		i++
	case c >= '0' && c <= '9':
		j := i
		for j < len(line) && j-i < 10 && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		// one to nine ASCII digits (JavaScript's \d), then "." or ")"
		if j-i > 9 || j >= len(line) || (line[j] != '.' && line[j] != ')') {
			return nil
		}
		marker = line[i : j+1]
		i = j + 1
	default:
		return nil
	}
	i = skipSpace(line, i)
	if i >= len(line) || line[i] != '[' {
		return nil
	}
	r, n := utf8.DecodeRuneInString(line[i+1:])
	if r != 'x' && r != 'X' && !isJSSpace(r) {
		return nil
	}
	j := i + 1 + n
	if j >= len(line) || line[j] != ']' {
		return nil
	}
	return []string{line, line[i+1 : j], line[skipSpace(line, j+1):], marker}
}

// column0 reports a task line by the rule of the CLIs up to 1.7
// (`^[-*]\s+\[[\sx]\]`, case-insensitive):
// the marker at column 0, then whitespace, then the box.
func column0(line string) bool {
	if len(line) < 4 || (line[0] != '-' && line[0] != '*') {
		return false
	}
	i := skipSpace(line, 1)
	if i == 1 || i >= len(line) || line[i] != '[' {
		return false
	}
	r, n := utf8.DecodeRuneInString(line[i+1:])
	j := i + 1 + n
	return (r == 'x' || r == 'X' || isJSSpace(r)) && j < len(line) && line[j] == ']'
}

// skipSpace returns the index of the first rune at or after i that is not
// whitespace (isJSSpace).
func skipSpace(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isJSSpace(r) {
			return i
		}
		i += n
	}
	return i
}

// isJSSpace is JavaScript's \s, which the openspec CLI's patterns use: a
// tab or a no-break space inside the brackets is an open box.
func isJSSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', '\u00a0', '\u1680', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff':
		return true
	}
	return r >= '\u2000' && r <= '\u200a'
}

// mayRef reports whether text may hold a requirement reference (the words
// refRe looks for, in any case), before the regular expression runs.
func mayRef(text string) bool {
	for i := 0; i+3 <= len(text); i++ {
		switch text[i] | 0x20 {
		case 'r', 'v', 's':
			w := strings.ToLower(text[i:min(len(text), i+9)])
			if strings.HasPrefix(w, "req") || strings.HasPrefix(w, "validates") || strings.HasPrefix(w, "spec") {
				return true
			}
		}
	}
	return false
}

// refWords are refRe's words, in its order; each may end in an optional
// "s" (requirements?, reqs?) or not.
var refWords = [...]struct {
	word string
	optS bool
}{{"requirement", true}, {"req", true}, {"validates", false}, {"spec", false}}

// refMatch is refRe's first group in text, and whether it matched: the
// expression read by hand (its lazy group backtracked on every sub-bullet
// that names a requirement). A word may start the text or follow one of
// [\t\n\f\r (\[] (RE2's \s, a parenthesis, a bracket); it matches in any
// case, "s" also as U+017F (RE2's case folding), then blanks and a colon
// (ASCII or full-width). The group is the rest after the blanks, without
// the blanks, one closing parenthesis or bracket and the blanks that end
// the text; at least one character. A text holding a newline (never a
// line's) goes to the expression.
func refMatch(text string) (string, bool) {
	if strings.IndexByte(text, '\n') >= 0 {
		m := refRe().FindStringSubmatch(text)
		if m == nil {
			return "", false
		}
		return m[1], true
	}
	for at := 0; at < len(text); at++ {
		if at > 0 && !isRefStart(text[at-1]) {
			continue
		}
		for _, w := range refWords {
			end, ok := foldWord(text, at, w.word)
			if !ok {
				continue
			}
			// s? is greedy: with the "s" first, then without it
			ends := [2]int{-1, end}
			if w.optS {
				if e, ok := foldWord(text, end, "s"); ok {
					ends[0] = e
				}
			}
			for _, e := range ends {
				if e < 0 {
					continue
				}
				if group, ok := refGroup(text, e); ok {
					return group, true
				}
			}
		}
	}
	return "", false
}

// refGroup matches `\s*[:：]\s*(.+?)\s*[)\]]?\s*$` at text[i:]: the group,
// and whether it matched.
func refGroup(text string, i int) (string, bool) {
	for i < len(text) && isSpaceRE(text[i]) {
		i++
	}
	switch {
	case strings.HasPrefix(text[i:], ":"):
		i++
	case strings.HasPrefix(text[i:], "："):
		i += len("：")
	default:
		return "", false
	}
	r := text[i:]
	w := 0
	for w < len(r) && isSpaceRE(r[w]) {
		w++
	}
	if w == len(r) {
		if w == 0 {
			return "", false // (.+?) needs a character
		}
		return r[w-1:], true // \s* gives back its last blank
	}
	s := r[w:]
	e := len(s)
	for e > 0 && isSpaceRE(s[e-1]) {
		e--
	}
	if e > 0 && (s[e-1] == ')' || s[e-1] == ']') {
		e--
		for e > 0 && isSpaceRE(s[e-1]) {
			e--
		}
	}
	if e == 0 {
		_, e = utf8.DecodeRuneInString(s) // at least one character
	}
	return s[:e], true
}

// foldWord matches the lower-case ASCII word at text[i:] in any case ("s"
// also as U+017F): the end of the match, and whether it matched.
func foldWord(text string, i int, word string) (int, bool) {
	for k := 0; k < len(word); k++ {
		if i >= len(text) {
			return 0, false
		}
		c := text[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case c == word[k]:
			i++
		case word[k] == 's' && strings.HasPrefix(text[i:], "\u017f"):
			i += len("\u017f")
		default:
			return 0, false
		}
	}
	return i, true
}

// isRefStart reports whether c may stand before refRe's word: RE2's \s,
// "(" or "[".
func isRefStart(c byte) bool { return isSpaceRE(c) || c == '(' || c == '[' }

// isSpaceRE reports whether c is in RE2's \s: [\t\n\f\r ].
func isSpaceRE(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// leadingNumber takes a task's leading number off its text ("2.3 Do x",
// "**2.3** Do x", "2.3. Do x"; numRe written out): the number, the rest,
// and whether there was one. A number must end at a space or the end.
func leadingNumber(desc string) (num, rest string, ok bool) {
	s := strings.TrimPrefix(desc, "**")
	i, parts, digits := 0, 1, 0
scan:
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
			if digits > 4 {
				return "", desc, false
			}
		case c == '.' && digits > 0 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' && parts < 5:
			parts++
			digits = 0
		default:
			break scan
		}
	}
	if digits == 0 {
		return "", desc, false
	}
	num, s = s[:i], s[i:]
	s = strings.TrimPrefix(s, ".")
	s = strings.TrimPrefix(s, "**")
	if s != "" {
		r, _ := utf8.DecodeRuneInString(s)
		if !unicode.IsSpace(r) {
			return "", desc, false
		}
	}
	return num, s, true
}

// filesMatch is filesRe's match of a sub-bullet that may name files (it
// starts with "file" or "path", in any case).
func filesMatch(plain string) []string {
	if len(plain) < 4 {
		return nil
	}
	if w := strings.ToLower(plain[:4]); w != "file" && w != "path" {
		return nil
	}
	return filesRe().FindStringSubmatch(plain)
}

// labelRe is a hand-written task id opening a task line: letters, a
// hyphen, a number ("T-3", "**FB-1**:"), then space or the end.
var labelRe = lazyre.New(`^\*{0,2}([A-Za-z]{1,8}-[0-9]{1,4}(?:\.[0-9]{1,4}){0,3})\*{0,2}:?(?:\s+|$)`)

// labelID reads a hand-written id (NeoSHUSchedulingHelper's "T-3",
// linapro's "**FB-1**:") that names a task with no leading number.
func labelID(desc string) (id, rest string, ok bool) {
	m := labelRe().FindStringSubmatchIndex(desc)
	if m == nil {
		return "", desc, false
	}
	return desc[m[2]:m[3]], strings.TrimSpace(desc[m[1]:]), true
}

// boxLines counts the lines of text that may be task lines: those whose
// start taskMatch accepts (blanks, a marker, blanks, "[") — at least every
// line it matches, and little more. parseTasks sizes its tasks with it.
func boxLines(text string) int {
	n := 0
	for line := range strings.Lines(text) {
		i := skipSpace(line, 0)
		if i >= len(line) {
			continue
		}
		switch c := line[i]; {
		case c == '-' || c == '*' || c == '+':
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 10 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j-i > 9 || j >= len(line) || (line[j] != '.' && line[j] != ')') {
				continue
			}
			i = j + 1
		default:
			continue
		}
		if i = skipSpace(line, i); i < len(line) && line[i] == '[' {
			n++
		}
	}
	return n
}
