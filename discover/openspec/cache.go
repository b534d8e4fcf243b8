package openspec

import (
	"encoding/binary"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// The tasks cache keeps each change's tasks.md parse in the user's cache
// (internal/diskcache), keyed as the story and workflow-state caches key
// their entries (source.StatTable): a SHA-256 of the file's
// repository-relative path, its stat data (device, inode, mode, size,
// modification and change times) and what salts tasksCacheKind (its
// version, the build; the parse depends on nothing else: no setting). The
// stat comes from the file's folder opened one component at a time
// without following a symlink (source.Folders) and a no-follow stat of the
// file; a file changed within source.StatCacheRacy of the scan's clock is
// not stored. An active change's value is the questions its parse asked
// of the file system with their answers (source.Asked), then its whole parse (every field a
// candidate is built from: Build, note, phases, files and readChange's
// findings read them); an archived change's is its done/total and its
// number of boxes (all archiveFindings reads; its parse asks nothing); a
// change's .openspec.yaml's is its created and schema (parseMeta). A
// stored parse is used only when each of its questions still has its
// answer: the parse would ask the same and give the same; a parse that
// asked more than source.MaxAsked is done again on every run. A value that
// does not decode, or breaks a bound of the parser, is a miss. See
// docs/SECURITY.md.

// tasksCacheKind is the tasks cache's table. Bump its Version on any change
// of what ParseTasksIn or countTasks give for a text, or of the value
// encoding (encodeTasks, encodeCounts).
var tasksCacheKind = source.StatTableKind{Name: "openspec-tasks", Label: "orchestrate openspec tasks cache", Version: 1}

// The kinds of value: an active change's parse, an archived one's counts,
// a change's .openspec.yaml (created and schema).
const (
	valueTasks  = 1
	valueCounts = 2
	valueMeta   = 3
)

// tasksCache is one scan's use of the table, or without the cache (the
// table nil) the folders the scan opens: with the cache or without, each
// change folder is opened once (source.Folders: inside its open parent,
// without following a symlink), listed through its descriptor and its few
// files read through it (source.ReadRegularIn).
type tasksCache struct {
	*source.FolderTable                   // nil without the cache
	folders             *source.StatTable // the folder cache (foldercache.go)
	drafts              *source.StatTable // the draft cache (draftcache.go)
	cold                *source.Folders   // the folders opened without the cache
}

// openTasksCache opens r's table; without the cache it only opens folders.
func openTasksCache(r *source.Repo) *tasksCache {
	t := source.OpenFolderTable(r, &tasksCacheKind)
	if t == nil {
		return &tasksCache{cold: source.NewFolders(r.Root)}
	}
	return &tasksCache{FolderTable: t, folders: source.OpenStatTable(r, &folderCacheKind), drafts: source.OpenStatTable(r, &draftCacheKind)}
}

// off reports a scan without the cache (c nil, or only its folders).
func (c *tasksCache) off() bool { return c == nil || c.FolderTable == nil }

// folderTable is the folder cache's table, nil when c is nil or off.
func (c *tasksCache) folderTable() *source.StatTable {
	if c == nil {
		return nil
	}
	return c.folders
}

// openDir opens the change folder dir (the caller closes it), nil when it
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

// parse gives the parse of an active change's tasks.md p (ParseTasksIn
// with a fresh refpath.BoundedExists of exists) and its modification time,
// with the bounded look-up the parse used (the change's files are looked
// up through it after): from the cache when its stat data is unchanged and
// every question the stored parse asked of the file system still has its
// answer (source.AskedAgain), else read (through its safely opened folder,
// else with r.ReadWithTime, which reports any problem) and parsed, and
// recorded with its questions and answers (at most source.MaxAsked). c may
// be nil.
func (c *tasksCache) parse(r *source.Repo, p string, d *safefile.Dir, exists func(string) bool) (Tasks, func(string) bool, time.Time, error) {
	bounded := refpath.BoundedExists(exists, maxExistsLookups)
	if c.off() || d == nil {
		return parseRead(r, p, d, bounded)
	}
	name := source.BaseName(p)
	if v, fs, ok := c.Lookup(d, name, p, nil); ok {
		// asked through the bounded look-up: it then remembers what the
		// parse's own questions would have left in it
		if rest, same := source.AskedAgain(v, bounded); same {
			if ts, ok := decodeTasks(rest); ok {
				c.AddHits(1)
				// not read, but held: its boxes are drawn from the scan's budget
				if err := c.SpendN(p, 1+len(ts.Tasks)); err != nil {
					return Tasks{}, bounded, fs.Mtime, err
				}
				return ts, bounded, fs.Mtime, nil
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
	case err != nil:
		return Tasks{}, bounded, fs.Mtime, err
	}
	asked := source.NewAsked(bounded)
	ts := ParseTasksIn(data, asked.Func())
	if asked.Storable() && c.Storable(fs) {
		c.Add(p, fs, encodeTasks(asked.Append(nil), &ts), nil)
	}
	return ts, bounded, fs.Mtime, nil
}

// counts gives done/total of an archived change's tasks.md p (countTasks,
// orchestrate's rule) and its modification time, from the cache or read
// and counted as parse does. c may be nil.
func (c *tasksCache) counts(r *source.Repo, p string, d *safefile.Dir) (done, total int, mt time.Time, err error) {
	if c.off() || d == nil {
		return countRead(r, p, d)
	}
	name := source.BaseName(p)
	if v, fs, ok := c.Lookup(d, name, p, nil); ok {
		if done, total, boxes, ok := decodeCounts(v); ok {
			c.AddHits(1)
			if err := c.SpendN(p, 1+boxes); err != nil {
				return 0, 0, fs.Mtime, err
			}
			return done, total, fs.Mtime, nil
		}
	}
	bp := source.GetReadBuf()
	defer source.PutReadBuf(bp)
	data, fs, read, err := source.ReadRegularIn(r, d, p, bp)
	switch {
	case !read:
		return countRead(r, p, nil)
	case err != nil:
		return 0, 0, fs.Mtime, err
	}
	ts := countTasks(data)
	done, total = ts.Count()
	if c.Storable(fs) {
		c.Add(p, fs, encodeCounts(done, total, len(ts.Tasks)), nil)
	}
	return done, total, fs.Mtime, nil
}

// parseRead reads p (through its folder d when it can, else with
// r.ReadWithTime: source.ReadParseIn) and parses it with exists (no
// cache).
func parseRead(r *source.Repo, p string, d *safefile.Dir, exists func(string) bool) (Tasks, func(string) bool, time.Time, error) {
	ts, mt, err := source.ReadParseIn(r, d, p, func(data []byte) Tasks { return ParseTasksIn(data, exists) })
	return ts, exists, mt, err
}

// countRead reads p as parseRead does and counts its boxes (no cache).
func countRead(r *source.Repo, p string, d *safefile.Dir) (done, total int, mt time.Time, err error) {
	ts, mt, err := source.ReadParseIn(r, d, p, countTasks)
	if err != nil {
		return 0, 0, mt, err
	}
	done, total = ts.Count()
	return done, total, mt, nil
}

// Task flags in a value.
const (
	flagDone = 1 << iota
	flagEmpty
	flagFenced
	flagColumn0
	flagOtherMarker
	flagNewGroup // the task's Group differs from the previous task's (it follows)
)

// encodeTasks appends a parse as a value to b: lengths and numbers as
// uvarints, strings as their length and bytes, each task's heading only
// when it differs from the previous task's.
func encodeTasks(b []byte, ts *Tasks) []byte {
	u := func(n int) { b = binary.AppendUvarint(b, uint64(n)) }
	str := func(s string) { u(len(s)); b = append(b, s...) }
	list := func(l []string) {
		u(len(l))
		for _, s := range l {
			str(s)
		}
	}
	u(valueTasks)
	list(ts.Groups)
	u(len(ts.Tasks))
	group := ""
	for i := range ts.Tasks {
		t := &ts.Tasks[i]
		f := 0
		for _, x := range []struct {
			on   bool
			flag int
		}{{t.Done, flagDone}, {t.Empty, flagEmpty}, {t.Fenced, flagFenced}, {t.Column0, flagColumn0}, {t.OtherMarker, flagOtherMarker}, {t.Group != group, flagNewGroup}} {
			if x.on {
				f |= x.flag
			}
		}
		u(f)
		if t.Group != group {
			str(t.Group)
			group = t.Group
		}
		str(t.Item)
		str(t.Num)
		str(t.Title)
		u(t.GroupIx + 1)
		list(t.Refs)
		list(t.Paths)
		u(t.Line)
	}
	if ts.Truncated {
		u(1)
	} else {
		u(0)
	}
	u(ts.UnclosedFence)
	return b
}

// maxValueString bounds a string of a value: the longest the parser keeps
// (a line, cut to maxLineLen bytes, and a path cleaned from it).
const maxValueString = maxLineLen * 4

// decodeTasks reads a value encodeTasks wrote; ok is false for anything
// else or a value past the parser's bounds (a group index outside the
// groups, a line before the previous task's). Its strings are substrings
// of one copy of b.
func decodeTasks(b []byte) (ts Tasks, ok bool) {
	r := source.NewValueReader(b)
	u := r.U
	str := func() string { return r.Str(maxValueString) }
	list := func(limit int) []string { return r.List(limit, maxValueString) }
	if u(valueTasks) != valueTasks || r.Bad {
		return Tasks{}, false
	}
	ts.Groups = list(maxGroups)
	n := u(maxTasks)
	if n > 0 && !r.Bad {
		ts.Tasks = make([]Task, 0, min(n, r.Len()))
	}
	group, line := "", 0
	for i := 0; i < n && !r.Bad; i++ {
		f := u(flagNewGroup<<1 - 1)
		if f&flagNewGroup != 0 {
			group = str()
		}
		t := Task{Done: f&flagDone != 0, Empty: f&flagEmpty != 0, Fenced: f&flagFenced != 0, Column0: f&flagColumn0 != 0, OtherMarker: f&flagOtherMarker != 0, Group: group}
		t.Item, t.Num, t.Title = str(), str(), str()
		t.GroupIx = u(len(ts.Groups)) - 1
		t.Refs, t.Paths = list(maxTaskRefs), list(maxTaskPaths)
		t.Line = u(1 << 30)
		if t.Line <= line || (t.Fenced && t.GroupIx >= 0) {
			r.Bad = true
		}
		line = t.Line
		ts.Tasks = append(ts.Tasks, t)
	}
	ts.Truncated = u(1) == 1
	ts.UnclosedFence = u(1 << 30)
	if r.Bad || r.Len() != 0 {
		return Tasks{}, false
	}
	return ts, true
}

// encodeCounts is an archived change's value: done, total and its number
// of boxes (what it draws from the scan's budget).
func encodeCounts(done, total, boxes int) []byte {
	b := binary.AppendUvarint(nil, valueCounts)
	b = binary.AppendUvarint(b, uint64(done))
	b = binary.AppendUvarint(b, uint64(total))
	return binary.AppendUvarint(b, uint64(boxes))
}

// decodeCounts reads a value encodeCounts wrote; ok is false for anything
// else or counts that cannot be (done > total > boxes > maxTasks).
func decodeCounts(b []byte) (done, total, boxes int, ok bool) {
	var v [4]uint64
	for i := range v {
		x, n := binary.Uvarint(b)
		if n <= 0 || x > maxTasks {
			return 0, 0, 0, false
		}
		v[i], b = x, b[n:]
	}
	if v[0] != valueCounts || len(b) != 0 || v[1] > v[2] || v[2] > v[3] {
		return 0, 0, 0, false
	}
	return int(v[1]), int(v[2]), int(v[3]), true
}

// meta gives created and schema of a change's .openspec.yaml p (parseMeta;
// both "" when it cannot be read): from the cache when its stat data is
// unchanged, else read and parsed as parse does, and recorded. read is
// false when the file could not be read (or the budget refused it). c may
// be nil.
func (c *tasksCache) meta(r *source.Repo, p string, d *safefile.Dir) (created, schema string, read bool) {
	if c.off() || d == nil {
		return readMeta(r, p, d)
	}
	name := source.BaseName(p)
	if v, _, ok := c.Lookup(d, name, p, nil); ok {
		if created, schema, ok := decodeMeta(v); ok {
			c.AddHits(1)
			// not read, but held: one entry drawn from the scan's budget
			if c.SpendN(p, 1) != nil {
				return "", "", false // as r.Read refuses it
			}
			return created, schema, true
		}
	}
	bp := source.GetReadBuf()
	defer source.PutReadBuf(bp)
	data, fs, done, err := source.ReadRegularIn(r, d, p, bp)
	switch {
	case !done:
		return readMeta(r, p, nil)
	case err != nil:
		return "", "", false
	}
	created, schema = parseMeta(data)
	if c.Storable(fs) {
		c.Add(p, fs, encodeMeta(created, schema), nil)
	}
	return created, schema, true
}

// encodeMeta is a .openspec.yaml's value.
func encodeMeta(created, schema string) []byte {
	b := binary.AppendUvarint(nil, valueMeta)
	for _, s := range []string{created, schema} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// decodeMeta reads a value encodeMeta wrote; ok is false for anything
// else.
func decodeMeta(b []byte) (created, schema string, ok bool) {
	k, n := binary.Uvarint(b)
	if n <= 0 || k != valueMeta {
		return "", "", false
	}
	b = b[n:]
	var out [2]string
	for i := range out {
		l, n := binary.Uvarint(b)
		if n <= 0 || l > maxValueString || l > uint64(len(b)-n) {
			return "", "", false
		}
		out[i], b = string(b[n:n+int(l)]), b[n+int(l):]
	}
	if len(b) != 0 {
		return "", "", false
	}
	return out[0], out[1], true
}
