package story

import (
	"encoding/binary"
	"math"
	"slices"
	"unsafe"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// The story cache's value encoding (see cache.go). A value is untrusted
// input: storyDecode checks every length and count against the bytes left,
// and a value that does not decode exactly is a miss.
//
//	value    = 0x00 (the file is not a story) | 0x01 story
//	           | 0x02 story (its sections trimmed: Story.SectionsTrimmed)
//	story    = uvarint(StatusLine) str(ID) str(Title) str(Status)
//	           str(StatusRaw) str(Executor) str(QualityGate) str(Epic)
//	           uvarint(n) n*str (FileList)
//	           uvarint(n) n*section (sorted by name, each name once)
//	           uvarint(n) n*finding
//	section  = byte(index in storyCacheSections) uvarint(Line) 32 bytes (Hash) str(Raw)
//	finding  = str(Check) str(Severity) str(Code) str(Message) str(Path)
//	           str(Phase) uvarint(Line)
//	str      = uvarint(length) bytes
//
// The story's Path is the file's path (part of the key) and its ModTime is
// the file's, from the stat: neither is stored.

// Value kinds.
const (
	storyValNotStory     = 0
	storyValStory        = 1
	storyValStoryTrimmed = 2
)

// storyCacheSections are the canonical section names, as one byte each in
// a value, sorted (as a story's Sections are).
var storyCacheSections = [...]string{
	workflow.SectionAcceptance,
	workflow.SectionChangeLog,
	workflow.SectionDependencies,
	workflow.SectionDevNotes,
	workflow.SectionFileList,
	workflow.SectionScope,
	workflow.SectionTasks,
}

// storyCacheMaxInt bounds a decoded line number or length, and
// storyCacheMaxFindings a story's findings (a story with more is not
// stored); a File List has at most storyMaxFileList paths. The bounds keep
// a damaged value from asking for a huge allocation.
const (
	storyCacheMaxInt      = math.MaxInt32
	storyCacheMaxFindings = 1024
)

// storyEncode appends the encoding of a scan's story (nil: the file is not
// a story) to b, or returns nil when it cannot be encoded faithfully (then
// it is not stored).
func storyEncode(b []byte, st *workflow.Story) []byte {
	if st == nil {
		return append(b, storyValNotStory)
	}
	if len(st.FileList) > storyMaxFileList || len(st.Findings) > storyCacheMaxFindings {
		return nil
	}
	n := 64 + len(st.ID) + len(st.Title) + len(st.Status) + len(st.StatusRaw) + len(st.Executor) + len(st.QualityGate) + len(st.Epic)
	for _, f := range st.FileList {
		n += len(f) + 2
	}
	for _, s := range st.Sections {
		n += len(s.Raw) + 40
	}
	for _, f := range st.Findings {
		n += len(f.Check) + len(f.Severity) + len(f.Code) + len(f.Message) + len(f.Path) + len(f.Phase) + 10
	}
	b = slices.Grow(b, n)
	if st.SectionsTrimmed {
		b = append(b, storyValStoryTrimmed)
	} else {
		b = append(b, storyValStory)
	}
	ok := true
	num := func(v int) {
		if v < 0 || v > storyCacheMaxInt {
			ok = false
		}
		b = binary.AppendUvarint(b, uint64(v))
	}
	str := func(s string) {
		num(len(s))
		b = append(b, s...)
	}
	num(st.StatusLine)
	for _, s := range [...]string{st.ID, st.Title, string(st.Status), st.StatusRaw, st.Executor, st.QualityGate, st.Epic} {
		str(s)
	}
	num(len(st.FileList))
	for _, f := range st.FileList {
		str(f)
	}
	num(len(st.Sections))
	last := -1
	for _, s := range st.Sections {
		i := storyCacheSectionIndex(s.Name)
		if i <= last {
			return nil // not a canonical name, or out of order: not stored
		}
		last = i
		b = append(b, byte(i))
		num(s.Line)
		b = append(b, s.Hash[:]...)
		str(s.Raw)
	}
	num(len(st.Findings))
	for _, f := range st.Findings {
		for _, s := range [...]string{f.Check, string(f.Severity), f.Code, f.Message, f.Path, f.Phase} {
			str(s)
		}
		num(f.Line)
	}
	if !ok {
		return nil
	}
	return b
}

// storyCacheKeptMask has the bits (1 << index in storyCacheSections) of
// the sections a scan keeps of a story not in flight (storyScanRaw).
var storyCacheKeptMask = func() (m uint8) {
	for i, name := range storyCacheSections {
		if storyScanRaw[name] {
			m |= 1 << i
		}
	}
	return m
}()

// storyCacheSectionIndex is name's index in storyCacheSections, or -1.
func storyCacheSectionIndex(name string) int {
	return slices.Index(storyCacheSections[:], name)
}

// storyDecode decodes a value of the story at path p: isStory is false for
// a file that is not a story, ok false for a value that does not decode
// (a miss). The story, its sections and its strings are carved from a (a
// worker's arena; nil: one of its own): nothing points into v.
func storyDecode(p string, v []byte, a *storyArena) (st *workflow.Story, isStory, ok bool) {
	return storyDecodeIn(p, v, a, false)
}

// storyDecodeView is storyDecode whose strings are views into v rather
// than copies: v must never be written again and lives as long as the
// story does (a value in a table read from the cache, diskcache.Table.Get:
// the table's bytes are read once and only ever read). The story, its
// sections and its File List's slice are still carved from a; only the
// bytes of its strings stay in v. It decodes exactly what storyDecode
// decodes (TestStoryCacheViewIsCopy, FuzzStoryCacheDecode).
func storyDecodeView(p string, v []byte, a *storyArena) (st *workflow.Story, isStory, ok bool) {
	return storyDecodeIn(p, v, a, true)
}

// storyDecodeIn is storyDecode, with the strings views into v when view
// is set (storyDecodeView).
func storyDecodeIn(p string, v []byte, a *storyArena, view bool) (st *workflow.Story, isStory, ok bool) {
	if len(v) == 0 {
		return nil, false, false
	}
	switch v[0] {
	case storyValNotStory:
		return nil, false, len(v) == 1
	case storyValStory, storyValStoryTrimmed:
	default:
		return nil, false, false
	}
	if a == nil {
		a = new(storyArena)
	}
	d := storyDec{b: v, pos: 1, a: a, view: view}
	st = a.story() // decoded in place: no copy of the story
	st.Path = p
	d.walk(st)
	// a trimmed story is one not in flight, and every story not in flight
	// has only the sections a scan keeps of it (a value that says
	// otherwise was not written by storyEncode); d.raw has the sections
	// the value holds, storyCacheKeptMask the ones a scan keeps
	st.SectionsTrimmed = v[0] == storyValStoryTrimmed
	if inFlight := storyInFlight(st); st.SectionsTrimmed && inFlight || !inFlight && d.raw&^storyCacheKeptMask != 0 {
		d.bad = true
	}
	if d.bad || d.pos != len(v) {
		a.unstory(st)
		return nil, false, false
	}
	return st, true, true
}

// storyArenaChunk is the size of an arena's blocks of strings; a longer
// string has an allocation of its own.
const (
	storyArenaChunk   = 32 << 10
	storyArenaStories = 64
)

// storyArena hands out a scan worker's decoded stories, sections, File Lists and
// strings from shared blocks rather than four allocations per story: all
// of them live as long as the scan's result, as the blocks do. A block is
// never written again where something was carved from it.
type storyArena struct {
	buf     []byte
	secs    []workflow.Section
	strs    []string
	stories []workflow.Story
}

// str returns a copy of b.
func (a *storyArena) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > cap(a.buf)-len(a.buf) {
		if len(b) > storyArenaChunk/8 {
			return string(b)
		}
		a.buf = make([]byte, 0, storyArenaChunk)
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	// never reallocated (the capacity was checked) nor written again
	return unsafe.String(&a.buf[start], len(b))
}

// sections returns n zero sections (capacity n: an append reallocates).
func (a *storyArena) sections(n int) workflow.Sections {
	if n > cap(a.secs)-len(a.secs) {
		a.secs = make([]workflow.Section, 0, max(n, storyArenaStories*4))
	}
	l := len(a.secs)
	a.secs = a.secs[:l+n]
	return workflow.Sections(a.secs[l : l+n : l+n])
}

// strings returns n empty strings (capacity n: an append reallocates).
func (a *storyArena) strings(n int) []string {
	if n > cap(a.strs)-len(a.strs) {
		if n > storyArenaStories {
			return make([]string, n)
		}
		a.strs = make([]string, 0, storyArenaStories*4)
	}
	l := len(a.strs)
	a.strs = a.strs[:l+n]
	return a.strs[l : l+n : l+n]
}

// story returns a zero story.
func (a *storyArena) story() *workflow.Story {
	if len(a.stories) == cap(a.stories) {
		a.stories = make([]workflow.Story, 0, storyArenaStories)
	}
	a.stories = a.stories[:len(a.stories)+1]
	return &a.stories[len(a.stories)-1]
}

// unstory gives back st, the last story handed out, zeroed (a value that
// did not decode).
func (a *storyArena) unstory(st *workflow.Story) {
	*st = workflow.Story{}
	if n := len(a.stories); n > 0 && &a.stories[n-1] == st {
		a.stories = a.stories[:n-1]
	}
}

// storyDec reads a value; bad is set (and every later read gives zero
// values) at the first thing that does not fit.
type storyDec struct {
	b    []byte
	pos  int
	bad  bool
	a    *storyArena
	view bool  // strings are views into b (storyDecodeView)
	raw  uint8 // the sections read: bit 1 << their index in storyCacheSections
}

// num reads a uvarint of at most max.
func (d *storyDec) num(max int) int {
	if d.bad {
		return 0
	}
	if d.pos < len(d.b) && d.b[d.pos] < 0x80 { // one byte: most numbers
		v := int(d.b[d.pos])
		if v > max {
			d.bad = true
			return 0
		}
		d.pos++
		return v
	}
	v, n := binary.Uvarint(d.b[d.pos:])
	if n <= 0 || v > uint64(max) {
		d.bad = true
		return 0
	}
	d.pos += n
	return int(v)
}

// str reads a string.
func (d *storyDec) str() string {
	l := d.num(min(len(d.b)-d.pos, storyCacheMaxInt))
	if d.bad || l > len(d.b)-d.pos {
		d.bad = true
		return ""
	}
	src := d.b[d.pos : d.pos+l]
	d.pos += l
	if d.view && l > 0 {
		// never written again and as long-lived as the story
		// (storyDecodeView)
		return unsafe.String(&src[0], l)
	}
	return d.a.str(src)
}

// byte1 reads one byte.
func (d *storyDec) byte1() byte {
	if d.bad || d.pos >= len(d.b) {
		d.bad = true
		return 0
	}
	c := d.b[d.pos]
	d.pos++
	return c
}

// walk reads a story's fields into st (a zero story but for its Path;
// unchanged when the value does not decode).
func (d *storyDec) walk(st *workflow.Story) {
	line := d.num(storyCacheMaxInt)
	var f [7]string
	for i := range f {
		f[i] = d.str()
	}
	var files []string
	if n := d.num(min(len(d.b)-d.pos, storyMaxFileList)); n > 0 {
		files = d.a.strings(n) // n <= the bytes left
		for i := 0; i < n && !d.bad; i++ {
			files[i] = d.str()
		}
	}
	var secs workflow.Sections
	if n := d.num(len(storyCacheSections)); n > 0 {
		secs = d.a.sections(n)
		last := -1
		for i := 0; i < n && !d.bad; i++ {
			k := int(d.byte1())
			if k >= len(storyCacheSections) || k <= last {
				d.bad = true
				break
			}
			last = k
			d.raw |= 1 << k
			sec := &secs[i] // decoded in place
			sec.Name = storyCacheSections[k]
			sec.Line = d.num(storyCacheMaxInt)
			if d.pos+len(sec.Hash) > len(d.b) {
				d.bad = true
				break
			}
			sec.Hash = [len(sec.Hash)]byte(d.b[d.pos:])
			d.pos += len(sec.Hash)
			sec.Raw = d.str()
		}
	}
	var finds []workflow.Finding
	if n := d.num(min(len(d.b)-d.pos, storyCacheMaxFindings)); n > 0 {
		finds = make([]workflow.Finding, n) // n <= the bytes left
		for i := 0; i < n && !d.bad; i++ {
			var fd workflow.Finding
			fd.Check = d.str()
			fd.Severity = workflow.Severity(d.str())
			fd.Code = d.str()
			fd.Message = d.str()
			fd.Path = d.str()
			fd.Phase = d.str()
			fd.Line = d.num(storyCacheMaxInt)
			finds[i] = fd
		}
	}
	if d.bad {
		return
	}
	st.StatusLine = line
	st.ID, st.Title, st.Status, st.StatusRaw = f[0], f[1], workflow.Status(f[2]), f[3]
	st.Executor, st.QualityGate, st.Epic = f[4], f[5], f[6]
	st.FileList, st.Sections, st.Findings = files, secs, finds
}
