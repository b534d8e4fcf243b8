package kiro

import (
	"encoding/binary"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// The tasks cache keeps each tasks.md's parse in the user's cache
// (internal/diskcache), keyed as the story and workflow-state caches key
// their entries (source.StatTable): a SHA-256 of the file's
// repository-relative path, its stat data (device, inode, mode, size,
// modification and change times) and what salts tasksCacheKind (its
// version, the build; the parse depends on nothing else: no setting). The
// stat comes from the file's folder opened one component at a time
// without following a symlink (source.Folders) and a no-follow stat of the
// file; a file changed within source.StatCacheRacy of the scan's clock is
// not stored. The value is the questions the parse asked of the file
// system with their answers (source.Asked), then the parse (encodeTasks).
// A stored parse is used only when each of its questions still has its
// answer: the parse would ask the same and give the same; a parse that
// asked more than source.MaxAsked is done again on every run. A value that
// does not decode, or breaks a bound, is a miss. See docs/SECURITY.md.

// tasksCacheKind is the tasks cache's table. Bump its Version on any change
// of what ParseTasksIn gives for a text or of the value encoding.
var tasksCacheKind = source.StatTableKind{Name: "kiro-tasks", Label: "orchestrate kiro tasks cache", Version: 2}

// tasksCache is one scan's use of the table, or without the cache (the
// table nil) the folders the scan opens: with the cache or without, each
// spec folder is opened once (source.Folders: inside its open parent,
// without following a symlink), listed through its descriptor and its few
// files read through it (source.ReadRegularIn). It is safe for concurrent
// use by the scan's workers.
type tasksCache struct {
	*source.FolderTable                   // nil without the cache
	folders             *source.StatTable // the folder cache (foldercache.go)
	drafts              *source.StatTable // the draft cache (draftcache.go)
	cold                *source.Folders   // the folders opened without the cache
}

// openTasksCache opens r's tables (the draft cache's salted with how
// cmds spells the implementation command); without the cache it only
// opens folders.
func openTasksCache(r *source.Repo, cmds commands) *tasksCache {
	t := source.OpenFolderTable(r, &tasksCacheKind)
	if t == nil {
		return &tasksCache{cold: source.NewFolders(r.Root)}
	}
	return &tasksCache{FolderTable: t, folders: source.OpenStatTable(r, &folderCacheKind),
		drafts: source.OpenStatTable(r, &draftCacheKind, cmds.impl)}
}

// off reports a scan without the cache (c nil, or only its folders).
func (c *tasksCache) off() bool { return c == nil || c.FolderTable == nil }

// openDir opens the spec folder dir (the caller closes it), nil when it
// cannot be opened that way (its files are then read by path).
func (c *tasksCache) openDir(dir string) *safefile.Dir {
	switch {
	case c == nil:
		return nil
	case c.FolderTable == nil:
		return c.cold.OpenFolder(dir)
	}
	return c.OpenDir(dir)
}

// save is SaveAndClose (without the cache: closes the folders opened),
// nothing when c is nil.
func (c *tasksCache) save() {
	switch {
	case c == nil:
	case c.FolderTable == nil:
		c.cold.Close()
	default:
		c.SaveAndClose()
		if c.folders != nil {
			c.folders.Save()
		}
		if c.drafts != nil {
			c.drafts.Save()
		}
	}
}

// parseTasks gives the parse of tasks.md p, in the spec folder d (ParseTasksIn with a fresh
// refpath.BoundedExists of exists) and its modification time: from the
// cache when its stat data is unchanged and every question the stored
// parse asked of the file system still has its answer
// (source.AskedAgain), else read (through its safely opened folder, else
// with r.ReadWithTime, which reports any problem) and parsed, and recorded
// with its questions and answers (at most source.MaxAsked). c may be nil.
func (c *tasksCache) parseTasks(r *source.Repo, p string, d *safefile.Dir, exists func(string) bool) (Tasks, time.Time, error) {
	bounded := refpath.BoundedExists(exists, maxExistsLookups)
	if c.off() || d == nil {
		return parseRead(r, p, d, bounded)
	}
	name := source.BaseName(p)
	if v, fs, ok := c.Lookup(d, name, p, nil); ok {
		if rest, same := source.AskedAgain(v, bounded); same {
			if ts, ok := decodeTasks(rest); ok {
				c.AddHits(1)
				// a parse from the cache draws its tasks from the scan's
				// element budget (docs/SECURITY.md, "Counts")
				if err := c.SpendN(p, 1+len(ts.Tasks)); err != nil {
					return Tasks{}, fs.Mtime, err // as r.ReadWithTime refuses it
				}
				return ts, fs.Mtime, nil
			}
		}
		bounded = refpath.BoundedExists(exists, maxExistsLookups) // a miss: as if nothing was asked
	}
	bp := source.GetReadBuf()
	defer source.PutReadBuf(bp) // ParseTasksIn copies the text it keeps
	data, fs, done, err := source.ReadRegularIn(r, d, p, bp)
	switch {
	case !done:
		return parseRead(r, p, nil, bounded)
	case err != nil: // read beside r.Read: drawn from the scan's budget
		return Tasks{}, fs.Mtime, err // as r.ReadWithTime refuses it
	}
	asked := source.NewAsked(bounded)
	ts := ParseTasksIn(data, asked.Func())
	if asked.Storable() && c.Storable(fs) {
		c.Add(p, fs, append(asked.Append(nil), encodeTasks(&ts)...), nil)
	}
	return ts, fs.Mtime, nil
}

// parseRead reads p (through its folder d when it can, else with
// r.ReadWithTime: source.ReadParseIn) and parses it (no cache).
func parseRead(r *source.Repo, p string, d *safefile.Dir, exists func(string) bool) (Tasks, time.Time, error) {
	return source.ReadParseIn(r, d, p, func(data []byte) Tasks { return ParseTasksIn(data, exists) })
}

// encodeTasks writes a parse as a value: lengths and numbers as uvarints,
// strings as their length and bytes.
func encodeTasks(ts *Tasks) []byte {
	b := make([]byte, 0, 64*len(ts.Tasks)+16)
	u := func(n int) { b = binary.AppendUvarint(b, uint64(n)) }
	str := func(s string) { u(len(s)); b = append(b, s...) }
	list := func(l []string) {
		u(len(l))
		for _, s := range l {
			str(s)
		}
	}
	flag := func(v bool) {
		if v {
			u(1)
		} else {
			u(0)
		}
	}
	u(len(ts.Tasks))
	for i := range ts.Tasks {
		t := &ts.Tasks[i]
		str(t.ID)
		str(t.Title)
		u(int(t.State))
		flag(t.Optional)
		flag(t.Parallel)
		u(t.Indent)
		u(t.Line)
		u(t.Parent + 1)
		u(t.Children)
		str(t.Heading)
		list(t.Requirements)
		list(t.Depends)
		str(t.Blocked)
		list(t.Paths)
	}
	u(len(ts.Unparsed))
	for _, n := range ts.Unparsed {
		u(n)
	}
	u(len(ts.Waves))
	for _, w := range ts.Waves {
		list(w)
	}
	flag(ts.GraphBad)
	list(ts.Duplicates)
	flag(ts.Truncated)
	return b
}

// decodeTasks reads a value encodeTasks wrote; ok is false for anything
// else or a value past the parser's bounds.
// Its strings are substrings of one copy of b: a spec's tasks are one
// allocation, not one per title, id and path (500 specs of 32 tasks were
// 100,000 small strings live for the whole run).
func decodeTasks(b []byte) (ts Tasks, ok bool) {
	r := source.NewValueReader(b)
	u := r.U
	str := func() string { return r.Str(maxLineLen * 4) }
	list := func(limit int) []string { return r.List(limit, maxLineLen*4) }
	n := u(maxTasks)
	if n > 0 {
		ts.Tasks = make([]Task, 0, n)
	}
	for i := 0; i < n && !r.Bad; i++ {
		t := Task{ID: str(), Title: str(), State: rune(u(0x10FFFF)), Optional: u(1) == 1, Parallel: u(1) == 1}
		t.Indent, t.Line = u(1<<20), u(1<<30)
		t.Parent = u(i) - 1
		t.Children = u(maxTasks)
		t.Heading = str()
		t.Requirements, t.Depends = list(maxRefs), list(maxRefs)
		t.Blocked = str()
		t.Paths = list(maxTaskPaths)
		ts.Tasks = append(ts.Tasks, t)
	}
	if k := u(maxUnparsed); k > 0 && !r.Bad {
		ts.Unparsed = make([]int, 0, k)
		for i := 0; i < k && !r.Bad; i++ {
			ts.Unparsed = append(ts.Unparsed, u(1<<30))
		}
	}
	if k := u(maxWaves); k > 0 && !r.Bad {
		ts.Waves = make([][]string, 0, k)
		for i := 0; i < k && !r.Bad; i++ {
			ts.Waves = append(ts.Waves, list(maxWaveTasks))
		}
	}
	ts.GraphBad = u(1) == 1
	ts.Duplicates = list(maxTasks)
	ts.Truncated = u(1) == 1
	if r.Bad || r.Len() != 0 {
		return Tasks{}, false
	}
	return ts, true
}
