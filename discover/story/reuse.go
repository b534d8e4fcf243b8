package story

// What a scan's worker reuses from one story to the next (a set of the
// sections taken, emptied maps and slices) and compact, which copies out
// of the worker's reused read buffer every string a parsed story keeps.

import (
	"unsafe"
)

// storySeen is a set of canonical section names (there are fewer than
// its length): looked up by comparing a few short strings, no map.
type storySeen struct {
	names [8]string
	n     int
}

// has reports whether name is in the set.
func (ss *storySeen) has(name string) bool {
	for _, k := range ss.names[:ss.n] {
		if k == name {
			return true
		}
	}
	return false
}

// add puts name in the set (a canonical section name: never more than
// its length).
func (ss *storySeen) add(name string) {
	if !ss.has(name) && ss.n < len(ss.names) {
		ss.names[ss.n] = name
		ss.n++
	}
}

// reuseMap is m emptied, or a new map when m is nil or was large.
func reuseMap(m map[string]bool) map[string]bool {
	if m == nil || len(m) > storyReuseMax {
		return map[string]bool{}
	}
	clear(m)
	return m
}

// reuseSlice is x emptied (its old elements zeroed: they point into the
// last file), or nil when x has grown large.
func reuseSlice[T any](x []T) []T {
	if cap(x) > storyReuseMax {
		return nil
	}
	clear(x[:cap(x)])
	return x[:0]
}

// compact moves every string of the story that points into the file's
// text (the text of the sections in storyScanRaw, the short fields, the
// File List, anything else a parse took from the text: each string is
// looked at, not a list of the ones known to be views) into one string of
// its own. The text is a worker's read buffer, written again with the next
// file (storyReader.buf): nothing of the story may point into it after the
// parse (TestStoryParseScanCompact overwrites the buffer). Empty strings
// become "" (no view of the buffer at all).
func (s *storyState) compact() {
	lo := uintptr(unsafe.Pointer(unsafe.StringData(s.text)))
	hi := lo + uintptr(len(s.text))
	views := s.views[:0] // the strings pointing into the text
	n := 0
	add := func(x *string) {
		switch p := uintptr(unsafe.Pointer(unsafe.StringData(*x))); {
		case len(*x) == 0:
			*x = ""
		case p >= lo && p < hi:
			views = append(views, x)
			n += len(*x)
		}
	}
	st := s.st
	for _, x := range [...]*string{&st.ID, &st.Title, &st.Path, &st.StatusRaw, &st.Executor, &st.QualityGate, &st.Epic} {
		add(x)
	}
	for i := range st.FileList {
		add(&st.FileList[i])
	}
	for i := range st.Sections {
		add(&st.Sections[i].Name)
		add(&st.Sections[i].Raw)
	}
	for i := range st.Findings {
		fd := &st.Findings[i]
		add(&fd.Check)
		add(&fd.Code)
		add(&fd.Message)
		add(&fd.Path)
		add(&fd.Phase)
	}
	if n > 0 {
		b := make([]byte, 0, n)
		for _, x := range views {
			b = append(b, *x...)
		}
		all := unsafe.String(unsafe.SliceData(b), len(b)) // b is never written again
		off := 0
		for _, x := range views {
			*x, off = all[off:off+len(*x)], off+len(*x)
		}
	}
	clear(views) // they point into the story: not kept past the parse
	if cap(views) > storyReuseMax {
		views = nil
	}
	s.views = views[:0]
}
