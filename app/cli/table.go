package cli

import (
	"fmt"
	"slices"

	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
	"github.com/orchestrate-dev/orchestrate/templates"
)

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
