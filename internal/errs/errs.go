// Package errs aggregates findings. It is orchestrate's one seam over
// hashicorp/go-multierror: every stage collects its findings in a List, which
// never stops at the first one, and reads them back sorted and de-duplicated,
// or as a single go-multierror error (Err).
package errs

import (
	"fmt"
	"strings"

	"github.com/hashicorp/go-multierror"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// List collects findings. The zero value is an empty list ready to use. It
// is not safe for concurrent use. Findings are kept as findings; they become
// one go-multierror error only when Err asks for an error.
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

// Err returns the findings as one error (nil when there are none), its
// message listing every finding in sorted order, one per line. The error
// unwraps to the individual findings (errors.As with a workflow.Finding).
func (l *List) Err() error {
	fs := l.Findings()
	if len(fs) == 0 {
		return nil
	}
	m := &multierror.Error{ErrorFormat: format}
	for _, f := range fs {
		m = multierror.Append(m, f)
	}
	return m.ErrorOrNil()
}

func format(es []error) string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = "- " + e.Error()
	}
	noun := "findings"
	if len(es) == 1 {
		noun = "finding"
	}
	return fmt.Sprintf("%d %s:\n%s", len(es), noun, strings.Join(lines, "\n"))
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
