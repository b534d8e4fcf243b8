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
func Truncate(s string, w int) string {
	if w < 1 || Width(s) <= w {
		return fit(s, w)
	}
	return cells.Truncate(s, w-ellipsisWidth, "") + Ellipsis
}

// TruncateLeft cuts s to at most w columns keeping its end (a path's file
// name), starting it with Ellipsis when it was cut.
func TruncateLeft(s string, w int) string {
	if w < 1 || Width(s) <= w {
		return fit(s, w)
	}
	return Ellipsis + cells.TruncatePrefix(s, w-ellipsisWidth, "")
}

// ellipsisWidth is Width(Ellipsis), known without measuring it: U+2026 is
// East Asian ambiguous, narrow under cells. go-runewidth builds a 2 MiB
// table on its first measure of a rune past U+02FF, ~10 ms of a run where
// fresh memory is dear (docs/ARCHITECTURE.md, "Thirteenth pass"), and a
// status table of ASCII ids measured the ellipsis alone each time it tried
// an id cut to a width (app/cli/tablefit). The cuts are go-runewidth's
// with Ellipsis as its tail (TestTruncateIsRunewidthsWithTheTail): w less
// the tail's width, the tail added after.
const ellipsisWidth = 1

// fit is s when it fits in w columns, "" for a w below 1.
func fit(s string, w int) string {
	if w < 1 {
		return ""
	}
	return s
}
