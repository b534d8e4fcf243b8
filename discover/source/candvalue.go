package source

import (
	"encoding/binary"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// A settled draft (the part of a candidate a spec or change folder alone
// makes: Kiro's and OpenSpec's draft caches) is kept as a value of
// uvarints and length-prefixed strings: ValueWriter writes one,
// ValueReader reads it back. A list is written as its length plus one, 0
// for nil: a nil list and an empty one stay apart (the JSON output tells
// them apart).

// Bounds of a draft value (a value past one does not decode).
const (
	maxDraftString = 64 << 10
	maxDraftList   = 1 << 16
	maxDraftNumber = 1 << 31
)

// ValueWriter appends a draft value to B.
type ValueWriter struct{ B []byte }

// U writes a number (at least 0).
func (w *ValueWriter) U(n int) { w.B = binary.AppendUvarint(w.B, uint64(n)) }

// Str writes a string.
func (w *ValueWriter) Str(s string) { w.U(len(s)); w.B = append(w.B, s...) }

// Flag writes a bool.
func (w *ValueWriter) Flag(v bool) {
	if v {
		w.U(1)
	} else {
		w.U(0)
	}
}

// Len writes a list's length, 0 for nil (isNil).
func (w *ValueWriter) Len(n int, isNil bool) {
	if isNil {
		w.U(0)
	} else {
		w.U(n + 1)
	}
}

// Strs writes a list of strings.
func (w *ValueWriter) Strs(l []string) {
	w.Len(len(l), l == nil)
	for _, s := range l {
		w.Str(s)
	}
}

// Findings writes findings.
func (w *ValueWriter) Findings(fs []workflow.Finding) {
	w.Len(len(fs), fs == nil)
	for _, f := range fs {
		w.Str(f.Check)
		w.Str(string(f.Severity))
		w.Str(f.Code)
		w.Str(f.Message)
		w.Str(f.Path)
		w.Str(f.Phase)
		w.U(f.Line)
	}
}

// Phases writes phases.
func (w *ValueWriter) Phases(ps []workflow.Phase) {
	w.Len(len(ps), ps == nil)
	for _, p := range ps {
		w.Str(p.ID)
		w.Str(p.Name)
		w.Str(p.Agent)
		w.Str(p.Status)
		w.Strs(p.Outputs)
		w.Strs(p.DependsOn)
	}
}

// Position writes a position.
func (w *ValueWriter) Position(p workflow.Position) {
	w.Str(p.Kind)
	w.U(p.Done)
	w.U(p.Total)
	w.Str(p.At)
	w.Str(p.Last)
	w.U(p.Index)
	w.Str(p.Name)
	w.U(p.Phase)
	w.U(p.Phases)
}

// Files writes referenced files.
func (w *ValueWriter) Files(fs []workflow.RefFile) {
	w.Len(len(fs), fs == nil)
	for _, f := range fs {
		w.Str(f.Path)
		w.Str(f.Phase)
		w.Str(f.Hash)
		w.Str(f.From)
		w.Flag(f.Critical)
		w.Flag(f.Produced)
	}
}

// Resume writes a resume point.
func (w *ValueWriter) Resume(rp *workflow.ResumePoint) {
	w.Str(rp.Item)
	w.Str(rp.Title)
	w.Str(rp.Section)
	w.Strs(rp.Labels)
	w.Strs(rp.Files)
	w.U(rp.Done)
	w.U(rp.Total)
	w.Strs(rp.Holes)
	w.Str(rp.Note)
	w.Str(rp.FrameworkCommand)
	w.Str(rp.FrameworkNext)
	w.Flag(rp.Differs)
	w.Str(rp.DiffersWhy)
}

// N reads a number ValueWriter.U wrote.
func (r *ValueReader) N() int { return r.U(maxDraftNumber) }

// S reads a string ValueWriter.Str wrote.
func (r *ValueReader) S() string { return r.Str(maxDraftString) }

// Flag reads a bool.
func (r *ValueReader) Flag() bool { return r.U(1) == 1 }

// ListLen reads a list's length; ok is false for nil (or a bad value).
func (r *ValueReader) ListLen() (n int, ok bool) {
	k := r.U(maxDraftList)
	if k == 0 || r.Bad {
		return 0, false
	}
	return k - 1, true
}

// capFor is the capacity to make for n items: each takes a byte at least.
func (r *ValueReader) capFor(n int) int { return min(n, r.Len()) }

// Strs reads a list ValueWriter.Strs wrote.
func (r *ValueReader) Strs() []string {
	n, ok := r.ListLen()
	if !ok {
		return nil
	}
	out := make([]string, 0, r.capFor(n))
	for i := 0; i < n && !r.Bad; i++ {
		out = append(out, r.S())
	}
	return out
}

// Findings reads findings.
func (r *ValueReader) Findings() []workflow.Finding {
	n, ok := r.ListLen()
	if !ok {
		return nil
	}
	out := make([]workflow.Finding, 0, r.capFor(n))
	for i := 0; i < n && !r.Bad; i++ {
		out = append(out, workflow.Finding{Check: r.S(), Severity: workflow.Severity(r.S()), Code: r.S(), Message: r.S(), Path: r.S(), Phase: r.S(), Line: r.N()})
	}
	return out
}

// Phases reads phases.
func (r *ValueReader) Phases() []workflow.Phase {
	n, ok := r.ListLen()
	if !ok {
		return nil
	}
	out := make([]workflow.Phase, 0, r.capFor(n))
	for i := 0; i < n && !r.Bad; i++ {
		out = append(out, workflow.Phase{ID: r.S(), Name: r.S(), Agent: r.S(), Status: r.S(), Outputs: r.Strs(), DependsOn: r.Strs()})
	}
	return out
}

// Position reads a position.
func (r *ValueReader) Position() workflow.Position {
	return workflow.Position{Kind: r.S(), Done: r.N(), Total: r.N(), At: r.S(), Last: r.S(), Index: r.N(), Name: r.S(), Phase: r.N(), Phases: r.N()}
}

// Files reads referenced files.
func (r *ValueReader) Files() []workflow.RefFile {
	n, ok := r.ListLen()
	if !ok {
		return nil
	}
	out := make([]workflow.RefFile, 0, r.capFor(n))
	for i := 0; i < n && !r.Bad; i++ {
		out = append(out, workflow.RefFile{Path: r.S(), Phase: r.S(), Hash: r.S(), From: r.S(), Critical: r.Flag(), Produced: r.Flag()})
	}
	return out
}

// Resume reads a resume point.
func (r *ValueReader) Resume() workflow.ResumePoint {
	return workflow.ResumePoint{Item: r.S(), Title: r.S(), Section: r.S(), Labels: r.Strs(), Files: r.Strs(), Done: r.N(), Total: r.N(),
		Holes: r.Strs(), Note: r.S(), FrameworkCommand: r.S(), FrameworkNext: r.S(), Differs: r.Flag(), DiffersWhy: r.S()}
}
