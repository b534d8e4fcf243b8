package workflow

// Findings collects the findings a stage finds: it never stops at the first
// one, and reads them back sorted and de-duplicated. Findings stay values,
// printed by the command layer and never returned as errors; see "Errors" in
// docs/ARCHITECTURE.md for how errors that really aggregate are joined. The
// zero value is an empty list ready to use. It is not safe for concurrent
// use.
type Findings struct {
	fs []Finding
}

// Add appends findings to the list.
func (l *Findings) Add(fs ...Finding) {
	l.fs = append(l.fs, fs...)
}

// Len is the number of findings added (duplicates included).
func (l *Findings) Len() int {
	if l == nil {
		return 0
	}
	return len(l.fs)
}

// Sorted returns the findings added, exact duplicates removed, in the order
// of SortFindings. It returns a new slice (nil when the list is empty).
func (l *Findings) Sorted() []Finding {
	if l.Len() == 0 {
		return nil
	}
	out := append([]Finding(nil), l.fs...)
	SortFindings(out)
	return dedupSorted(out)
}

// dedupSorted removes adjacent exact duplicates from a sorted slice.
func dedupSorted(fs []Finding) []Finding {
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		if n := len(out); n > 0 && out[n-1] == f {
			continue
		}
		out = append(out, f)
	}
	return out
}
