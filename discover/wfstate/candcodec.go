package wfstate

import (
	"encoding/binary"
	"reflect"
	"slices"
	"time"
	"unsafe"

	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// The built candidate's codec (state cache version 3, cache.go): a warm
// scan of 1,000 state files spent most of its time decoding each cached
// document into its mapping and building the candidate from it again
// (Build) — about 45 µs a file. The cache now keeps, for a state Build
// turned into a candidate, that candidate itself, and a warm scan decodes
// it: its strings in one copy of the value, no mapping made.
//
// Build's candidate depends on the file's path and content (the entry's
// key) and on the workflow definitions it resolves the state against (the
// table's salt: definitionsSalt). Only a candidate that round-trips
// exactly is kept (encodeBuilt decodes what it wrote and compares it with
// reflect.DeepEqual): a field this codec does not hold (Build sets it one
// day, or a QA loop, an epic), a time not in UTC, a saved context the
// value codec refuses — each keeps the decoded document instead, as
// version 2 did. A value is read as untrusted input: one that does not
// decode, to the last byte, is a miss (the file is read and built).
//
// The candidate's encoding: its strings as a uvarint length and bytes,
// its ints as zigzag varints (a referenced file's phase, hash and list
// name as candWriter.again writes them), its bools as a byte, each slice (and the
// context) after a presence byte (nil and empty differ), its times as a
// byte (0 zero, 1 UTC) then seconds and nanoseconds, the context as
// tolerant.EncodeValue writes a mapping.

// candWriter appends a candidate's encoding.
type candWriter struct {
	b  []byte
	ok bool
}

func (w *candWriter) str(s string) {
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
}

// again writes s, or a zero when it is prev (the previous file's: 50
// files of one phase and one list name each once): a string is then its
// length plus one and its bytes.
func (w *candWriter) again(s, prev string) {
	if s == prev {
		w.b = append(w.b, 0)
		return
	}
	w.b = binary.AppendUvarint(w.b, uint64(len(s))+1)
	w.b = append(w.b, s...)
}

func (w *candWriter) int(i int) { w.b = binary.AppendVarint(w.b, int64(i)) }

func (w *candWriter) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

// present writes a slice's or map's presence byte; false when nil.
func (w *candWriter) present(notNil bool) bool {
	w.bool(notNil)
	return notNil
}

func (w *candWriter) count(n int) { w.b = binary.AppendUvarint(w.b, uint64(n)) }

func (w *candWriter) strs(ss []string) {
	if !w.present(ss != nil) {
		return
	}
	w.count(len(ss))
	for _, s := range ss {
		w.str(s)
	}
}

// time writes t: zero, or a UTC time without a monotonic reading; any
// other is refused (its location would not survive).
func (w *candWriter) time(t time.Time) {
	if t.IsZero() && t.Location() == time.UTC {
		w.b = append(w.b, 0)
		return
	}
	if t != t.Round(0) || t.Location() != time.UTC {
		w.ok = false
		return
	}
	w.b = append(w.b, 1)
	w.b = binary.AppendVarint(w.b, t.Unix())
	w.b = binary.AppendUvarint(w.b, uint64(t.Nanosecond()))
}

// candidate writes the fields Build sets.
func (w *candWriter) candidate(c *workflow.Candidate) {
	w.str(c.ID)
	w.str(string(c.Type))
	w.str(c.Key)
	w.str(c.Source.Kind)
	w.str(c.Source.Path)
	w.int(c.Source.Priority)
	w.str(c.Workflow)
	w.strs(c.Stories)
	if w.present(c.StoryRefs != nil) {
		w.count(len(c.StoryRefs))
		for _, r := range c.StoryRefs {
			w.str(r.ID)
			w.str(r.Status)
			w.str(r.Path)
			w.str(r.Executor)
		}
	}
	w.str(c.Status)
	w.str(c.StatusRaw)
	w.bool(c.Resumable)
	w.time(c.UpdatedAt)
	w.str(c.UpdatedFrom)
	w.time(c.StartedAt)
	p := &c.Position
	w.str(p.Kind)
	w.int(p.Done)
	w.int(p.Total)
	w.str(p.At)
	w.str(p.Last)
	w.int(p.Index)
	w.str(p.Name)
	w.int(p.Phase)
	w.int(p.Phases)
	if w.present(c.Phases != nil) {
		w.count(len(c.Phases))
		for i := range c.Phases {
			ph := &c.Phases[i]
			w.str(ph.ID)
			w.str(ph.Name)
			w.str(ph.Agent)
			w.str(ph.Status)
			w.strs(ph.Outputs)
			w.strs(ph.DependsOn)
		}
	}
	if w.present(c.Files != nil) {
		w.count(len(c.Files))
		var prev workflow.RefFile
		for i := range c.Files {
			f := &c.Files[i]
			w.str(f.Path)
			w.again(f.Phase, prev.Phase)
			w.again(f.Hash, prev.Hash)
			w.again(f.From, prev.From)
			w.bool(f.Critical)
			w.bool(f.Produced)
			prev = *f
		}
	}
	w.str(c.Commit)
	w.str(c.Mode)
	w.str(c.AISessionID)
	w.str(c.Agent)
	if w.present(c.Context != nil) {
		v := tolerant.EncodeValue(w.b, c.Context)
		if v == nil {
			w.ok = false
			return
		}
		w.b = v
	}
	if w.present(c.Findings != nil) {
		w.count(len(c.Findings))
		for i := range c.Findings {
			f := &c.Findings[i]
			w.str(f.Check)
			w.str(string(f.Severity))
			w.str(f.Code)
			w.str(f.Message)
			w.str(f.Path)
			w.str(f.Phase)
			w.int(f.Line)
		}
	}
}

// Value tags of the state table (version 3): a decoded document (what
// version 2 kept) or a built candidate.
const (
	tagDoc   byte = 'd'
	tagBuilt byte = 'c'
)

// encodeDoc is the value of a decoded document m; nil when the value codec
// refuses it.
func encodeDoc(m map[string]any) []byte {
	return tolerant.EncodeValue([]byte{tagDoc}, m)
}

// encodeBuilt is the value of candidate c, Build's for a document of
// entries entries (tolerant.CountEntries); nil when c does not round-trip
// exactly through it.
func encodeBuilt(c *workflow.Candidate, entries int) []byte {
	w := candWriter{b: make([]byte, 0, 4096), ok: true}
	w.b = append(w.b, tagBuilt)
	w.b = binary.AppendUvarint(w.b, uint64(entries))
	w.candidate(c)
	if !w.ok {
		return nil
	}
	back, n, ok := decodeBuilt(w.b)
	if !ok || n != entries || !reflect.DeepEqual(&back, c) {
		return nil
	}
	return slices.Clip(w.b)
}

// candReader reads a candidate's encoding as untrusted input; bad is set
// on the first thing that does not decode.
type candReader struct {
	s   string
	off int
	bad bool
}

func (r *candReader) uvarint() uint64 {
	if r.bad {
		return 0
	}
	var x uint64
	var shift uint
	for i := 0; i < binary.MaxVarintLen64; i++ {
		if r.off >= len(r.s) {
			break
		}
		c := r.s[r.off]
		r.off++
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break // overflow
			}
			return x | uint64(c)<<shift
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	r.bad = true
	return 0
}

func (r *candReader) varint() int64 {
	ux := r.uvarint()
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x
}

func (r *candReader) int() int {
	x := r.varint()
	if int64(int(x)) != x {
		r.bad = true
		return 0
	}
	return int(x)
}

// count reads a count of items of at least min bytes each (no more than
// the bytes left hold).
func (r *candReader) count(min int) int {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.s)-r.off)/uint64(min) {
		r.bad = true
		return 0
	}
	return int(n)
}

