package workflow

import "slices"

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

// Grow makes room for n more findings, so that adding them does not
// reallocate the list.
func (l *Findings) Grow(n int) {
	if n > 0 {
		l.fs = slices.Grow(l.fs, n)
	}
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

// TakeSorted is Sorted without the copy: it sorts and de-duplicates the
// list's own findings in place and returns them; the list is empty
// afterwards (for a caller that is done adding, such as the end of a
// validation).
func (l *Findings) TakeSorted() []Finding {
	if l.Len() == 0 {
		return nil
	}
	fs := l.fs
	l.fs = nil
	SortFindings(fs)
	out := fs[:1]
	for _, f := range fs[1:] {
		if f != out[len(out)-1] {
			out = append(out, f)
		}
	}
	return out
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
