package tolerant

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The fast path of DecodeYAMLMap: a decoder of the YAML subset that tools
// write state files in (block mappings and block sequences, one-line
// plain, single- and double-quoted scalars, one-line flow collections of
// those, comments), which gives exactly the values the yaml.v3 path gives
// (decodeYAMLNode, keepFloatText, Decode, normalize) or declines. It
// declines everything else, and anything it is not sure of: anchors,
// aliases, tags, flow collections over several lines or past flowParser's
// subset, block and multi-line scalars, tabs, carriage returns, byte-order
// marks, Unicode line breaks and control characters, document markers and
// directives, complex and non-string keys, duplicate keys, merge keys,
// indentation that is not a clean block structure, and documents near the
// node and depth limits. A declined document is decoded by yaml.v3, which
// gives the values or the error (the fast path never produces an error).
// A bench state file (10 KiB, 300 paths) decodes about 8 times faster
// (BenchmarkDecodeState*): the workflow states of 200 such files took
// 0.21 s of CPU a run through yaml.v3, 0.03 s through the fast path.
// FuzzFastYAML checks it against yaml.v3 on the same bytes.

// Limits of the fast path, well inside the yaml.v3 path's own (MaxDepth,
// MaxNodes; a simple key of yaml.v3 is at most 1024 characters).
const (
	fastMaxDepth   = MaxDepth / 2
	fastMaxKeySize = 512
)

// fastMaxNodes bounds the nodes of a document the fast path decodes (a
// variable so that a test can lower it).
var fastMaxNodes = MaxNodes / 2

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
	// before anything is allocated; every byte adds at most 6 to the
	// bound: a short document is within it
	if len(data) > maxYAMLBound/6-1 && yamlNodeBound(data) > maxYAMLBound {
		return nil, false
	}
	lines, ok := fastLines(data)
	if !ok || len(lines) == 0 || isSeqEntry(lines[0].text) {
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
	// room for lines of 32 bytes: blank lines take none
	lines := make([]fastLine, 0, len(s)/32+1)
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
	var v any
	var ok bool
	if r[0] == '[' || r[0] == '{' {
		v, ok = p.flowLine(r, depth+1)
	} else {
		v, ok = scalar(r)
		ok = ok && p.count()
	}
	if !ok {
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
	if !plainStart(text) || strings.IndexByte(text, ':') < 0 {
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
	if strings.IndexByte(r, ':') < 0 && strings.IndexByte(r, '#') < 0 {
		return resolvePlain(strings.TrimRight(r, " "))
	}
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

// flowLine decodes the flow collection r starts with, which must end on
// its line (only a comment may follow it).
func (p *fastParser) flowLine(r string, depth int) (any, bool) {
	f := flowParser{p: p, s: r}
	v, ok := f.collection(depth)
	if !ok {
		return nil, false
	}
	tail := strings.TrimLeft(r[f.k:], " ")
	if tail != "" && (tail[0] != '#' || len(tail) == len(r[f.k:])) {
		return nil, false
	}
	return v, true
}

// flowParser decodes a one-line flow collection of the subset: flow
// sequences and mappings of plain and quoted scalars and of flow
// collections, separated by ", " (spaces optional), mapping keys followed
// by ": ". Plain scalars holding ":", "#" or a quote, empty entries,
// single-pair mappings inside sequences ("[a: 1]"), "?" keys and trailing
// commas are declined.
type flowParser struct {
	p *fastParser
	s string
	k int
}

// spaces skips spaces.
func (f *flowParser) spaces() {
	for f.k < len(f.s) && f.s[f.k] == ' ' {
		f.k++
	}
}

// collection decodes the sequence or mapping at f.k.
func (f *flowParser) collection(depth int) (any, bool) {
	if depth > fastMaxDepth || !f.p.count() {
		return nil, false
	}
	open := f.s[f.k]
	closer := byte(']')
	if open == '{' {
		closer = '}'
	}
	f.k++
	f.spaces()
	var seq []any
	var m map[string]any
	if open == '[' {
		seq = []any{}
	} else {
		m = map[string]any{}
	}
	if f.k < len(f.s) && f.s[f.k] == closer {
		f.k++
		if open == '[' {
			return seq, true
		}
		return m, true
	}
	for {
		if open == '[' {
			v, ok := f.node(depth)
			if !ok {
				return nil, false
			}
			seq = append(seq, v)
		} else {
			key, ok := f.key()
			if !ok {
				return nil, false
			}
			if _, dup := m[key]; dup {
				return nil, false
			}
			v, ok := f.node(depth)
			if !ok {
				return nil, false
			}
			m[key] = v
		}
		f.spaces()
		if f.k >= len(f.s) {
			return nil, false
		}
		switch f.s[f.k] {
		case closer:
			f.k++
			if open == '[' {
				return seq, true
			}
			return m, true
		case ',':
			f.k++
			f.spaces()
			if f.k >= len(f.s) || f.s[f.k] == ']' || f.s[f.k] == '}' || f.s[f.k] == ',' {
				return nil, false // a trailing comma or an empty entry
			}
		default:
			return nil, false
		}
	}
}

// key decodes a flow mapping's key and its ": ".
func (f *flowParser) key() (string, bool) {
	if f.k >= len(f.s) {
		return "", false
	}
	var key string
	if c := f.s[f.k]; c == '"' || c == '\'' {
		k, n, ok := quoted(f.s[f.k:])
		if !ok || k == "<<" {
			return "", false
		}
		key = k
		f.k += n
	} else {
		v, n, ok := f.plain(true)
		s, isStr := v.(string)
		if !ok || !isStr || s == "<<" || n == 0 {
			return "", false
		}
		key = s
		f.k += n
	}
	if len(key) > fastMaxKeySize || f.k+1 >= len(f.s) || f.s[f.k] != ':' || f.s[f.k+1] != ' ' {
		return "", false
	}
	f.k += 2
	f.spaces()
	return key, true
}

// node decodes the value at f.k: a nested collection or a scalar.
func (f *flowParser) node(depth int) (any, bool) {
	if f.k >= len(f.s) {
		return nil, false
	}
	switch c := f.s[f.k]; c {
	case '[', '{':
		return f.collection(depth + 1)
	case '"', '\'':
		s, n, ok := quoted(f.s[f.k:])
		if !ok || !f.p.count() {
			return nil, false
		}
		f.k += n
		return s, true
	}
	v, n, ok := f.plain(false)
	if !ok || n == 0 || !f.p.count() {
		return nil, false
	}
	f.k += n
	return v, true
}

// plain decodes the plain scalar at f.k and its length: up to a flow
// indicator (or, for a key, ": "), trailing spaces dropped; false for one
// that starts with an indicator or holds ":", "#" or a quote.
func (f *flowParser) plain(key bool) (any, int, bool) {
	r := f.s[f.k:]
	if r == "" || !plainStart(r) {
		return nil, 0, false
	}
	end := 0
	for end < len(r) {
		switch r[end] {
		case ',', '[', ']', '{', '}':
			goto done
		case ':':
			if !key || end+1 == len(r) || r[end+1] != ' ' {
				return nil, 0, false
			}
			goto done
		case '#', '"', '\'':
			return nil, 0, false
		}
		end++
	}
done:
	n := end
	for n > 0 && r[n-1] == ' ' {
		n--
	}
	v, ok := resolvePlain(r[:n])
	return v, n, ok
}
