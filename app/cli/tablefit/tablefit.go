// Package tablefit fits a table to the terminal's width the way gh's table
// printer does (Fit: the widest flexible column loses a column at a time,
// cells cut with "…"), and finds the narrowest width at which ids cut still
// name one id alone (UniqueWidth). Text is measured as the terminal shows it
// (internal/termsafe).
package tablefit

import (
	"slices"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
)

// Col is one column of a table fitted to the terminal (Fit).
type Col struct {
	Header string
	Cells  []string // already escaped (templates.Safe)
	// Flex columns may be cut; the others are always shown whole.
	Flex bool
	// Min is the narrowest a flex column gets (at least its header's width).
	Min int
	// Floor, when the minimums do not fit, is the narrowest the column gets
	// in a second pass (0: Min; a column that is not Flex may shrink there
	// too when it has a Floor). Never below its header's width.
	Floor int
	// KeepEnd cuts the beginning instead of the end (paths: the file name
	// is what tells rows apart).
	KeepEnd bool
}

// Fit cuts the cells of cols so that a row — the cells joined by gap
// spaces — fits width columns, the way gh's table printer does: while the
// row is too wide, the widest flex column loses a column, never below its
// Min (nor its header); when that is not enough, a second pass takes the
// columns down to their Floor the same way. It returns the columns' widths
// after the cut; the cells are cut in place, with "…" where text was taken
// away. A width of 0 or less cuts nothing. When even the floors do not
// fit, the row stays wider than width.
func Fit(cols []Col, gap, width int) []int {
	ws := make([]int, len(cols))
	mins := make([]int, len(cols))
	floors := make([]int, len(cols))
	total := gap * max(len(cols)-1, 0)
	for i, c := range cols {
		hw := termsafe.Width(c.Header)
		ws[i] = hw
		for _, cell := range c.Cells {
			ws[i] = max(ws[i], termsafe.Width(cell))
		}
		mins[i], floors[i] = ws[i], ws[i]
		if c.Flex {
			mins[i] = min(ws[i], max(c.Min, hw, 1))
			floors[i] = mins[i]
		}
		if c.Floor > 0 {
			floors[i] = min(mins[i], max(c.Floor, hw, 1))
		}
		total += ws[i]
	}
	if width <= 0 {
		return ws
	}
	for _, limit := range [][]int{mins, floors} {
		for total > width {
			widest := -1
			for i := range cols {
				if ws[i] > limit[i] && (widest < 0 || ws[i] > ws[widest]) {
					widest = i
				}
			}
			if widest < 0 {
				break // as narrow as this pass goes
			}
			ws[widest]--
			total--
		}
	}
	for i, c := range cols {
		for j, cell := range c.Cells {
			if c.KeepEnd {
				c.Cells[j] = termsafe.TruncateLeft(cell, ws[i])
			} else {
				c.Cells[j] = termsafe.Truncate(cell, ws[i])
			}
		}
	}
	return ws
}

// UniqueWidth is the narrowest width at which every id, cut to it with a
// trailing "…", still names one id alone: the text before the "…" is a
// prefix of no other id (so it can be typed as a unique prefix). When no
// width short of the widest id does, it is the widest id's width: ids are
// then shown whole.
func UniqueWidth(ids []string) int {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	full := 0
	for _, id := range sorted {
		full = max(full, termsafe.Width(id))
	}
	for w := 2; w < full; w++ {
		if cutsUnique(sorted, w) {
			return w
		}
	}
	return full
}

// cutsUnique reports whether every id of sorted, cut to w columns, names
// it alone. The ids sharing a prefix are neighbours in sorted order, so
// only neighbours are compared.
func cutsUnique(sorted []string, w int) bool {
	for i, id := range sorted {
		cut := termsafe.Truncate(id, w)
		if cut == id {
			continue
		}
		prefix := strings.TrimSuffix(cut, termsafe.Ellipsis)
		if (i > 0 && strings.HasPrefix(sorted[i-1], prefix)) || (i+1 < len(sorted) && strings.HasPrefix(sorted[i+1], prefix)) {
			return false
		}
	}
	return true
}
