package workflow

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/textfmt"
)

// Bounds on the findings one list keeps (see CapFindings).
const (
	// MaxFindingsPerFile is how many findings of one severity and check
	// about one file a list keeps.
	MaxFindingsPerFile = 50
	// MaxFindings is how many findings of one severity one list keeps in
	// all, blocking ones aside (a blocking finding decides a resume and is
	// never dropped).
	MaxFindings = 500
)

// CodeMoreFindings is the code of the finding that stands for the findings
// CapFindings left out.
const CodeMoreFindings = "more-findings"

// CapFindings bounds a list of findings (a candidate's, a scan's, a
// validation's, a plan's) so that a hostile file (a tasks file of a million
// malformed entries) cannot make millions of lines. It keeps at most
// MaxFindingsPerFile findings per file, severity and check, with one
// finding of that file, severity and check saying how many more there were
// ("… and 922,950 more warnings like these in tasks.json"); then at most
// MaxFindings warnings and MaxFindings notes in all, with one summary per
// severity for the rest ("… in all"). Blocking findings are cut per file
// only, with a blocking summary, so a resume still stops. The findings kept
// are the first in input order (a parser's findings come in file order, so
// the first 50 of a file are its first 50), in that order, followed by the
// summaries; a summary of an earlier cut is added to, not counted again. A
// list within the bounds is returned as it is.
func CapFindings(fs []Finding) []Finding {
	return capFindings(fs, MaxFindingsPerFile, MaxFindings)
}

// CapSortedFindings is CapFindings for findings in the order of
// SortFindings (Findings.Sorted's), where each group CapFindings counts (a
// path, check and severity) is one run of neighbours, as is each
// severity: a list within the bounds, the common case, is told so in one
// pass without CapFindings' maps and returned as it is; any other list is
// CapFindings'. A list in another order must go to CapFindings.
func CapSortedFindings(fs []Finding) []Finding {
	if len(fs) <= MaxFindingsPerFile {
		return fs
	}
	group, severity := 0, 0 // the lengths of the current runs
	for i := range fs {
		f := &fs[i]
		if f.Code == CodeMoreFindings {
			return CapFindings(fs)
		}
		if i > 0 && f.Severity == fs[i-1].Severity {
			severity++
			if f.Path == fs[i-1].Path && f.Check == fs[i-1].Check {
				group++
			} else {
				group = 1
			}
		} else {
			severity, group = 1, 1
		}
		if group > MaxFindingsPerFile || (f.Severity != Blocking && severity > MaxFindings) {
			return CapFindings(fs)
		}
	}
	return fs
}

// capGroup is the key of one group of CapFindings.
type capGroup struct {
	path, check string
	severity    Severity
}

func capFindings(fs []Finding, perGroup, total int) []Finding {
	if len(fs) <= perGroup {
		return fs
	}
	counts := map[capGroup]int{}
	var order []capGroup
	over := false
	for _, f := range fs {
		if f.Code == CodeMoreFindings {
			continue // an earlier cut's summary: kept, and added to
		}
		g := capGroup{f.Path, f.Check, f.Severity}
		if counts[g] == 0 {
			order = append(order, g)
		}
		counts[g]++
		if counts[g] > perGroup {
			over = true
		}
	}
	bySeverity := map[Severity]int{}
	for g, n := range counts {
		if g.severity != Blocking {
			bySeverity[g.severity] += min(n, perGroup)
			over = over || bySeverity[g.severity] > total
		}
	}
	if !over {
		return fs
	}
	// keep, per group, the first perGroup in input order, then the first
	// total non-blocking ones
	keep := make([]bool, len(fs))
	seen := map[capGroup]int{}
	dropped := map[capGroup]int{}
	// the findings past total, over all groups: one summary per severity,
	// named after the check of the first one left out
	var overall []capGroup
	overallN := map[capGroup]int{}
	earlier := map[capGroup]int{} // the counts of earlier summaries
	summaries := map[Finding]bool{}
	kept := map[Severity]int{} // per severity: notes are not crowded out by warnings
	for i, f := range fs {
		g := capGroup{f.Path, f.Check, f.Severity}
		if f.Code == CodeMoreFindings {
			if n := moreCount(f); n > 0 {
				if !summaries[f] { // one list joined twice holds its summary twice
					summaries[f] = true
					earlier[g] += n
				}
				continue
			}
			keep[i] = true // a finding of that code not made here
			continue
		}
		seen[g]++
		switch {
		case seen[g] > perGroup:
			dropped[g]++
		case f.Severity != Blocking && kept[f.Severity] >= total:
			og := capGroup{check: f.Check, severity: f.Severity}
			for _, o := range overall {
				if o.severity == f.Severity {
					og = o
				}
			}
			if overallN[og] == 0 {
				overall = append(overall, og)
			}
			overallN[og]++
		default:
			keep[i] = true
			if f.Severity != Blocking {
				kept[f.Severity]++
			}
		}
	}
	out := make([]Finding, 0, total+len(dropped))
	for i, f := range fs {
		if keep[i] {
			out = append(out, f)
		}
	}
	for _, g := range order {
		if n := dropped[g] + earlier[g]; n > 0 {
			out = append(out, moreFindings(g, n))
		}
		delete(earlier, g)
	}
	for _, og := range overall {
		n := overallN[og] + earlier[og]
		delete(earlier, og)
		out = append(out, moreFindings(og, n))
	}
	// summaries of groups that were not cut again, in input order
	for _, f := range fs {
		g := capGroup{f.Path, f.Check, f.Severity}
		if f.Code == CodeMoreFindings && earlier[g] > 0 {
			out = append(out, moreFindings(g, earlier[g]))
			delete(earlier, g)
		}
	}
	return out
}

// moreCount is the number of findings a summary of moreFindings stands
// for (0 when f is not one).
func moreCount(f Finding) int {
	rest, ok := strings.CutPrefix(f.Message, "… and ")
	if !ok {
		return 0
	}
	num, _, _ := strings.Cut(rest, " ")
	n, err := strconv.Atoi(strings.ReplaceAll(num, ",", ""))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// moreFindings is the finding standing for n findings of group g left out.
func moreFindings(g capGroup, n int) Finding {
	what := string(g.severity)
	switch g.severity {
	case Blocking:
		what = "blocking findings"
	case Warning:
		what = "warnings"
	case Info:
		what = "notes"
	default:
		what += " findings"
	}
	where := " in all"
	if g.path != "" {
		where = " in " + g.path
	}
	return Finding{
		Check: g.check, Severity: g.severity, Code: CodeMoreFindings, Path: g.path,
		Message: fmt.Sprintf("… and %s more %s like these%s (not listed)", Thousands(n), what, where),
	}
}

// Thousands spells n with a comma between each group of three digits
// (2,800,000), as counts are written in findings (textfmt.Thousands).
func Thousands(n int) string { return textfmt.Thousands(n) }
