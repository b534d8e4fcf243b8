package tolerant

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The fast path of DecodeYAMLMap: a decoder of the block-YAML subset that
// tools write state files in (block mappings and block sequences, one-line
// plain, single- and double-quoted scalars, comments), which gives exactly
// the values the yaml.v3 path gives (decodeYAMLNode, keepFloatText,
// Decode, normalize) or declines. It declines everything else, and
// anything it is not sure of: anchors, aliases, tags, flow collections,
// block and multi-line scalars, tabs, carriage returns, byte-order marks,
// Unicode line breaks and control characters, document markers and
// directives, complex and non-string keys, duplicate keys, merge keys,
// indentation that is not a clean block structure, and documents near the
// node and depth limits. A declined document is decoded by yaml.v3, which
// gives the values or the error (the fast path never produces an error).
// On the workflow states of a bench shape (200 files of 300 paths) it took
// the decoding from about 0.2 s of CPU a run to a few hundredths.
// FuzzFastYAML checks it against yaml.v3 on the same bytes.

// Limits of the fast path, well inside the yaml.v3 path's own (MaxDepth,
// MaxNodes; a simple key of yaml.v3 is at most 1024 characters).
const (
	fastMaxDepth   = MaxDepth / 2
	fastMaxNodes   = MaxNodes / 2
	fastMaxKeySize = 512
)

// fastLine is one line holding content: its indentation (spaces) and its
// text after them, without the line break.
type fastLine struct {
	ind  int
	text string
}

// fastParser decodes the lines of one document.
type fastParser struct {
	lines []fastLine
	i     int
	nodes int
}

// fastDecodeYAMLMap is the fast path: the document's mapping, or ok false
// when it declines (the caller then uses yaml.v3).
func fastDecodeYAMLMap(data []byte) (m map[string]any, ok bool) {
	lines, ok := fastLines(data)
	if !ok || len(lines) == 0 || isSeqEntry(lines[0].text) {
		return nil, false
	}
	if yamlNodeBound(data) > maxYAMLBound {
		return nil, false
	}
	p := fastParser{lines: lines}
	m, ok = p.mapping(lines[0].ind, 1)
	if !ok || p.i != len(p.lines) {
		return nil, false
	}
	return m, true
}

// fastLines splits data into its content lines (blank lines and whole-line
// comments dropped), declining any character the subset does not hold:
// anything but a line feed, printable ASCII and non-ASCII text other than
// C1 controls, NEL, the Unicode line and paragraph separators, the
// byte-order mark and U+FFFE/U+FFFF; and declining document markers and
// directives.
func fastLines(data []byte) ([]fastLine, bool) {
	if !utf8.Valid(data) {
		return nil, false
	}
	s := string(data)
	lines := make([]fastLine, 0, strings.Count(s, "\n")+1)
	for len(s) > 0 {
		var line string
		if j := strings.IndexByte(s, '\n'); j >= 0 {
			line, s = s[:j], s[j+1:]
		} else {
			line, s = s, ""
		}
		for k := 0; k < len(line); k++ {
			c := line[k]
			if c >= 0x20 && c < 0x7F {
				continue
			}
			if c < 0x80 {
				return nil, false // a control character, a tab, CR or DEL
			}
			r, size := utf8.DecodeRuneInString(line[k:])
			if r < 0xA0 || r == 0x2028 || r == 0x2029 || r == 0xFEFF || r == 0xFFFE || r == 0xFFFF {
				return nil, false
			}
			k += size - 1
		}
		ind := 0
		for ind < len(line) && line[ind] == ' ' {
			ind++
		}
		text := line[ind:]
		if text == "" || text[0] == '#' {
			continue
		}
		if ind == 0 && (text[0] == '%' || strings.HasPrefix(text, "---") || strings.HasPrefix(text, "...")) {
			return nil, false
		}
		lines = append(lines, fastLine{ind: ind, text: text})
	}
	return lines, true
}

// isSeqEntry reports whether a line's text starts a block sequence entry.
func isSeqEntry(text string) bool {
	return text[0] == '-' && (len(text) == 1 || text[1] == ' ')
}

// count counts one node, false past the limit.
func (p *fastParser) count() bool {
	p.nodes++
	return p.nodes <= fastMaxNodes
}

