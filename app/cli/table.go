package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
	"github.com/orchestrate-dev/orchestrate/templates"
)

// tableCol is one column of a table fitted to the terminal (fitTable).
type tableCol struct {
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

// fitTable cuts the cells of cols so that a row — the cells joined by gap
// spaces — fits width columns, the way gh's table printer does: while the
// row is too wide, the widest flex column loses a column, never below its
// Min (nor its header); when that is not enough, a second pass takes the
// columns down to their Floor the same way. It returns the columns' widths
// after the cut; the cells are cut in place, with "…" where text was taken
// away. A width of 0 or less cuts nothing. When even the floors do not
// fit, the row stays wider than width.
func fitTable(cols []tableCol, gap, width int) []int {
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

// uniqueWidth is the narrowest width at which every id, cut to it with a
// trailing "…", still names one id alone: the text before the "…" is a
// prefix of no other id (so it can be typed as a unique prefix). When no
// width short of the widest id does, it is the widest id's width: ids are
// then shown whole.
func uniqueWidth(ids []string) int {
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

// fitMultiple cuts the items of the multiple-workflows block so that each
// line fits width columns (0: nothing is cut): the position first (down to
// 8 columns), then the label (down to 12). Text is measured escaped, as the
// block prints it.
func fitMultiple(d multipleData, width int) multipleData {
	if width <= 0 {
		return d
	}
	items := slices.Clone(d.Items)
	for i := range items {
		it := &items[i]
		label, pos := templates.Safe(it.Label), templates.Safe(it.Position)
		rest := termsafe.Width(fmt.Sprintf("  %d. ", it.N)) + termsafe.Width(label) + len(" -- Interrupted ") + termsafe.Width(templates.Safe(it.Ago)) + len(" -- ") + termsafe.Width(pos)
		if it.Validation != "" {
			rest += len(" -- ") + termsafe.Width(templates.Safe(it.Validation))
		}
		over := rest - width
		if over <= 0 {
			continue
		}
		if w := termsafe.Width(pos); w > 8 {
			cut := min(over, w-8)
			it.Position = termsafe.Truncate(pos, w-cut)
			over -= cut
		}
		if w := termsafe.Width(label); over > 0 && w > 12 {
			it.Label = termsafe.Truncate(label, w-min(over, w-12))
		}
	}
	d.Items = items
	return d
}
