package kiro

import (
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
// symlink, taken before the folder is listed, as the folder cache takes it;
// its times move whenever a name is added, removed or renamed in it; each
// document is stat'ed before it is read: a change meanwhile leaves an entry
// under a stat no longer there, a miss) and a path naming the folder, its kiro root and the stat (device,
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
// stat'ed). ds is the folder's stat when the listing took it.
func (c *tasksCache) draftKeyOf(folder *safefile.Dir, ds *source.DirStat, root, dir string, names map[string]bool) (k draftKey, ok bool) {
	if c.off() || c.drafts == nil || folder == nil {
		return k, false
	}
	st, ok := ds.Get() // taken before the folder was listed
	if !ok {
		return k, false
	}
	k.folder = st
	k.storable = c.drafts.Storable(st)
	b := make([]byte, 0, 64+len(dir)+len(root)+5*48)
	b = append(b, dir...)
	b = append(b, 0)
	b = append(b, root...)
	var docsStorable, docsOK bool
	b, k.tasks, docsStorable, docsOK = c.drafts.AppendDocStats(b, folder, readDocs, names)
	if !docsOK {
		return k, false // a symlink, a FIFO, a folder: read the usual way
	}
	k.storable = k.storable && docsStorable
	k.p = string(b)
	return k, true
}

// draftHit fills s (its Root, Dir and Name set) from the entry of k, when
// every question it asked has its answer again and the budget takes what
// it draws; false: read the spec the usual way.
func (c *tasksCache) draftHit(s *spec, k draftKey, names map[string]bool, exists func(string) bool) bool {
	rest, ok := c.drafts.FindAsked(k.p, k.folder, exists)
	if !ok {
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

// encodeDraft appends settled spec s (its tasks.md of ntasks tasks) as a
// value (source.ValueWriter).
func encodeDraft(b []byte, s *spec, ntasks int) []byte {
	w := &source.ValueWriter{B: b}
	w.U(ntasks)
	cn := s.Counts
	for _, n := range []int{cn.Done, cn.Total, cn.OptionalDone, cn.OptionalTotal, cn.BoxesDone, cn.Boxes} {
		w.U(n)
	}
	w.Strs(s.marks.inProgress)
	w.Strs(s.marks.queued)
	w.Flag(s.marks.leafMarked)
	w.Flag(s.Config.Present)
	w.Str(s.Config.GenerationMode)
	w.Str(s.Config.SpecID)
	w.Str(s.Config.WorkflowType)
	w.Str(s.Config.SpecType)
	w.Str(s.Meta.LastTask)
	w.Str(s.Meta.LastID)
	w.Str(s.Meta.PBT)
	w.Flag(s.Meta.Bad)
	at, _ := s.Meta.LastAt.MarshalBinary()
	w.Str(string(at))
	w.Flag(s.SpecJSON.Present)
	w.Str(s.SpecJSON.Phase)
	w.Flag(s.SpecJSON.TasksApproved)
	w.Flag(s.SpecJSON.Known)
	d := s.draft
	w.Findings(s.Findings)
	w.Findings(d.Findings)
	w.Phases(d.Phases)
	w.Position(d.Position)
	w.Files(d.Files)
	w.Flag(d.Resume != nil)
	if d.Resume != nil {
		w.Resume(d.Resume)
	}
	return w.B
}

// decodeDraft reads a value encodeDraft wrote into s (its counts, marks,
// documents' parses, findings and draft; the rest is the caller's) and
// gives the number of tasks of its tasks.md; ok is false for anything else.
func decodeDraft(v []byte, s *spec) (ntasks int, ok bool) {
	r := source.NewValueReader(v)
	ntasks = r.U(maxTasks)
	s.Counts = Counts{Done: r.N(), Total: r.N(), OptionalDone: r.N(), OptionalTotal: r.N(), BoxesDone: r.N(), Boxes: r.N()}
	s.marks.inProgress = r.Strs()
	s.marks.queued = r.Strs()
	s.marks.leafMarked = r.Flag()
	s.Config = kiroConfig{Present: r.Flag(), GenerationMode: r.S(), SpecID: r.S(), WorkflowType: r.S(), SpecType: r.S()}
	s.Meta = meta{LastTask: r.S(), LastID: r.S(), PBT: r.S(), Bad: r.Flag()}
	if err := s.Meta.LastAt.UnmarshalBinary([]byte(r.S())); err != nil {
		r.Bad = true
	}
	s.SpecJSON = specJSON{Present: r.Flag(), Phase: r.S(), TasksApproved: r.Flag(), Known: r.Flag()}
	s.Findings = r.Findings()
	d := &workflow.Candidate{Findings: r.Findings(), Phases: r.Phases(), Position: r.Position(), Files: r.Files()}
	if r.Flag() {
		rp := r.Resume()
		d.Resume = &rp
	}
	if r.Bad || r.Len() != 0 || d.Resume == nil {
		return 0, false
	}
	s.draft = d
	return ntasks, true
}
