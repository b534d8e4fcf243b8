package openspec

import (
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// The draft cache keeps, in a table of its own, each active change's
// settled state (what readActive and settle make of its folder: readActive's
// findings, .openspec.yaml's created and schema, and the draft its
// candidate is built from), so that a warm run takes a change whole instead
// of decoding its tasks and settling them again. An entry is keyed
// (source.StatTable) on the change folder's own stat (an fstat of its
// descriptor, opened one component at a time without following a symlink,
// taken before the folder is listed: its times move whenever a name is
// added, removed or renamed in it; each document is stat'ed before it is
// read: a change meanwhile leaves an entry under a stat no longer there, a
// miss) and a
// path naming the folder, its root's layout version and schema, the stat
// (device, inode, mode, size, modification and change times, a no-follow
// fstatat) of its tasks.md and .openspec.yaml, and its delta specs as
// specs/*/spec.md lists them this run; salted with the table's version and
// the build. Only a change whose tasks.md (and .openspec.yaml, when there)
// is a regular file, whose folder was listed in full and whose documents
// all read cleanly (no finding of a read, no budget refusal) is stored; a
// folder or document changed within source.StatCacheRacy of the scan's
// clock is not. The value is the questions its parse and settle asked of
// the file system with their answers (source.Asked; more than
// source.MaxAsked: not stored), then the settled state (encodeDraft). An
// entry is used only when every question still has its answer; a value
// that does not decode, or breaks a bound, is a miss. A hit draws from the
// scan's element budget what the tasks and meta caches' hits would (1 +
// its tasks for tasks.md, 1 for a .openspec.yaml read); when the budget
// refuses one, the change is read the usual way. See docs/SECURITY.md.

// draftCacheKind is the draft cache's table. Bump its Version on any change
// of what readActive or settle make of a folder, or of the value encoding.
var draftCacheKind = source.StatTableKind{Name: "openspec-drafts", Label: "orchestrate openspec settled changes", Version: 1}

// draftKey is what a change folder's entry is looked up and stored by.
type draftKey struct {
	p        string            // the folder, its root's layout and schema, its documents
	folder   safefile.FileStat // the folder's own
	tasks    safefile.FileStat // tasks.md's
	storable bool              // nothing changed within the racy window
	specs    []string          // the delta specs listed for the key
}

// readActiveKept reads active change c (its folder's files has, listed in
// full when listed, opened as folder) and settles it: taken whole from the
// draft cache when unchanged, else read (readActive), settled and stored.
func readActiveKept(r *source.Repo, rt *root, c *change, has map[string]bool, listed bool, folder *safefile.Dir, ds *source.DirStat, cache *tasksCache, exists func(string) bool) *change {
	k, keyed := cache.draftKeyOf(r, rt, c.Dir, has, listed, folder, ds)
	if keyed && cache.draftHit(c, k, has, exists) {
		return c
	}
	var asked *source.Asked
	if keyed {
		asked = source.NewAsked(exists)
		exists = asked.Func()
	}
	clean := readActive(r, rt, c, has, folder, cache, exists, k.specs)
	ntasks := len(c.Tasks.Tasks)
	c.settle()
	if keyed && clean && k.storable && asked.Storable() {
		cache.drafts.Add(k.p, k.folder, encodeDraft(asked.Append(nil), c, ntasks), nil)
	}
	return c
}

// draftKeyOf makes the key of the active change folder dir; ok is false
// when it cannot be kept (no table, no descriptor, a folder not listed in
// full, no tasks.md or one, or a .openspec.yaml, that is no regular file).
func (c *tasksCache) draftKeyOf(r *source.Repo, rt *root, dir string, has map[string]bool, listed bool, folder *safefile.Dir, ds *source.DirStat) (k draftKey, ok bool) {
	if c.off() || c.drafts == nil || folder == nil || !listed || !has["tasks.md"] {
		return k, false
	}
	st, ok := ds.Get() // taken before the folder was listed
	if !ok {
		return k, false
	}
	k.folder = st
	k.storable = c.drafts.Storable(st)
	b := make([]byte, 0, 256)
	b = append(b, dir...)
	b = append(b, 0)
	b = append(b, rt.Layout.Version...)
	b = append(b, 0)
	b = append(b, rt.Schema...)
	var docsStorable, docsOK bool
	b, k.tasks, docsStorable, docsOK = c.drafts.AppendDocStats(b, folder, []string{"tasks.md", ".openspec.yaml"}, has)
	if !docsOK {
		return k, false // a symlink, a FIFO, a folder: read the usual way
	}
	k.storable = k.storable && docsStorable
	if has["specs/"] {
		k.specs = deltaSpecs(r, c, folder, dir)
		if k.specs == nil {
			k.specs = []string{} // listed: none
		}
	}
	for _, s := range k.specs {
		b = append(b, 0)
		b = append(b, s...)
	}
	k.p = string(b)
	return k, true
}

// draftHit fills active change c from the entry of k, when every question
// it asked has its answer again and the budget takes what it draws; false:
// read the change the usual way.
func (c *tasksCache) draftHit(ch *change, k draftKey, has map[string]bool, exists func(string) bool) bool {
	// the questions were asked through the parse's bounded look-up; asked
	// again directly, each has the answer it had, or the entry is not used
	rest, ok := c.drafts.FindAsked(k.p, k.folder, exists)
	if !ok {
		return false
	}
	got := change{Root: ch.Root, Dir: ch.Dir, ID: ch.ID}
	ntasks, ok := decodeDraft(rest, &got)
	if !ok {
		return false
	}
	// .openspec.yaml is read for a change in flight (readActive)
	metaRead := has[".openspec.yaml"] && got.inFlight()
	p := ch.Dir + "/tasks.md"
	if c.SpendN(p, 1+ntasks) != nil || (metaRead && c.SpendN(ch.Dir+"/.openspec.yaml", 1) != nil) {
		return false // read the usual way, which reports it
	}
	ch.TasksPath, ch.ModTime = p, k.tasks.Mtime
	ch.Docs = changeDocs(nil, c, nil, ch.Dir, has, k.specs)
	ch.Findings, ch.Created, ch.Schema, ch.d = got.Findings, got.Created, got.Schema, got.d
	c.drafts.AddHits(1)
	return true
}

// encodeDraft appends settled active change c (its tasks.md of ntasks
// tasks) as a value (source.ValueWriter).
func encodeDraft(b []byte, c *change, ntasks int) []byte {
	w := &source.ValueWriter{B: b}
	w.U(ntasks)
	w.Str(c.Created)
	w.Str(c.Schema)
	w.Findings(c.Findings)
	d := c.d
	for _, n := range []int{d.done, d.total, d.oldDone, d.oldTotal, d.cliDone, d.cliTotal, d.midDone, d.midTotal, d.fenced} {
		w.U(n)
	}
	w.Phases(d.phases)
	w.Position(d.position)
	w.Resume(&d.resume)
	w.Files(d.files)
	w.Findings(d.findings)
	return w.B
}

// decodeDraft reads a value encodeDraft wrote into c (its findings,
// created, schema and draft) and gives the number of tasks of its
// tasks.md; ok is false for anything else.
func decodeDraft(v []byte, c *change) (ntasks int, ok bool) {
	r := source.NewValueReader(v)
	ntasks = r.U(maxTasks)
	c.Created, c.Schema = r.S(), r.S()
	c.Findings = r.Findings()
	d := &draft{done: r.N(), total: r.N(), oldDone: r.N(), oldTotal: r.N(), cliDone: r.N(), cliTotal: r.N(), midDone: r.N(), midTotal: r.N(), fenced: r.N()}
	d.phases = r.Phases()
	d.position = r.Position()
	d.resume = r.Resume()
	d.files = r.Files()
	d.findings = r.Findings()
	if r.Bad || r.Len() != 0 {
		return 0, false
	}
	c.d = d
	return ntasks, true
}
