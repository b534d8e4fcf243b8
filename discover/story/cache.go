package story

import (
	"crypto/sha256"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// The story cache keeps a scan's parse of each story file in the user's
// cache (internal/diskcache), keyed as git's index keys its entries: a file
// whose stat data (device, inode, size, modification and change times,
// mode) is unchanged has unchanged content, so its parse is taken from the
// cache instead of reading and parsing the file again. The key is a
// SHA-256 of the file's repository-relative path, its stat data and
// everything the parse depends on besides the content (storyCacheSalt: the
// configured statuses, storyCacheVersion, the build). Stat data comes from
// the story's folder opened one component at a time without following a
// symlink (safefile.OpenDir) and a no-follow stat of the file: a file that
// is not a regular file reached that way, or is over the size limit, is
// read the usual way, which reports it as it always did. See
// docs/SECURITY.md.

// storyCacheTable names the table; storyCacheVersion is part of every key:
// bump it on any change of what the parser gives for a file, or of the
// value encoding (storyEncode).
const (
	storyCacheTable   = "stories"
	storyCacheVersion = 2
)

// storyCacheNow is the scan's wall clock (a test moves it to store files
// it has just written).
var storyCacheNow = time.Now

// storyCacheHits, when set (by a test), is called at the end of each scan
// that used the cache with its number of hits and of new entries.
var storyCacheHits func(hits, added int)

// storyCache is one scan's use of the story table.
type storyCache struct {
	c     *diskcache.Cache
	t     *diskcache.Table
	salt  [sha256.Size]byte
	now   time.Time // the scan's wall clock (not ORCHESTRATE_NOW: file times are real)
	root  string
	max   int64
	extra map[string][]string

	mu    sync.Mutex
	added *diskcache.Builder // the new entries of every worker (nil: none yet)
	hits  int
}

// openStoryCache opens r's story table, or returns nil when r has no cache.
func openStoryCache(r *source.Repo) *storyCache {
	if !r.Cache.Enabled() {
		return nil
	}
	t, _ := r.Cache.Open(storyCacheTable, sha256.Size) // a table it cannot use is empty
	return &storyCache{
		c:     r.Cache,
		t:     t,
		salt:  storyCacheSalt(r.Config.Statuses),
		now:   storyCacheNow(),
		root:  r.Root,
		max:   r.Config.MaxFileSize,
		extra: r.Config.Statuses,
	}
}

// storyCacheSalt hashes what a parse depends on besides the path and the
// content: storyCacheVersion, the build, and the configured statuses
// (sorted, each with its count of spellings).
func storyCacheSalt(statuses map[string][]string) [sha256.Size]byte {
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
	return source.StatCacheSalt("orchestrate story cache", storyCacheVersion, extra...)
}

// key is the table key of path p with stat data fs; scratch is reused.
func (c *storyCache) key(p string, fs safefile.FileStat, scratch *[]byte) [sha256.Size]byte {
	return source.StatCacheKey(c.salt, p, fs, scratch)
}

// storable reports whether a file of stat data fs may be stored
// (source.StatCacheStorable).
func (c *storyCache) storable(fs safefile.FileStat) bool {
	return source.StatCacheStorable(c.now, fs)
}

// save writes the scan's new entries (nothing when there are none).
func (c *storyCache) save() {
	if c == nil {
		return
	}
	if storyCacheHits != nil {
		storyCacheHits(c.hits, c.added.Len())
	}
	if c.added.Len() == 0 {
		return
	}
	_ = c.c.Write(storyCacheTable, c.t, c.added) // a cache that cannot be written is skipped
	c.added = nil
}

// add records a new entry (the builder copies key and value).
func (c *storyCache) add(key, val []byte) {
	c.mu.Lock()
	if c.added == nil {
		c.added = diskcache.NewBuilder(sha256.Size)
	}
	c.added.Add(key, val)
	c.mu.Unlock()
}

// storyCacheWorker is one scan worker's use of the cache: the folders it
// has open, its scratch buffers, its count of hits.
type storyCacheWorker struct {
	c *storyCache
	// dirs are the open folders from the root down to the current one:
	// dirs[i+1] is names[i] inside dirs[i]; cur is the current folder (nil
	// when it could not be opened without following a symlink), curRel its
	// path
	dirs    []*safefile.Dir
	names   []string
	cur     *safefile.Dir
	curRel  string
	opened  bool
	scratch []byte
	keyBuf  [sha256.Size]byte
	val     []byte // the value being encoded (reused)
	arena   storyArena
	hits    int
}

// worker returns a worker's view of c.
func (c *storyCache) worker() *storyCacheWorker { return &storyCacheWorker{c: c} }

// done closes w's folders and counts its hits.
func (w *storyCacheWorker) done() {
	w.closeFrom(0)
	w.c.mu.Lock()
	w.c.hits += w.hits
	w.c.mu.Unlock()
}

// closeFrom closes dirs[i:].
func (w *storyCacheWorker) closeFrom(i int) {
	for _, d := range w.dirs[i:] {
		d.Close()
	}
	clear(w.dirs[i:])
	w.dirs = w.dirs[:i]
}

// folder returns p's folder, opened one component at a time without
// following a symlink (safefile.OpenDir's confinement), and p's file name;
// nil when it cannot be opened that way. The folders stay open for the
// next path: from one folder to its sibling is one open.
func (w *storyCacheWorker) folder(p string) (*safefile.Dir, string) {
	dir, name := "", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir, name = p[:i], p[i+1:]
	}
	if w.opened && dir == w.curRel {
		return w.cur, name
	}
	w.opened, w.curRel, w.cur = true, dir, nil
	if len(w.dirs) == 0 {
		root, err := safefile.OpenDir(w.c.root, ".", false)
		if err != nil {
			return nil, name
		}
		w.dirs, w.names = append(w.dirs, root), w.names[:0]
	}
	var parts []string
	if dir != "" {
		parts = strings.Split(dir, "/")
	}
	k := 0 // the folders already open: dirs[:k+1]
	for k < len(parts) && k < len(w.names) && k+1 < len(w.dirs) && parts[k] == w.names[k] {
		k++
	}
	w.closeFrom(k + 1)
	for _, part := range parts[k:] {
		d, err := w.dirs[len(w.dirs)-1].OpenSub(part)
		if err != nil {
			w.names = parts[:len(w.dirs)-1]
			return nil, name
		}
		w.dirs = append(w.dirs, d)
	}
	w.names = parts
	w.cur = w.dirs[len(w.dirs)-1]
	return w.cur, name
}

