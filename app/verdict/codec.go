package verdict

import (
	"bytes"
	"encoding/binary"
	"strings"
	"time"
	"unsafe"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// The value encoding of a memo: unsigned varints, zig-zag varints,
// strings as a varint length and their bytes, times as
// time.MarshalBinary (instant and zone offset) behind a length. A
// finding's check, severity, code and phase are written as writer.again
// writes them (a zero when the previous finding's), and its path, when
// its message starts with it, as its length in the message (version 4:
// 1,000 memos of 27 changed files each came to 7 MB, read and
// authenticated on every run, most of it these strings again).

// writer appends the encoding; ok is false once a value cannot be encoded.
type writer struct {
	b  []byte
	ok bool
}

func (w *writer) uint(u uint64) { w.b = binary.AppendUvarint(w.b, u) }

func (w *writer) int(i int64) { w.b = binary.AppendVarint(w.b, i) }

func (w *writer) str(s string) {
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
}

// again writes s, or a zero when it is prev (the previous finding's: a
// report's findings are sorted, and neighbours share their check,
// severity, code and phase): a string is then its length plus one and its
// bytes.
func (w *writer) again(s, prev string) {
	if s == prev {
		w.b = append(w.b, 0)
		return
	}
	w.uint(uint64(len(s)) + 1)
	w.b = append(w.b, s...)
}

func (w *writer) strs(ss []string) {
	if ss == nil {
		w.b = append(w.b, 0)
		return
	}
	w.b = binary.AppendUvarint(w.b, uint64(len(ss))+1)
	for _, s := range ss {
		w.str(s)
	}
}

func (w *writer) time(t time.Time) {
	if t.IsZero() {
		w.b = append(w.b, 0)
		return
	}
	data, err := t.MarshalBinary()
	if err != nil {
		w.ok = false
		w.b = append(w.b, 0)
		return
	}
	w.str(string(data))
}

func (w *writer) commit(c gitrepo.Commit) {
	w.str(c.Hash)
	w.str(c.Short)
	w.str(c.Author)
	w.str(c.Email)
	w.time(c.When)
	w.str(c.Subject)
}

// reader reads the encoding from s; bad is set at the first value that
// does not decode (the rest read as zero).
type reader struct {
	s   string
	bad bool
}

func (r *reader) uint() uint64 {
	if r.bad {
		return 0
	}
	u, n := uvarintOf(r.s)
	if n == 0 {
		r.bad = true
		return 0
	}
	r.s = r.s[n:]
	return u
}

// uvarintOf reads the unsigned varint s starts with: its value and its
// length, 0 when s does not start with one (cut short, or past 64 bits).
func uvarintOf[T ~string | ~[]byte](s T) (uint64, int) {
	var u uint64
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if i == binary.MaxVarintLen64-1 && c > 1 {
			break
		}
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return u, i + 1
		}
	}
	return 0, 0
}

