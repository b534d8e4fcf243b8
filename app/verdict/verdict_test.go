package verdict

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func sampleEntry() entry {
	when := time.Date(2026, 11, 1, 10, 0, 0, 5, time.FixedZone("", 3600))
	return entry{
		rep: validate.Report{
			Findings: []workflow.Finding{
				{Check: "conflict", Severity: workflow.Blocking, Code: "file-changed", Message: "m\x00", Path: "src/a.go", Phase: "implement", Line: 3},
				// the path starting the message, the check, severity, code
				// and phase the previous one's (codec.go)
				{Check: "conflict", Severity: workflow.Blocking, Code: "file-changed", Message: "src/b.go was changed", Path: "src/b.go", Phase: "implement"},
				{Check: "conflict", Severity: workflow.Blocking, Code: "file-changed", Message: "src/c.go", Path: "src/c.go", Phase: "review", Line: -1},
				{Check: "conflict", Severity: workflow.Warning, Code: "file-changed", Message: "src/c.go", Path: "", Phase: "review"},
				{Check: "git", Severity: workflow.Info, Code: "x", Message: "", Path: "", Phase: ""},
			},
			Status:        validate.StatusConflicts,
			InterruptedAt: when,
			Base:          gitrepo.Commit{Hash: "abc", Short: "abc", Author: "ann", Email: "a@x", When: when.UTC(), Subject: "s"},
			GitMode:       validate.GitModeGit,
			Files:         []validate.FileReport{},
			Stories:       []validate.StoryReport{},
			ChangedPhases: []string{"implement"},
			Activity:      when.Add(time.Hour),
		},
		gen:     [genSize]byte{9, 8, 7},
		idx:     []uint32{0, 1, 300, 1 << 31},
		dirs:    2,
		sum:     [32]byte{1, 2, 3},
		clamped: when,
	}
}

// sampleListsEntry is sampleEntry kept with its lists (lists.go): files
// with commits, none and an empty list of them, a nil story list.
func sampleListsEntry(storiesNil bool) entry {
	e := sampleEntry()
	e.lists = true
	c := e.rep.Base
	e.rep.Files = []validate.FileReport{
		{Path: "src/a.go", Phase: "implement", Critical: true, State: validate.FileChangedCommitted, By: []gitrepo.Commit{c, c}, Detail: "d"},
		{Path: "src/b.go", Produced: true, State: validate.FileUnchanged},
		{Path: "", State: validate.FileMissing, By: []gitrepo.Commit{}},
	}
	e.rep.Stories = []validate.StoryReport{{ID: "1.1", Path: "docs/s.md", StateStatus: "InProgress", StoryStatus: workflow.StatusDone, Verdict: "completed-outside", Exists: true}, {ID: "1.2"}}
	if storiesNil {
		e.rep.Stories = nil
	}
	return e
}

// TestEncodeDecodeRoundTrip: what encode writes, decode reads back.
func TestEncodeDecodeRoundTrip(t *testing.T) {
	empty := entry{idx: []uint32{}, rep: validate.Report{Findings: []workflow.Finding{}, Files: []validate.FileReport{}, Stories: []validate.StoryReport{}}}
	emptyLists := empty
	emptyLists.lists = true
	for _, e := range []entry{sampleEntry(), empty, sampleListsEntry(false), sampleListsEntry(true), emptyLists} {
		v, ok := encode(e)
		if !ok {
			t.Fatal("encode failed")
		}
		got, ok := decode(v)
		if !ok {
			t.Fatal("decode failed")
		}
		// times compare by instant and offset (decode gives a fixed zone)
		if !got.rep.InterruptedAt.Equal(e.rep.InterruptedAt) || !got.clamped.Equal(e.clamped) ||
			!got.rep.Activity.Equal(e.rep.Activity) || !got.rep.Base.When.Equal(e.rep.Base.When) {
			t.Fatalf("times differ: %+v\n%+v", got, e)
		}
		got.rep.InterruptedAt, got.clamped, got.rep.Activity, got.rep.Base.When = e.rep.InterruptedAt, e.clamped, e.rep.Activity, e.rep.Base.When
		got.idx = got.indexes([]uint32{})
		got.rawIdx, got.n = nil, 0
		if !reflect.DeepEqual(got, e) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, e)
		}
	}
	// an age is never in an unaged report: not kept
	e := sampleEntry()
	e.rep.AgeClass = validate.AgeStale
	if _, ok := encode(e); ok {
		t.Error("a report with an age was encoded")
	}
}

