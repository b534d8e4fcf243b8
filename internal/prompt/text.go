package prompt

import (
	"strings"
	"unicode"

	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
)

// printable reports whether r may be drawn as is: not a control character
// and not a format character (bidirectional overrides, zero-width marks),
// which could make a label look like another.
func printable(r rune) bool {
	return !unicode.IsControl(r) && !unicode.Is(unicode.Cf, r) && r != '\uFFFD'
}

// sanitize makes text from a repository safe to draw, by the policy every
// other output follows (internal/termsafe): control characters, bidi
// overrides and bytes that are not UTF-8 are shown as visible escapes
// (\x1b, \u202e); the format characters that remain (zero-width marks) and
// U+FFFD become '?', so a label cannot look like another.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if printable(r) {
			return r
		}
		return '?'
	}, termsafe.String(s))
}

// runeWidth is the number of terminal columns r takes (internal/termsafe,
// by github.com/mattn/go-runewidth): 0 for combining marks, 2 for wide
// East Asian characters and emoji, else 1.
func runeWidth(r rune) int { return termsafe.RuneWidth(r) }

// textWidth is the number of columns s takes.
func textWidth(s string) int { return termsafe.Width(s) }

// wrap cuts s (already sanitized) into lines of at most width columns, the
// lines after the first indented by indent spaces, so that the terminal
// never wraps a line itself and a redraw knows how many lines to erase.
// It cuts at spaces when it can.
func wrap(s string, width, indent int) []string {
	if width < 2 {
		width = 2
	}
	if indent > width/2 {
		indent = width / 2
	}
	var lines []string
	prefix := ""
	for {
		// One pass over at most a line's worth of s: wrapping stays
		// linear in len(s), however long a typed filter grows.
		avail := width - len(prefix) // prefix is spaces
		cut, lastSpace, w, fits := 0, -1, 0, true
		for i, r := range s {
			rw := runeWidth(r)
			if w+rw > avail {
				fits = false
				break
			}
			w += rw
			cut = i + len(string(r))
			if r == ' ' {
				lastSpace = i
			}
		}
		if fits {
			return append(lines, prefix+s)
		}
		if cut == 0 { // not even one character fits: take one anyway
			_, n := firstRune(s)
			cut = n
		}
		head, tail := s[:cut], s[cut:]
		if lastSpace > 0 && cut < len(s) && s[cut] != ' ' {
			head, tail = s[:lastSpace], s[lastSpace+1:]
		}
		lines = append(lines, prefix+strings.TrimRight(head, " "))
		s = strings.TrimLeft(tail, " ")
		prefix = strings.Repeat(" ", indent)
		if s == "" {
			return lines
		}
	}
}

// firstRune returns the first rune of s and its length in bytes.
func firstRune(s string) (rune, int) {
	for i, r := range s {
		if i == 0 {
			return r, len(string(r))
		}
	}
	return 0, len(s)
}