// read gives the story at p from the cache, or reads and parses it with
// state and records it; done is false when the file must be read the
// usual way (not a regular file reached without a symlink, too big,
// binary, unreadable: that read reports why). st is nil for a file that is
// not a story.
func (w *storyCacheWorker) read(p string, state *storyState) (st *workflow.Story, done bool) {
	d, name := w.folder(p)
	if d == nil {
		return nil, false
	}
	c := w.c
	if c.t.Len() > 0 {
		fs, err := d.StatNoFollow(name)
		if err == nil && fs.Regular() && (c.max <= 0 || fs.Size <= c.max) {
			if v, ok := c.t.Get(w.keyOf(p, fs)); ok {
				if st, isStory, ok := storyDecode(p, v, &w.arena); ok {
					if isStory {
						st.ModTime = fs.Mtime
					}
					w.hits++
					return st, true
				}
			}
		}
	}
	data, fs, ok := d.ReadRegular(name, c.max)
	if !ok {
		return nil, false
	}
	parsed := state.parse(p, data, c.extra, true) // a scan's, and data is this read's own
	if parsed.hasID || parsed.hasStatus || parsed.hasSections {
		st = parsed.story
	}
	if c.storable(fs) {
		if v := storyEncode(w.val[:0], st); v != nil {
			w.val = v
			c.add(w.keyOf(p, fs), v)
		}
	}
	if st != nil {
		st.ModTime = fs.Mtime
	}
	return st, true
}

// keyOf is c.key as a slice.
func (w *storyCacheWorker) keyOf(p string, fs safefile.FileStat) []byte {
	w.keyBuf = w.c.key(p, fs, &w.scratch)
	return w.keyBuf[:]
}