// TestDecodeRefusesDamagedValues: every truncation, and values with a byte
// changed or appended, decode to nothing or to a value that is checked
// (never a panic); a truncated one never decodes.
func TestDecodeRefusesDamagedValues(t *testing.T) {
	for _, e := range []entry{sampleEntry(), sampleListsEntry(false)} {
		damaged(t, e)
	}
}

func damaged(t *testing.T, e entry) {
	v, ok := encode(e)
	if !ok {
		t.Fatal("encode failed")
	}
	for n := 0; n < len(v); n++ {
		if _, ok := decode(v[:n]); ok {
			t.Fatalf("a value truncated to %d of %d bytes decoded", n, len(v))
		}
	}
	if _, ok := decode(append(bytes.Clone(v), 0)); ok {
		t.Error("a value with a trailing byte decoded")
	}
	for i := 32 + genSize; i < len(v); i++ {
		for _, b := range []byte{0, 0x7f, 0x80, 0xff} {
			w := bytes.Clone(v)
			w[i] = b
			decode(w) // must not panic
		}
	}
	// counts that claim more than the value holds
	huge := append(make([]byte, 32+genSize), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)
	if _, ok := decode(huge); ok {
		t.Error("a value claiming 2^64 paths decoded")
	}
}

func FuzzDecode(f *testing.F) {
	v, _ := encode(sampleEntry())
	f.Add(v)
	v, _ = encode(sampleListsEntry(false))
	f.Add(v)
	f.Add([]byte{})
	f.Add(make([]byte, 40))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, ok := decode(data)
		if !ok {
			return
		}
		e.idx = e.indexes(nil)
		e.rawIdx = nil
		if e.dirs > len(e.idx) || len(e.idx) != e.n {
			t.Fatalf("dirs %d, paths %d of %d", e.dirs, len(e.idx), e.n)
		}
		w, ok := encode(e)
		if !ok {
			return
		}
		if _, ok := decode(w); !ok {
			t.Fatal("a decoded value re-encoded does not decode")
		}
	})
}

// TestRefFileFastPathCoversEveryField: digest's encoding of a RefFile
// list names six fields; a new field must be added there.
func TestRefFileFastPathCoversEveryField(t *testing.T) {
	if n := reflect.TypeFor[workflow.RefFile]().NumField(); n != 6 {
		t.Fatalf("workflow.RefFile has %d fields: encoder.refFiles encodes 6", n)
	}
	base := workflow.RefFile{Path: "a", Phase: "p", Critical: true, Hash: "h", From: "f", Produced: true}
	d0, _ := digest([]workflow.RefFile{base})
	for i, change := range []func(r *workflow.RefFile){
		func(r *workflow.RefFile) { r.Path = "b" }, func(r *workflow.RefFile) { r.Phase = "q" },
		func(r *workflow.RefFile) { r.Critical = false }, func(r *workflow.RefFile) { r.Hash = "i" },
		func(r *workflow.RefFile) { r.From = "g" }, func(r *workflow.RefFile) { r.Produced = false },
	} {
		r := base
		change(&r)
		if d, _ := digest([]workflow.RefFile{r}); d == d0 {
			t.Errorf("change %d of a RefFile left its digest", i)
		}
	}
}

// TestDigestTellsCandidatesApart: the candidate digest changes with any
// field (a saved context's value included) and not with map order; a
// func has no digest.
func TestDigestTellsCandidatesApart(t *testing.T) {
	c := workflow.Candidate{ID: "w", Status: "interrupted", Context: map[string]any{"a": 1.0, "b": []any{"x", map[string]any{"k": true}}},
		UpdatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Epic: &workflow.Epic{}}
	d0, ok := digest(&c)
	if !ok {
		t.Fatal("no digest")
	}
	c2 := c
	c2.Context = map[string]any{"b": []any{"x", map[string]any{"k": true}}, "a": 1.0}
	if d, _ := digest(&c2); d != d0 {
		t.Error("the same context built in another order has another digest")
	}
	c2.Context = map[string]any{"b": []any{"x", map[string]any{"k": false}}, "a": 1.0}
	if d, _ := digest(&c2); d == d0 {
		t.Error("a nested context change left the digest")
	}
	c3 := c
	c3.UpdatedAt = c.UpdatedAt.Add(time.Nanosecond)
	if d, _ := digest(&c3); d == d0 {
		t.Error("a time change left the digest")
	}
	if _, ok := digest(map[string]any{"f": func() {}}); ok {
		t.Error("a func was digested")
	}
}
