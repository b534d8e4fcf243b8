package source

import "strings"

// Heading reads a Markdown ATX heading line as the regular expression
// `^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$` does (\s being RE2's [\t\n\f\r ]),
// without it: at most three blanks, one to six "#", at least one blank,
// then the text without the closing "#"s and the blanks around them. It
// returns the number of "#", the text, and whether line is a heading. The
// formats that read tasks.md headings (OpenSpec, Kiro) share it.
func Heading(line string) (level int, text string, ok bool) {
	i := 0
	for i < len(line) && i < 4 && isSpaceRE(line[i]) {
		i++
	}
	if i > 3 {
		return 0, "", false
	}
	h := i
	for i < len(line) && line[i] == '#' {
		i++
	}
	level = i - h
	if level < 1 || level > 6 || i >= len(line) || !isSpaceRE(line[i]) {
		return 0, "", false
	}
	for i < len(line) && isSpaceRE(line[i]) {
		i++
	}
	rest := line[i:]
	e := len(rest)
	for e > 0 && isSpaceRE(rest[e-1]) {
		e--
	}
	for e > 0 && rest[e-1] == '#' {
		e--
	}
	for e > 0 && isSpaceRE(rest[e-1]) {
		e--
	}
	if strings.IndexByte(rest[:e], '\n') >= 0 {
		return 0, "", false // "." matches no newline (a line holds none)
	}
	return level, rest[:e], true
}

// isSpaceRE reports whether c is in RE2's \s: [\t\n\f\r ].
func isSpaceRE(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}
