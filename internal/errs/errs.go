// Package errs aggregates findings. It is orchestrate's one seam over
// hashicorp/go-multierror: every stage collects its findings in a List, which
// never stops at the first one, and reads them back sorted and de-duplicated,
// or as a single error.
package errs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/go-multierror"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// List collects findings. The zero value is an empty list ready to use. It
// is not safe for concurrent use.
type List struct {
	merr *multierror.Error
}

// Add appends findings to the list.
func (l *List) Add(fs ...workflow.Finding) {
	if len(fs) == 0 {
		return
	}
	errs := make([]error, len(fs))
	for i, f := range fs {
		errs[i] = f
	}
	l.merr = multierror.Append(l.merr, errs...)
}

// Len is the number of findings added (duplicates included).
func (l *List) Len() int {
	if l == nil || l.merr == nil {
		return 0
	}
	return len(l.merr.Errors)
}

// Findings returns the findings added, exact duplicates removed, in the
// order of Sort. It returns a new slice (nil when the list is empty).
func (l *List) Findings() []workflow.Finding {
	if l.Len() == 0 {
		return nil
	}
	out := make([]workflow.Finding, 0, len(l.merr.Errors))
	for _, e := range l.merr.Errors {
		if f, ok := e.(workflow.Finding); ok {
			out = append(out, f)
		}
	}
	Sort(out)
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

// SeverityRank orders severities: blocking (0), warning (1), info (2), then
// anything else (3).
func SeverityRank(s workflow.Severity) int {
	switch s {
	case workflow.Blocking:
		return 0
	case workflow.Warning:
		return 1
	case workflow.Info:
		return 2
	}
	return 3
}

// Sort orders findings deterministically: by severity (blocking, warning,
// info), then check, path, code, message, phase and line.
func Sort(fs []workflow.Finding) {
	sort.SliceStable(fs, func(i, j int) bool { return less(fs[i], fs[j]) })
}

func less(a, b workflow.Finding) bool {
	if ra, rb := SeverityRank(a.Severity), SeverityRank(b.Severity); ra != rb {
		return ra < rb
	}
	if a.Severity != b.Severity {
		return a.Severity < b.Severity
	}
	for _, p := range [][2]string{{a.Check, b.Check}, {a.Path, b.Path}, {a.Code, b.Code}, {a.Message, b.Message}, {a.Phase, b.Phase}} {
		if p[0] != p[1] {
			return p[0] < p[1]
		}
	}
	return a.Line < b.Line
}

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
