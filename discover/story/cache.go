package story

import (
	"sort"
	"strconv"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// The story cache keeps a scan's parse of each story file in the user's
// cache (internal/diskcache), keyed as git's index keys its entries: a file
// whose stat data (device, inode, size, modification and change times,
// mode) is unchanged has unchanged content, so its parse is taken from the
// cache instead of reading and parsing the file again. The key is a
// SHA-256 of the file's repository-relative path, its stat data and
// everything the parse depends on besides the content (storySaltExtra: the
// configured statuses; storyCacheKind.Version, the build). Stat data comes from
// the story's folder opened one component at a time without following a
// symlink (safefile.OpenDir) and a no-follow stat of the file: a file that
// is not a regular file reached that way, or is over the size limit, is
// read the usual way, which reports it as it always did. See
// docs/SECURITY.md.

// storyCacheKind is the story cache's table. Bump its Version on any change of
// what the parser gives for a file, or of the value encoding (storyEncode).
var storyCacheKind = source.StatTableKind{Name: "stories", Label: "orchestrate story cache", Version: 3}

// storyCache is one scan's use of the story table.
type storyCache struct {
	*source.StatTable
	extra map[string][]string // the configured statuses
}

// openStoryCache opens r's story table, or returns nil when r has no cache.
func openStoryCache(r *source.Repo) *storyCache {
	t := source.OpenStatTable(r, &storyCacheKind, storySaltExtra(r.Config.Statuses)...)
	if t == nil {
		return nil
	}
	return &storyCache{StatTable: t, extra: r.Config.Statuses}
}

// storySaltExtra is what a parse depends on besides the path and the
// content (and storyCacheKind's version and the build): the configured statuses,
// sorted, each with its count of spellings.
func storySaltExtra(statuses map[string][]string) []string {
	keys := make([]string, 0, len(statuses))
	for k := range statuses {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var extra []string
	for _, k := range keys {
		extra = append(extra, k, strconv.Itoa(len(statuses[k])))
		extra = append(extra, statuses[k]...)
	}
	return extra
}

// save writes the scan's new entries (nothing when there are none).
func (c *storyCache) save() {
	if c == nil {
		return
	}
	c.Save()
}

// storyCacheWorker is one scan worker's use of the cache: the folders it
// has open, its scratch buffers, its count of hits.
type storyCacheWorker struct {
	c *storyCache
	storyFolders
	scratch []byte
	val     []byte // the value being encoded (reused)
	buf     storyBuf
	arena   storyArena
	hits    int
	touched byte // lookAhead's loads (kept so that they are made)
}

// worker returns a worker's view of c.
func (c *storyCache) worker() *storyCacheWorker {
	w := &storyCacheWorker{c: c}
	w.openRoot = func() (*safefile.Dir, error) { return c.OpenDir(".") }
	return w
}

// done closes w's folders and counts its hits.
func (w *storyCacheWorker) done() {
	w.closeFrom(0)
	w.c.AddHits(w.hits)
}

// read gives the story at p from the cache, or reads and parses it with
// state and records it; done is false when the file must be read the
// usual way (not a regular file reached without a symlink, too big,
// binary, unreadable: that read reports why). st is nil for a file that is
// not a story; readable is false for a file the scan's budget refused
// (st then holds the finding).
func (w *storyCacheWorker) read(p string, state *storyState) (st *workflow.Story, readable, done bool) {
	d, name := w.folder(p)
	if d == nil {
		return nil, false, false
	}
	return w.readIn(d, name, p, state)
}

// readIn is read of the file name in its folder d (reached from the
// repository's root without following a symlink), at path p.
func (w *storyCacheWorker) readIn(d *safefile.Dir, name, p string, state *storyState) (st *workflow.Story, readable, done bool) {
	v, fs, ok := w.c.Lookup(d, name, p, &w.scratch)
	return w.readFound(d, name, p, state, storyAhead{v, fs, ok})
}

// storyAhead is what the table holds for one file, looked up ahead of its
// read (storyCacheWorker.lookAhead): its value and stat data when hit.
type storyAhead struct {
	v   []byte
	fs  safefile.FileStat
	hit bool
}

// storyAheadMax is how many files of a folder lookAhead takes at once.
const storyAheadMax = 64

// lookAhead looks up the files names (at paths ps) of folder d as readIn
// does, into ahead (one each): every file stat'ed first, then every stat
// looked up in the table, then the first byte of every value found read.
// The table (6 MB for the bench's 20,000 stories) is then searched back to
// back, its look-ups no longer each after a system call that took the
// processor's caches, and the values' first misses overlap. What each file
// is found to be is what readIn finds (TestStoryLookAheadIsReadIn).
func (w *storyCacheWorker) lookAhead(d *safefile.Dir, names, ps []string, ahead []storyAhead) {
	c := w.c
	for i, name := range names {
		ahead[i].fs, ahead[i].hit = c.StatFile(d, name)
	}
	var sum byte
	for i := range ahead {
		if a := &ahead[i]; a.hit {
			a.v, a.hit = c.Find(ps[i], a.fs, &w.scratch)
			if a.hit && len(a.v) > 0 {
				sum += a.v[0] // a load the next look-up does not wait on
			}
		}
	}
	w.touched += sum
}

// readFound is readIn of a file whose table look-up (Lookup, or lookAhead)
// gave a.
func (w *storyCacheWorker) readFound(d *safefile.Dir, name, p string, state *storyState, a storyAhead) (st *workflow.Story, readable, done bool) {
	c := w.c
	if v, fs, ok := a.v, a.fs, a.hit; ok {
		// v is the table's, read once and only ever read: the story's
		// strings are views into it
		if st, isStory, ok := storyDecodeView(p, v, &w.arena); ok {
			if isStory {
				st.ModTime = fs.Mtime
				// not read, but held: drawn from the scan's budget
				if err := c.SpendN(p, 1+len(st.FileList)); err != nil {
					return storyUnreadable(p, err), false, true
				}
			}
			w.hits++
			return st, st != nil, true
		}
	}
	data, fs, ok := c.ReadRegularInto(d, name, w.buf.get())
	if !ok {
		return nil, false, false
	}
	w.buf.keep(data) // written again with the next file: compact copies out what the story keeps
	if err := c.Spend(p, data); err != nil {
		st = storyUnreadable(p, err)
		st.ModTime = fs.Mtime
		return st, false, true
	}
	parsed := state.parse(p, data, c.extra, true) // a scan's, and data is this worker's buffer
	if parsed.hasID || parsed.hasStatus || parsed.hasSections {
		st = parsed.story
	}
	if c.Storable(fs) {
		if v := storyEncode(w.val[:0], st); v != nil {
			w.val = v
			c.Add(p, fs, v, &w.scratch)
		}
	}
	if st != nil {
		st.ModTime = fs.Mtime
	}
	return st, st != nil, true
}
