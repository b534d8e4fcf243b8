package termsafe

import "github.com/mattn/go-runewidth"

// cells measures text the way terminals draw it (github.com/mattn/go-runewidth):
// 0 columns for combining marks, 2 for wide East Asian characters and emoji,
// grapheme clusters as one. Ambiguous characters are narrow whatever the
// locale, so output does not depend on LANG or RUNEWIDTH_EASTASIAN.
var cells = &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}

// Ellipsis marks where Truncate and TruncateLeft cut text.
const Ellipsis = "…"

// Width is the number of terminal columns s takes (s already escaped:
// String or Block; a control character counts 0).
func Width(s string) int { return cells.StringWidth(s) }

// RuneWidth is the number of terminal columns r takes.
func RuneWidth(r rune) int { return cells.RuneWidth(r) }

// Truncate cuts s to at most w columns, ending it with Ellipsis when it
// was cut; s is returned as is when it fits. A w below 1 gives "".
func Truncate(s string, w int) string { return fit(s, w, cells.Truncate) }

// TruncateLeft cuts s to at most w columns keeping its end (a path's file
// name), starting it with Ellipsis when it was cut.
func TruncateLeft(s string, w int) string { return fit(s, w, cells.TruncatePrefix) }

// fit is s when it fits in w columns, else s cut to w by cut with
// Ellipsis; "" for a w below 1.
func fit(s string, w int, cut func(s string, w int, mark string) string) string {
	if w < 1 {
		return ""
	}
	if Width(s) <= w {
		return s
	}
	return cut(s, w, Ellipsis)
}