// block decodes the mapping or sequence starting at the current line.
func (p *fastParser) block(depth int) (any, bool) {
	l := p.lines[p.i]
	if isSeqEntry(l.text) {
		return p.sequence(l.ind, depth)
	}
	return p.mapping(l.ind, depth)
}

// mapping decodes the block mapping whose keys are at indentation ind,
// starting at the current line.
func (p *fastParser) mapping(ind, depth int) (map[string]any, bool) {
	if depth > fastMaxDepth || !p.count() {
		return nil, false
	}
	m := map[string]any{}
	for p.i < len(p.lines) && p.lines[p.i].ind == ind {
		key, rest, ok := splitKey(p.lines[p.i].text)
		if !ok || !p.count() {
			return nil, false
		}
		if _, dup := m[key]; dup {
			return nil, false
		}
		p.i++
		v, ok := p.value(rest, ind, true, depth)
		if !ok {
			return nil, false
		}
		m[key] = v
	}
	if p.i < len(p.lines) && p.lines[p.i].ind > ind {
		return nil, false
	}
	return m, true
}

// sequence decodes the block sequence whose entries are at indentation ind,
// starting at the current line.
func (p *fastParser) sequence(ind, depth int) ([]any, bool) {
	if depth > fastMaxDepth || !p.count() {
		return nil, false
	}
	var s []any
	for p.i < len(p.lines) && p.lines[p.i].ind == ind && isSeqEntry(p.lines[p.i].text) {
		rest := p.lines[p.i].text[1:]
		r := strings.TrimLeft(rest, " ")
		if r != "" && r[0] != '#' {
			if isSeqEntry(r) {
				return nil, false // "- - a"
			}
			if _, _, ok := splitKey(r); ok {
				// "- a: 1": a mapping at the key's column, as if the
				// key began the next line there
				p.lines[p.i] = fastLine{ind: ind + len(p.lines[p.i].text) - len(r), text: r}
				m, ok := p.mapping(p.lines[p.i].ind, depth+1)
				if !ok {
					return nil, false
				}
				s = append(s, m)
				continue
			}
		}
		p.i++
		v, ok := p.value(rest, ind, false, depth)
		if !ok {
			return nil, false
		}
		s = append(s, v)
	}
	if p.i < len(p.lines) && p.lines[p.i].ind > ind {
		return nil, false
	}
	return s, true
}

// value decodes what follows a key's colon (inMap) or an entry's dash,
// rest, on a line at indentation ind: a scalar on the line, or the block
// on the lines after it, or null.
func (p *fastParser) value(rest string, ind int, inMap bool, depth int) (any, bool) {
	if rest != "" && rest[0] != ' ' {
		return nil, false
	}
	r := strings.TrimLeft(rest, " ")
	if r == "" || r[0] == '#' {
		if p.i < len(p.lines) {
			next := p.lines[p.i]
			if next.ind > ind {
				return p.block(depth + 1)
			}
			if inMap && next.ind == ind && isSeqEntry(next.text) {
				return p.sequence(ind, depth+1)
			}
		}
		return nil, p.count()
	}
	v, ok := scalar(r)
	if !ok || !p.count() {
		return nil, false
	}
	if p.i < len(p.lines) && p.lines[p.i].ind > ind {
		return nil, false // a multi-line scalar, or an error
	}
	return v, true
}

// splitKey splits a mapping entry's text into its key and what follows the
// colon; false when the text is not a key the subset holds (a plain or
// quoted key resolving to a string, followed by ": " or a colon ending the
// line).
func splitKey(text string) (key, rest string, ok bool) {
	switch text[0] {
	case '"', '\'':
		k, n, ok := quoted(text)
		if !ok || n >= len(text) || text[n] != ':' || (n+1 < len(text) && text[n+1] != ' ') {
			return "", "", false
		}
		return k, text[n+1:], len(k) <= fastMaxKeySize && k != "<<"
	}
	if !plainStart(text) {
		return "", "", false
	}
	j := -1
	for k := 0; k < len(text); k++ {
		switch text[k] {
		case ':':
			if k+1 == len(text) || text[k+1] == ' ' {
				j = k
			}
		case '#':
			if text[k-1] == ' ' {
				return "", "", false
			}
		case ',', '[', ']', '{', '}':
			return "", "", false
		}
		if j >= 0 {
			break
		}
	}
	if j <= 0 || j > fastMaxKeySize || text[j-1] == ' ' {
		return "", "", false
	}
	key = text[:j]
	v, ok := resolvePlain(key)
	if s, isStr := v.(string); !ok || !isStr || s == "<<" {
		return "", "", false
	}
	return key, text[j+1:], true
}

