// Package textfmt words values for people: durations ("45 minutes"), ages
// ("2 hours ago"), counts with thousands separators ("2,800,000") and one
// string as a POSIX shell word. Pure functions, importing no package of the
// module, so that any layer can word a value the way the templates do
// (templates re-exports them for its blocks).
package textfmt

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Duration renders d the way people say it: "45 minutes", "2 hours",
// "3 days".
func Duration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	unit := func(n int64, s string) string {
		if n == 1 {
			return fmt.Sprintf("1 %s", s)
		}
		return fmt.Sprintf("%d %ss", n, s)
	}
	switch {
	case d < time.Minute:
		return unit(int64(d/time.Second), "second")
	case d < time.Hour:
		return unit(int64(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return unit(int64(d/time.Hour), "hour")
	default:
		return unit(int64(d/(24*time.Hour)), "day")
	}
}

// Ago renders d as "45 minutes ago".
func Ago(d time.Duration) string {
	return Duration(d) + " ago"
}

// Thousands spells n with a comma between each group of three digits
// (2,800,000), as counts are written in findings.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return neg + s
}

// ShellWord is s as one POSIX shell word: as it is when it holds only
// characters no shell interprets, else single-quoted.
func ShellWord(s string) string {
	if s == "" {
		return "''"
	}
	plain := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.,:/@+=%", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Title bounds text read from a file for use as a one-line title: trimmed,
// control characters (C0, DEL, C1) and line or paragraph separators made
// spaces, and cut to at most max bytes on a rune boundary with "…" when
// longer. The task-list readers (spec-kit, OpenSpec, Kiro) share it.
func Title(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
	return Clip(s, max)
}

// Clip cuts s to at most max bytes on a rune boundary, with "…" when it
// was longer.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
