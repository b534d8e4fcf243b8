package workflow

import (
	"cmp"
	"slices"
	"strings"
)

// SeverityRank orders severities: blocking (0), warning (1), info (2), then
// anything else (3).
func SeverityRank(s Severity) int {
	switch s {
	case Blocking:
		return 0
	case Warning:
		return 1
	case Info:
		return 2
	}
	return 3
}

// SortFindings is the one order of findings, everywhere they are shown or
// compared: by severity (blocking, warning, info, then unknown severities
// by name), then check, path, phase, code, message and line. It is a total
// order on the fields of Finding, so equal findings are exact duplicates and
// the result never depends on the input order.
func SortFindings(fs []Finding) {
	slices.SortStableFunc(fs, CompareFindings)
}

// CompareFindings is the order of SortFindings as a comparison: negative
// when a sorts before b (FindingLess), positive when after, 0 when they are
// equal.
func CompareFindings(a, b Finding) int {
	if ra, rb := SeverityRank(a.Severity), SeverityRank(b.Severity); ra != rb {
		return cmp.Compare(ra, rb)
	}
	if c := strings.Compare(string(a.Severity), string(b.Severity)); c != 0 {
		return c
	}
	if c := strings.Compare(a.Check, b.Check); c != 0 {
		return c
	}
	if c := strings.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	if c := strings.Compare(a.Phase, b.Phase); c != 0 {
		return c
	}
	if c := strings.Compare(a.Code, b.Code); c != 0 {
		return c
	}
	if c := strings.Compare(a.Message, b.Message); c != 0 {
		return c
	}
	return cmp.Compare(a.Line, b.Line)
}

// FindingLess reports whether a sorts before b in the order of SortFindings.
func FindingLess(a, b Finding) bool {
	if ra, rb := SeverityRank(a.Severity), SeverityRank(b.Severity); ra != rb {
		return ra < rb
	}
	if a.Severity != b.Severity {
		return a.Severity < b.Severity
	}
	for _, p := range [...][2]string{{a.Check, b.Check}, {a.Path, b.Path}, {a.Phase, b.Phase}, {a.Code, b.Code}, {a.Message, b.Message}} {
		if p[0] != p[1] {
			return p[0] < p[1]
		}
	}
	return a.Line < b.Line
}