func (r *candReader) str() string {
	n := r.count(1)
	if r.bad {
		return ""
	}
	s := r.s[r.off : r.off+n]
	r.off += n
	return s
}

// again reads what candWriter.again wrote: prev, or a string.
func (r *candReader) again(prev string) string {
	n := r.uvarint()
	if n == 0 || r.bad {
		return prev
	}
	if n-1 > uint64(len(r.s)-r.off) {
		r.bad = true
		return ""
	}
	s := r.s[r.off : r.off+int(n-1)]
	r.off += int(n - 1)
	return s
}

func (r *candReader) bool() bool {
	if r.bad || r.off >= len(r.s) || r.s[r.off] > 1 {
		r.bad = true
		return false
	}
	r.off++
	return r.s[r.off-1] == 1
}

func (r *candReader) strs() []string {
	if !r.bool() {
		return nil
	}
	n := r.count(1)
	if r.bad {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.str()
	}
	return out
}

func (r *candReader) time() time.Time {
	if !r.bool() {
		return time.Time{}
	}
	sec := r.varint()
	nsec := r.uvarint()
	if r.bad || nsec >= 1e9 {
		r.bad = true
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec)).UTC()
}

// decodeBuilt reads a built candidate's value (tagBuilt first) as
// untrusted input: the candidate and its document's entry count; false
// when it does not decode exactly (never a panic). The candidate's strings
// are views of v, which must never be written again (a table's value: the
// table read once and never written, 2 MB on 1,000 states, is held while
// a candidate is; a copy of each value was as much again).
func decodeBuilt(v []byte) (c workflow.Candidate, entries int, ok bool) {
	if len(v) < 2 || v[0] != tagBuilt {
		return c, 0, false
	}
	r := &candReader{s: unsafe.String(&v[1], len(v)-1)}
	n := r.uvarint()
	if n > maxStateEntries {
		return c, 0, false
	}
	entries = int(n)
	c.ID = r.str()
	c.Type = workflow.Type(r.str())
	c.Key = r.str()
	c.Source.Kind = r.str()
	c.Source.Path = r.str()
	c.Source.Priority = r.int()
	c.Workflow = r.str()
	c.Stories = r.strs()
	if r.bool() {
		c.StoryRefs = make([]workflow.StoryRef, r.count(4))
		for i := range c.StoryRefs {
			c.StoryRefs[i] = workflow.StoryRef{ID: r.str(), Status: r.str(), Path: r.str(), Executor: r.str()}
		}
	}
	c.Status = r.str()
	c.StatusRaw = r.str()
	c.Resumable = r.bool()
	c.UpdatedAt = r.time()
	c.UpdatedFrom = r.str()
	c.StartedAt = r.time()
	p := &c.Position
	p.Kind = r.str()
	p.Done = r.int()
	p.Total = r.int()
	p.At = r.str()
	p.Last = r.str()
	p.Index = r.int()
	p.Name = r.str()
	p.Phase = r.int()
	p.Phases = r.int()
	if r.bool() {
		c.Phases = make([]workflow.Phase, r.count(6))
		for i := range c.Phases {
			ph := &c.Phases[i]
			ph.ID, ph.Name, ph.Agent, ph.Status = r.str(), r.str(), r.str(), r.str()
			ph.Outputs = r.strs()
			ph.DependsOn = r.strs()
		}
	}
	if r.bool() {
		c.Files = make([]workflow.RefFile, r.count(6))
		var prev workflow.RefFile
		for i := range c.Files {
			f := &c.Files[i]
			f.Path = r.str()
			f.Phase, f.Hash, f.From = r.again(prev.Phase), r.again(prev.Hash), r.again(prev.From)
			f.Critical = r.bool()
			f.Produced = r.bool()
			prev = *f
		}
	}
	c.Commit = r.str()
	c.Mode = r.str()
	c.AISessionID = r.str()
	c.Agent = r.str()
	if r.bool() && !r.bad {
		// the context: one mapping as the value codec wrote it, then the
		// findings; its length is not recorded, so it is decoded from the
		// rest and the findings read after it
		m, used, ok := tolerant.DecodeMapValuePrefix(r.s[r.off:])
		if !ok {
			return workflow.Candidate{}, 0, false
		}
		c.Context = m
		r.off += used
	}
	if r.bool() {
		c.Findings = make([]workflow.Finding, r.count(7))
		for i := range c.Findings {
			f := &c.Findings[i]
			f.Check, f.Severity, f.Code = r.str(), workflow.Severity(r.str()), r.str()
			f.Message, f.Path, f.Phase = r.str(), r.str(), r.str()
			f.Line = r.int()
		}
	}
	if r.bad || r.off != len(r.s) {
		return workflow.Candidate{}, 0, false
	}
	return c, entries, true
}