// plainStart reports whether text can start a plain scalar of the subset:
// not an indicator, save "-" followed by text ("-1").
func plainStart(text string) bool {
	switch text[0] {
	case '-':
		return len(text) > 1 && text[1] != ' '
	case '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	}
	return true
}

// scalar decodes the one-line scalar r (not empty, no leading space) that
// ends its line, with any comment after it.
func scalar(r string) (any, bool) {
	if r[0] == '"' || r[0] == '\'' {
		s, n, ok := quoted(r)
		if !ok {
			return nil, false
		}
		tail := strings.TrimLeft(r[n:], " ")
		if tail != "" && (tail[0] != '#' || len(tail) == len(r[n:])) {
			return nil, false // text after the quote, or "#" not after a space
		}
		return s, true
	}
	if !plainStart(r) {
		return nil, false
	}
	end := len(r)
	for k := 1; k < len(r); k++ {
		switch r[k] {
		case '#':
			if r[k-1] == ' ' {
				end = k
			}
		case ':':
			if k+1 == len(r) || r[k+1] == ' ' {
				return nil, false // a key where a value was wanted
			}
		}
		if end < len(r) {
			break
		}
	}
	return resolvePlain(strings.TrimRight(r[:end], " "))
}

// quoted decodes the quoted scalar r starts with, on its line: its value
// and the length of its text with the quotes. Double-quoted escapes other
// than \\, \", \n and \t are declined (yaml.v3 refuses \/).
func quoted(r string) (string, int, bool) {
	q := r[0]
	var b strings.Builder
	plain := true // no escape met: the value is a substring
	for k := 1; k < len(r); k++ {
		c := r[k]
		switch {
		case c == q && q == '\'' && k+1 < len(r) && r[k+1] == '\'':
			if plain {
				b.WriteString(r[1:k])
				plain = false
			}
			b.WriteByte('\'')
			k++
		case c == q:
			if plain {
				return r[1:k], k + 1, true
			}
			return b.String(), k + 1, true
		case c == '\\' && q == '"':
			if k+1 == len(r) {
				return "", 0, false
			}
			var e byte
			switch r[k+1] {
			case '\\', '"':
				e = r[k+1]
			case 'n':
				e = '\n'
			case 't':
				e = '\t'
			default:
				return "", 0, false
			}
			if plain {
				b.WriteString(r[1:k])
				plain = false
			}
			b.WriteByte(e)
			k++
		default:
			if !plain {
				b.WriteByte(c)
			}
		}
	}
	return "", 0, false // not closed on its line
}

// resolvePlain gives the value yaml.v3's path (resolve, then keepFloatText)
// gives the plain scalar s: null, a bool, an int (uint64 past int64), a
// time for a timestamp, else the text (floats included); false for what
// the fast path leaves to yaml.v3 (a merge key, binary and octal forms
// that only yaml.v3's later tries would read).
func resolvePlain(s string) (any, bool) {
	if s == "" {
		return nil, true
	}
	switch c := s[0]; {
	case c == '+' || c == '-' || (c >= '0' && c <= '9'):
		if t, ok := parseTimestamp(s); ok {
			return t, true
		}
		plain := strings.ReplaceAll(s, "_", "")
		if v, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return int(v), true
		}
		if v, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return v, true
		}
		for _, pre := range []string{"0b", "-0b", "0o", "-0o"} {
			if strings.HasPrefix(plain, pre) {
				return nil, false
			}
		}
		return s, true // a float (kept as text) or text
	case c == '.':
		return s, true // a float (kept as text) or text
	case strings.IndexByte("yYnNtTfFoO~", c) >= 0:
		switch s {
		case "true", "True", "TRUE":
			return true, true
		case "false", "False", "FALSE":
			return false, true
		case "~", "null", "Null", "NULL":
			return nil, true
		}
		return s, true
	}
	if s == "<<" {
		return nil, false
	}
	return s, true
}

// timestampFormats and parseTimestamp are yaml.v3's (resolve.go), so that
// a timestamp decodes to the same time.
var timestampFormats = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

func parseTimestamp(s string) (time.Time, bool) {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			break
		}
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return time.Time{}, false
	}
	for _, format := range timestampFormats {
		if t, err := time.Parse(format, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