func (r *reader) int() int64 {
	u := r.uint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

// count reads a count of items of at least min bytes each: bad when the
// rest cannot hold them.
func (r *reader) count(min int) int {
	n := r.uint()
	if n > uint64(len(r.s)/min) {
		r.bad = true
		return 0
	}
	return int(n)
}

func (r *reader) str() string {
	n := r.uint()
	if r.bad || n > uint64(len(r.s)) {
		r.bad = true
		return ""
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

// again reads what writer.again wrote: prev, or a string.
func (r *reader) again(prev string) string {
	n := r.uint()
	if n == 0 || r.bad {
		return prev
	}
	if n-1 > uint64(len(r.s)) {
		r.bad = true
		return ""
	}
	s := r.s[:n-1]
	r.s = r.s[n-1:]
	return s
}

func (r *reader) strs() []string {
	n := r.uint()
	if n == 0 || r.bad {
		return nil
	}
	if n-1 > uint64(len(r.s)) {
		r.bad = true
		return nil
	}
	out := make([]string, 0, n-1)
	for range n - 1 {
		out = append(out, r.str())
	}
	return out
}

func (r *reader) time() time.Time {
	s := r.str()
	if s == "" || r.bad {
		return time.Time{}
	}
	var t time.Time
	if err := t.UnmarshalBinary([]byte(s)); err != nil {
		r.bad = true
	}
	return t
}

func (r *reader) commit() gitrepo.Commit {
	return gitrepo.Commit{Hash: r.str(), Short: r.str(), Author: r.str(), Email: r.str(), When: r.time(), Subject: r.str()}
}

// entry is one memo: the unaged report (lists empty), the read set's
// paths (their indexes in the path table of generation gen) and the
// SHA-256 of their stat data.
type entry struct {
	rep  validate.Report
	gen  [genSize]byte
	idx  []uint32 // the read set (encode's): dirs folders, then the files
	dirs int
	sum  [32]byte
	// rawIdx is the read set as the value holds it (decode fills it, not
	// idx): n varint indexes
	rawIdx []byte
	n      int
	// clamped is the clock the report was made at when its own activity
	// was after it (validation kept the time from passing the clock: the
	// report is true at that clock alone); zero otherwise.
	clamped time.Time
	// lists is set for a report with its file and story lists (lists.go).
	lists bool
}

// indexes appends e's read set's indexes to dst (decode leaves them in
// rawIdx, checked to hold n varints).
func (e *entry) indexes(dst []uint32) []uint32 {
	if e.rawIdx == nil {
		return append(dst, e.idx...)
	}
	rest := e.rawIdx
	for range e.n {
		x, k := uvarintOf(rest)
		dst = append(dst, uint32(x))
		rest = rest[k:]
	}
	return dst
}

// sameNow reports whether e's report is the one a validation at now
// makes: its activity is not after now, as it was not when it was made,
// or it was made at now exactly.
func (e *entry) sameNow(now time.Time) bool {
	if !e.clamped.IsZero() {
		return now.Equal(e.clamped)
	}
	return now.IsZero() || !e.rep.Activity.After(now)
}

// encode is an entry's value (see codec.go); false for a report that
// holds what an unaged report never does (an age).
func encode(e entry) ([]byte, bool) {
	r := &e.rep
	if r.Age != 0 || r.AgeClass != "" || r.AgeAtLeast {
		return nil, false
	}
	w := writer{b: append(append(make([]byte, 0, 4096), e.sum[:]...), e.gen[:]...), ok: true}
	w.uint(uint64(e.dirs))
	w.uint(uint64(len(e.idx)))
	for _, x := range e.idx {
		w.uint(uint64(x))
	}
	w.time(e.clamped)
	w.uint(uint64(len(r.Findings)))
	var prev workflow.Finding
	for _, f := range r.Findings {
		w.again(f.Check, prev.Check)
		w.again(string(f.Severity), string(prev.Severity))
		w.again(f.Code, prev.Code)
		// the path, when the message starts with it (a changed file's
		// finding), as its length in the message
		if f.Path != "" && strings.HasPrefix(f.Message, f.Path) {
			w.uint(uint64(len(f.Path)) + 1)
			w.str(f.Message)
		} else {
			w.uint(0)
			w.str(f.Message)
			w.str(f.Path)
		}
		w.again(f.Phase, prev.Phase)
		w.int(int64(f.Line))
		prev = f
	}
	w.str(r.Status)
	w.time(r.InterruptedAt)
	w.commit(r.Base)
	w.str(r.GitMode)
	w.strs(r.ChangedPhases)
	w.strs(r.MissingPhases)
	w.time(r.Activity)
	w.str(r.TimeCut)
	w.uint(flags(e.lists, false))
	if e.lists {
		w.lists(r)
	}
	if !w.ok {
		return nil, false
	}
	// the value is kept until the table is written, with every other of
	// the run: not with the spare room of the appends that built it (up to
	// as much again: 8 of the 1,000 × 50 shape's 40 MB in use)
	return bytes.Clone(w.b), true
}

// decode reads a value as untrusted input; false when it does not decode
// (never a panic). The entry's strings share v's memory: v must never be
// written again.
func decode(v []byte) (entry, bool) {
	var e entry
	if len(v) < 32+genSize {
		return e, false
	}
	copy(e.sum[:], v)
	copy(e.gen[:], v[32:])
	// the read set's indexes are read where they are (entry.indexes)
	rest := v[32+genSize:]
	dirs, k1 := uvarintOf(rest)
	rest = rest[k1:]
	n, k := uvarintOf(rest)
	rest = rest[k:]
	if k1 == 0 || k == 0 || n > uint64(len(rest)) || dirs > n {
		return entry{}, false
	}
	from := len(v) - len(rest)
	for range n {
		x, k := uvarintOf(rest)
		if k == 0 || x > 1<<32-1 {
			return entry{}, false
		}
		rest = rest[k:]
	}
	e.dirs, e.n = int(dirs), int(n)
	e.rawIdx = v[from : len(v)-len(rest) : len(v)-len(rest)]
	// the report's strings are views of v, not a copy of it: v is the
	// table's (read once, never written, and held by the memo until the
	// run ends) or Put's own value, so a view keeps alive nothing that was
	// not kept anyway (1,000 memos' 6 MB of findings copied a run before)
	var rd reader
	if len(rest) > 0 {
		rd.s = unsafe.String(&rest[0], len(rest))
	}
	e.clamped = rd.time()
	r := &e.rep
	nf := rd.count(7)
	r.Findings = make([]workflow.Finding, 0, nf)
	var prev workflow.Finding
	for range nf {
		f := workflow.Finding{Check: rd.again(prev.Check), Severity: workflow.Severity(rd.again(string(prev.Severity))),
			Code: rd.again(prev.Code)}
		if n := rd.uint(); n == 0 {
			f.Message, f.Path = rd.str(), rd.str()
		} else if f.Message = rd.str(); n-1 <= uint64(len(f.Message)) {
			f.Path = f.Message[:n-1]
		} else {
			rd.bad = true
		}
		f.Phase = rd.again(prev.Phase)
		f.Line = int(rd.int())
		r.Findings = append(r.Findings, f)
		prev = f
	}
	r.Status = rd.str()
	r.InterruptedAt = rd.time()
	r.Base = rd.commit()
	r.GitMode = rd.str()
	r.ChangedPhases = rd.strs()
	r.MissingPhases = rd.strs()
	r.Activity = rd.time()
	r.TimeCut = rd.str()
	switch rd.uint() {
	case 1:
		e.lists = true
		rd.lists(r)
	case 0:
		r.Files, r.Stories = []validate.FileReport{}, []validate.StoryReport{}
	default:
		rd.bad = true
	}
	if rd.bad || rd.s != "" {
		return entry{}, false
	}
	return e, true
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
