package gitobj

import (
	"bytes"
	"slices"
)

// wantSet tells whether an index entry's path is one of the wanted paths.
// While the entries' paths come in git's order (bytewise ascending, a
// path repeated for its stages) it merges them with the wanted paths,
// sorted: a comparison or two an entry instead of a hash of its path. From
// the first path out of that order on (a hostile or broken index) the map
// answers: the answers are the map's for any index.
type wantSet struct {
	m      map[string]bool
	sorted []string // the wanted paths, sorted; nil once the map answers
	next   int      // sorted[:next] are below the path asked about last
	last   []byte   // the path asked about last
}

// newWantSet is the wantSet of the paths m holds true.
func newWantSet(m map[string]bool) wantSet {
	sorted := make([]string, 0, len(m))
	for p, ok := range m {
		if ok {
			sorted = append(sorted, p)
		}
	}
	slices.Sort(sorted)
	return wantSet{m: m, sorted: sorted}
}

// has reports whether name is wanted. name is only read, and kept (as
// last) until the next call.
func (s *wantSet) has(name []byte) bool {
	if s.sorted == nil || bytes.Compare(name, s.last) < 0 {
		s.sorted = nil
		return s.m[string(name)]
	}
	s.last = name
	for s.next < len(s.sorted) && s.sorted[s.next] < string(name) {
		s.next++
	}
	return s.next < len(s.sorted) && s.sorted[s.next] == string(name)
}
