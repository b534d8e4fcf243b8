package kiro

import (
	"encoding/binary"
	"strconv"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// The draft cache keeps, in a table of its own, each spec folder's settled
// spec (what readSpec and settle make of it: its counts, marks, documents
// and draft candidate; see settle), so that a warm run takes a finished
// spec whole instead of decoding its tasks and settling them again. An
// entry is keyed (source.StatTable) on the folder's own stat (an fstat of
// its descriptor, opened one component at a time without following a
// symlink; its times move whenever a name is added, removed or renamed in
// it) and a path naming the folder, its kiro root and the stat (device,
// inode, mode, size, modification and change times, a no-follow fstatat) of
// every document the spec reads (tasks.md, .config.kiro, config.kiro,
// tasks.meta.json, spec.json), salted with the table's version, the build
// and how cc-sdd's command is spelled (detectCommands). Only a spec whose
// documents are all regular files, all read cleanly (no finding, no
// budget refusal), with a folder listed in full, is stored; a folder or
// document changed within source.StatCacheRacy of the scan's clock is not.
// The value is the questions the spec's parse and settle asked of the file
// system with their answers (source.Asked; a spec that asked more than
// source.MaxAsked is not stored), then the settled spec (encodeDraft). An
// entry is used only when every question still has its answer; a value
// that does not decode, or breaks a bound, is a miss. A hit draws from the
// scan's element budget what the tasks and documents caches' hits would
// (1 + its tasks for tasks.md, 1 a document, in the same order); when the
// budget refuses one, the spec is read the usual way. See docs/SECURITY.md.

// draftCacheKind is the draft cache's table. Bump its Version on any change
// of what readSpec or settle make of a folder, or of the value encoding.
var draftCacheKind = source.StatTableKind{Name: "kiro-drafts", Label: "orchestrate kiro settled specs", Version: 1}

// readDocs are the documents of a spec folder that readSpec reads (in its
// order): a draft depends on their content.
var readDocs = []string{"tasks.md", "spec.json", ".config.kiro", "config.kiro", "tasks.meta.json"}

// draftKey is what a spec folder's entry is looked up and stored by.
type draftKey struct {
	p        string            // the folder, its root and its documents' stats
	folder   safefile.FileStat // the folder's own
	storable bool              // neither the folder nor a document changed within the racy window
	tasks    safefile.FileStat // tasks.md's, when the spec has one
}

// draftKeyOf makes the key of the spec folder dir (under root, opened as
// folder, listed as names): ok is false when the spec cannot be kept (no
// table, no descriptor, a document that is no regular file or cannot be
// stat'ed).
func (c *tasksCache) draftKeyOf(folder *safefile.Dir, root, dir string, names map[string]bool) (k draftKey, ok bool) {
	if c.off() || c.drafts == nil || folder == nil {
		return k, false
	}
	st, err := folder.Stat()
	if err != nil {
		return k, false
	}
	k.folder = st
	k.storable = c.drafts.Storable(st)
	b := make([]byte, 0, 64+len(dir)+len(root)+5*48)
	b = append(b, dir...)
	b = append(b, 0)
	b = append(b, root...)
	for _, name := range readDocs {
		if !names[name] {
			continue
		}
		fs, err := folder.StatNoFollow(name)
		if err != nil || !fs.Regular() {
			return k, false // a symlink, a FIFO, a folder: read the usual way
		}
		if name == "tasks.md" {
			k.tasks = fs
		}
		k.storable = k.storable && c.drafts.Storable(fs)
		b = append(b, 0)
		b = append(b, name...)
		b = binary.LittleEndian.AppendUint64(b, fs.Dev)
		b = binary.LittleEndian.AppendUint64(b, fs.Ino)
		b = binary.LittleEndian.AppendUint32(b, fs.Mode)
		b = binary.LittleEndian.AppendUint64(b, uint64(fs.Size))
		b = strconv.AppendInt(b, fs.Mtime.UnixNano(), 16)
		b = append(b, '.')
		b = strconv.AppendInt(b, fs.Ctime.UnixNano(), 16)
	}
	k.p = string(b)
	return k, true
}

// draftHit fills s (its Root, Dir and Name set) from the entry of k, when
// every question it asked has its answer again and the budget takes what
// it draws; false: read the spec the usual way.
func (c *tasksCache) draftHit(s *spec, k draftKey, names map[string]bool, exists func(string) bool) bool {
	v, ok := c.drafts.Find(k.p, k.folder, nil)
	if !ok {
		return false
	}
	rest, same := source.AskedAgain(v, exists)
	if !same {
		return false
	}
	var d spec
	ntasks, ok := decodeDraft(rest, &d)
	if !ok {
		return false
	}
	// the documents, as readSpec lists them, each drawn from the budget as
	// the documents cache's hits draw
	for _, doc := range append(append([]string(nil), specDocs...), otherDocs...) {
		if !names[doc] {
			continue
		}
		p := s.Dir + "/" + doc
		d.Docs = append(d.Docs, p)
		n := 0
		switch doc {
		case "tasks.md":
			d.TasksPath, d.ModTime, n = p, k.tasks.Mtime, 1+ntasks
		case "tasks.meta.json":
			d.HasMeta, n = true, 1
		case ".config.kiro", "config.kiro", "spec.json":
			n = 1
		}
		if n > 0 && c.SpendN(p, n) != nil {
			return false // read the usual way, which reports it
		}
	}
	d.Root, d.Dir, d.Name = s.Root, s.Dir, s.Name
	*s = d
	c.drafts.AddHits(1)
	return true
}

// storeDraft keeps settled spec s under k with the questions asked.
func (c *tasksCache) storeDraft(s *spec, k draftKey, asked *source.Asked, ntasks int) {
	if !k.storable || !asked.Storable() {
		return
	}
	c.drafts.Add(k.p, k.folder, encodeDraft(asked.Append(nil), s, ntasks), nil)
}

// Bounds of a draft value (a value past one is a miss).
const (
	maxDraftString = 64 << 10
	maxDraftList   = 1 << 16
	maxDraftNumber = 1 << 31
)

// encodeDraft appends settled spec s (its tasks.md of ntasks tasks) as a
// value: numbers as uvarints, strings as their length and bytes, a list
// as its length plus one (0: nil), a flag as 0 or 1.
func encodeDraft(b []byte, s *spec, ntasks int) []byte {
	u := func(n int) { b = binary.AppendUvarint(b, uint64(n)) }
	str := func(v string) { u(len(v)); b = append(b, v...) }
	flag := func(v bool) {
		if v {
			u(1)
		} else {
			u(0)
		}
	}
	list := func(l []string) {
		if l == nil {
			u(0)
			return
		}
		u(len(l) + 1)
		for _, v := range l {
			str(v)
		}
	}
	u(ntasks)
	cn := s.Counts
	for _, n := range []int{cn.Done, cn.Total, cn.OptionalDone, cn.OptionalTotal, cn.BoxesDone, cn.Boxes} {
		u(n)
	}
	list(s.marks.inProgress)
	list(s.marks.queued)
	flag(s.marks.leafMarked)
	flag(s.Config.Present)
	str(s.Config.GenerationMode)
	str(s.Config.SpecID)
	str(s.Config.WorkflowType)
	str(s.Config.SpecType)
	str(s.Meta.LastTask)
	str(s.Meta.LastID)
	str(s.Meta.PBT)
	flag(s.Meta.Bad)
	at, _ := s.Meta.LastAt.MarshalBinary()
	str(string(at))
	flag(s.SpecJSON.Present)
	str(s.SpecJSON.Phase)
	flag(s.SpecJSON.TasksApproved)
	flag(s.SpecJSON.Known)
	d := s.draft
	findings := func(fs []workflow.Finding) {
		if fs == nil {
			u(0)
			return
		}
		u(len(fs) + 1)
		for _, f := range fs {
			str(f.Check)
			str(string(f.Severity))
			str(f.Code)
			str(f.Message)
			str(f.Path)
			str(f.Phase)
			u(f.Line)
		}
	}
	findings(s.Findings)
	findings(d.Findings)
	if d.Phases == nil {
		u(0)
	} else {
		u(len(d.Phases) + 1)
		for _, p := range d.Phases {
			str(p.ID)
			str(p.Name)
			str(p.Agent)
			str(p.Status)
			list(p.Outputs)
			list(p.DependsOn)
		}
	}
	p := d.Position
	str(p.Kind)
	u(p.Done)
	u(p.Total)
	str(p.At)
	str(p.Last)
	u(p.Index)
	str(p.Name)
	u(p.Phase)
	u(p.Phases)
	if d.Files == nil {
		u(0)
	} else {
		u(len(d.Files) + 1)
		for _, f := range d.Files {
			str(f.Path)
			str(f.Phase)
			str(f.Hash)
			str(f.From)
			flag(f.Critical)
			flag(f.Produced)
		}
	}
	rp := d.Resume
	flag(rp != nil)
	if rp != nil {
		str(rp.Item)
		str(rp.Title)
		str(rp.Section)
		list(rp.Labels)
		list(rp.Files)
		u(rp.Done)
		u(rp.Total)
		list(rp.Holes)
		str(rp.Note)
		str(rp.FrameworkCommand)
		str(rp.FrameworkNext)
		flag(rp.Differs)
		str(rp.DiffersWhy)
	}
	return b
}

// decodeDraft reads a value encodeDraft wrote into s (its counts, marks,
// documents' parses, findings and draft; the rest is the caller's) and
// gives the number of tasks of its tasks.md; ok is false for anything else.
func decodeDraft(v []byte, s *spec) (ntasks int, ok bool) {
	r := source.NewValueReader(v)
	u := func() int { return r.U(maxDraftNumber) }
	str := func() string { return r.Str(maxDraftString) }
	flag := func() bool { return r.U(1) == 1 }
	n := func() (int, bool) { // a list's length, false for nil
		k := r.U(maxDraftList)
		return k - 1, k > 0 && !r.Bad
	}
	list := func() []string {
		k, ok := n()
		if !ok {
			return nil
		}
		out := make([]string, 0, min(k, r.Len()))
		for i := 0; i < k && !r.Bad; i++ {
			out = append(out, str())
		}
		return out
	}
	ntasks = r.U(maxTasks)
	s.Counts = Counts{Done: u(), Total: u(), OptionalDone: u(), OptionalTotal: u(), BoxesDone: u(), Boxes: u()}
	s.marks.inProgress = list()
	s.marks.queued = list()
	s.marks.leafMarked = flag()
	s.Config = kiroConfig{Present: flag(), GenerationMode: str(), SpecID: str(), WorkflowType: str(), SpecType: str()}
	s.Meta = meta{LastTask: str(), LastID: str(), PBT: str(), Bad: flag()}
	if err := s.Meta.LastAt.UnmarshalBinary([]byte(str())); err != nil {
		r.Bad = true
	}
	s.SpecJSON = specJSON{Present: flag(), Phase: str(), TasksApproved: flag(), Known: flag()}
	findings := func() []workflow.Finding {
		k, ok := n()
		if !ok {
			return nil
		}
		out := make([]workflow.Finding, 0, min(k, r.Len()))
		for i := 0; i < k && !r.Bad; i++ {
			out = append(out, workflow.Finding{Check: str(), Severity: workflow.Severity(str()), Code: str(), Message: str(), Path: str(), Phase: str(), Line: u()})
		}
		return out
	}
	s.Findings = findings()
	d := &workflow.Candidate{Findings: findings()}
	if k, ok := n(); ok {
		d.Phases = make([]workflow.Phase, 0, min(k, r.Len()))
		for i := 0; i < k && !r.Bad; i++ {
			d.Phases = append(d.Phases, workflow.Phase{ID: str(), Name: str(), Agent: str(), Status: str(), Outputs: list(), DependsOn: list()})
		}
	}
	d.Position = workflow.Position{Kind: str(), Done: u(), Total: u(), At: str(), Last: str(), Index: u(), Name: str(), Phase: u(), Phases: u()}
	if k, ok := n(); ok {
		d.Files = make([]workflow.RefFile, 0, min(k, r.Len()))
		for i := 0; i < k && !r.Bad; i++ {
			d.Files = append(d.Files, workflow.RefFile{Path: str(), Phase: str(), Hash: str(), From: str(), Critical: flag(), Produced: flag()})
		}
	}
	if flag() {
		d.Resume = &workflow.ResumePoint{Item: str(), Title: str(), Section: str(), Labels: list(), Files: list(), Done: u(), Total: u(),
			Holes: list(), Note: str(), FrameworkCommand: str(), FrameworkNext: str(), Differs: flag(), DiffersWhy: str()}
	}
	if r.Bad || r.Len() != 0 || d.Resume == nil {
		return 0, false
	}
	s.draft = d
	return ntasks, true
}
