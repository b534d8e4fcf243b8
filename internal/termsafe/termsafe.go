// Package termsafe makes strings that came from a file, git or the
// environment safe to print on a terminal: every control character (C0, C1,
// DEL), every bidirectional override or isolate and every byte that is not
// UTF-8 is shown as a visible escape (ESC as \x1b, a carriage return as \r,
// U+202E as \u202e), so a value can never move the cursor, clear the
// screen, set the window title, reorder the text around it or start a line
// of its own. See docs/SECURITY.md.
package termsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// String escapes s for a single-line value: line feeds and tabs are shown as
// \n and \t too.
func String(s string) string { return escape(s, false) }

// Block escapes s for a block that legitimately spans lines: line feeds (and
// tabs) are kept, everything else String escapes is escaped.
func Block(s string) string { return escape(s, true) }

// unsafe reports whether r must be escaped (line feeds and tabs aside).
func unsafe(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true // bidi embeddings, overrides and isolates
	case r == 0x200e, r == 0x200f, r == 0x061c, r == 0x2028, r == 0x2029:
		return true // bidi marks, line and paragraph separators
	}
	return false
}

func escape(s string, block bool) string {
	i := firstUnsafe(s, block)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case block && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x100 && unsafe(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the offset of the first byte of s to escape, or -1.
func firstUnsafe(s string, block bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && !(block && (c == '\n' || c == '\t'))) || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size <= 1) || unsafe(r) {
			return i
		}
		i += size
	}
	return -1
}

// StripWriter writes to W what it is given with every escape sequence
// removed except SGR colour codes (ESC [ … m), and every other C0/C1
// control except line feed, tab and carriage return — a last line of
// defence under output that is already escaped value by value. Each Write
// is filtered on its own; a sequence split across writes is removed in
// parts.
type StripWriter struct {
	W interface{ Write([]byte) (int, error) }
}

// Write filters p and writes the rest to w.W; it reports len(p) written
// when the underlying write succeeds.
func (w StripWriter) Write(p []byte) (int, error) {
	out := Strip(p)
	if _, err := w.W.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Strip returns p without escape sequences other than SGR colour codes and
// without control characters other than \n, \t and \r.
func Strip(p []byte) []byte {
	if !hasControl(p) {
		return p
	}
	out := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == 0x1b:
			if n := sgrLen(p[i:]); n > 0 {
				out = append(out, p[i:i+n]...)
				i += n - 1
				continue
			}
			i += escLen(p[i:]) - 1
		case c == '\n' || c == '\t' || c == '\r':
			out = append(out, c)
		case c < 0x20 || c == 0x7f:
			// dropped
		case c == 0xc2 && i+1 < len(p) && p[i+1] >= 0x80 && p[i+1] <= 0x9f:
			i++ // a C1 control encoded in UTF-8
		default:
			out = append(out, c)
		}
	}
	return out
}

func hasControl(p []byte) bool {
	for i, c := range p {
		if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f {
			return true
		}
		if c == 0xc2 && i+1 < len(p) && p[i+1] >= 0x80 && p[i+1] <= 0x9f {
			return true
		}
	}
	return false
}

// sgrLen is the length of the SGR sequence ESC [ digits/; m at p[0], or 0.
func sgrLen(p []byte) int {
	if len(p) < 3 || p[1] != '[' {
		return 0
	}
	for i := 2; i < len(p) && i < 64; i++ {
		switch c := p[i]; {
		case c == 'm':
			return i + 1
		case (c >= '0' && c <= '9') || c == ';':
		default:
			return 0
		}
	}
	return 0
}

// escLen is the length of the escape sequence at p[0] (ESC): a CSI
// sequence up to its final byte, an OSC/DCS/APC/PM/SOS string up to BEL or
// ESC \, or ESC and one more byte.
func escLen(p []byte) int {
	if len(p) < 2 {
		return 1
	}
	switch p[1] {
	case '[':
		for i := 2; i < len(p); i++ {
			if p[i] >= 0x40 && p[i] <= 0x7e {
				return i + 1
			}
		}
		return len(p)
	case ']', 'P', '_', '^', 'X':
		for i := 2; i < len(p); i++ {
			if p[i] == 0x07 {
				return i + 1
			}
			if p[i] == 0x1b && i+1 < len(p) && p[i+1] == '\\' {
				return i + 2
			}
		}
		return len(p)
	}
	return 2
}

// JSON escapes, in an encoded JSON document, the characters encoding/json
// leaves as they are but a terminal acts on: C1 controls (U+0080–U+009F)
// and bidi overrides, isolates and marks, written as \uXXXX. They can only
// occur inside strings, so the document stays valid and decodes to the
// same values.
func JSON(doc []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(doc); {
		if doc[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(doc[i:])
		if r != utf8.RuneError && r >= 0x80 && unsafe(r) {
			if out == nil {
				out = make([]byte, 0, len(doc)+16)
			}
			out = append(out, doc[last:i]...)
			out = fmt.Appendf(out, `\u%04x`, r)
			last = i + size
		}
		i += size
	}
	if out == nil {
		return doc
	}
	return append(out, doc[last:]...)
}
