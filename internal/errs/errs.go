// Package errs aggregates findings: a stage collects its findings in a List,
// which never stops at the first one, and reads them back sorted and
// de-duplicated. Findings stay values, printed by the command layer and never
// returned as errors; see "Errors" in docs/ARCHITECTURE.md for how errors
// that really aggregate are joined.
package errs

import "github.com/orchestrate-dev/orchestrate/workflow"

// List collects findings. The zero value is an empty list ready to use. It
// is not safe for concurrent use.
type List struct {
	fs []workflow.Finding
}

// Add appends findings to the list.
func (l *List) Add(fs ...workflow.Finding) {
	l.fs = append(l.fs, fs...)
}

// Len is the number of findings added (duplicates included).
func (l *List) Len() int {
	if l == nil {
		return 0
	}
	return len(l.fs)
}

// Findings returns the findings added, exact duplicates removed, in the
// order of workflow.SortFindings. It returns a new slice (nil when the list
// is empty).
func (l *List) Findings() []workflow.Finding {
	if l.Len() == 0 {
		return nil
	}
	out := append([]workflow.Finding(nil), l.fs...)
	workflow.SortFindings(out)
	return dedup(out)
}

// Sort orders findings the one way they are ordered everywhere,
// workflow.SortFindings.
func Sort(fs []workflow.Finding) { workflow.SortFindings(fs) }

// dedup removes adjacent exact duplicates from a sorted slice.
func dedup(fs []workflow.Finding) []workflow.Finding {
	out := make([]workflow.Finding, 0, len(fs))
	for _, f := range fs {
		if n := len(out); n > 0 && out[n-1] == f {
			continue
		}
		out = append(out, f)
	}
	return out
}
