package views

import (
	"fmt"
	"slices"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
	"github.com/orchestrate-dev/orchestrate/templates"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// NewMultiple feeds the multiple template with the candidates all, their
// ages at now — since the interruption their validations found (reports,
// by index, nil where there is none: see InterruptedAt), as status shows
// it; withItems is false for the heading alone (the prompt then lists the
// candidates, labelled by CandidateLabels).
func NewMultiple(all []workflow.Candidate, reports []*validate.Report, now time.Time, question, withItems bool) Multiple {
	var list []MultipleItem
	for i, c := range all {
		var rep *validate.Report
		if i < len(reports) {
			rep = reports[i]
		}
		ago := "at an unknown time"
		if at := InterruptedAt(c, rep); !at.IsZero() {
			ago = templates.Ago(now.Sub(at))
			if rep != nil && rep.AgeAtLeast {
				ago = "at least " + ago
			}
		}
		list = append(list, MultipleItem{N: i + 1, Label: CandidateLabel(c), Ago: ago, Position: c.Position.String()})
	}
	if !withItems {
		list = nil
	}
	return Multiple{list, question}
}

// Multiple is the multiple template's data.
type Multiple struct {
	Items    []MultipleItem
	Question bool
}

// CandidateLabels are the prompt's options: each line of the list.
func CandidateLabels(d Multiple) []string {
	labels := make([]string, len(d.Items))
	for i, it := range d.Items {
		labels[i] = it.Label + " -- Interrupted " + it.Ago + " -- " + it.Position
	}
	return labels
}

// PhaseBased reports whether a workflow type moves through named phases
// once (so "valid phases" and --from-phase suggestions make sense), unlike
// QA loops (iterations) and epics (waves of stories).
func PhaseBased(t workflow.Type) bool {
	return t != workflow.TypeQALoop && t != workflow.TypeEpic
}

// FitMultiple cuts the items of the multiple-workflows block so that each
// line fits width columns (0: nothing is cut): the position first (down to
// 8 columns), then the label (down to 12). Text is measured escaped, as the
// block prints it.
func FitMultiple(d Multiple, width int) Multiple {
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
