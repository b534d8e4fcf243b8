package story

import (
	"crypto/sha256"
	"encoding/binary"
	"runtime/debug"
	"sort"
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
	storyCacheVersion = 1
)

// storyCacheRacy is how close to the scan's clock a file's modification or
// change time may be and the file still be stored: a write within the same
// clock tick as the stat could leave the stat data unchanged.
const storyCacheRacy = 2 * time.Second

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
	added []storyCacheEntry // the new entries of every worker
	hits  int
}

// storyCacheEntry is a new entry, written at the end of the scan.
type storyCacheEntry struct {
	key [sha256.Size]byte
	val []byte
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
// content: the parser and encoding version, the build's revision, and the
// configured statuses (sorted, each length-prefixed).
func storyCacheSalt(statuses map[string][]string) [sha256.Size]byte {
	h := sha256.New()
	var b []byte
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	str("orchestrate story cache")
	b = binary.AppendUvarint(b, storyCacheVersion)
	if info, ok := debug.ReadBuildInfo(); ok {
		str(info.GoVersion)
		str(info.Main.Version)
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
				str(s.Key + "=" + s.Value)
			}
		}
	}
	keys := make([]string, 0, len(statuses))
	for k := range statuses {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		str(k)
		b = binary.AppendUvarint(b, uint64(len(statuses[k])))
		for _, v := range statuses[k] {
			str(v)
		}
	}
	h.Write(b)
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}

// key is the table key of path p with stat data fs; scratch is reused.
func (c *storyCache) key(p string, fs safefile.FileStat, scratch *[]byte) [sha256.Size]byte {
	b := append((*scratch)[:0], c.salt[:]...)
	b = binary.LittleEndian.AppendUint64(b, fs.Dev)
	b = binary.LittleEndian.AppendUint64(b, fs.Ino)
	b = binary.LittleEndian.AppendUint32(b, fs.Mode)
	b = binary.LittleEndian.AppendUint64(b, uint64(fs.Size))
	b = binary.LittleEndian.AppendUint64(b, uint64(fs.Mtime.Unix()))
	b = binary.LittleEndian.AppendUint32(b, uint32(fs.Mtime.Nanosecond()))
	b = binary.LittleEndian.AppendUint64(b, uint64(fs.Ctime.Unix()))
	b = binary.LittleEndian.AppendUint32(b, uint32(fs.Ctime.Nanosecond()))
	b = append(b, p...) // last: every field before it has a fixed size
	*scratch = b
	return sha256.Sum256(b)
}

// storable reports whether a file of stat data fs may be stored: not
// changed within storyCacheRacy of the scan's clock, nor in the future.
func (c *storyCache) storable(fs safefile.FileStat) bool {
	limit := c.now.Add(-storyCacheRacy)
	return !fs.Mtime.After(limit) && !fs.Ctime.After(limit)
}

// save writes the scan's new entries (nothing when there are none).
func (c *storyCache) save() {
	if c == nil {
		return
	}
	if storyCacheHits != nil {
		storyCacheHits(c.hits, len(c.added))
	}
	if len(c.added) == 0 {
		return
	}
	b := diskcache.NewBuilder(sha256.Size)
	for i := range c.added {
		b.Add(c.added[i].key[:], c.added[i].val)
	}
	_ = c.c.Write(storyCacheTable, c.t, b) // a cache that cannot be written is skipped
	c.added = nil
}

// storyCacheWorker is one scan worker's use of the cache: the folder it
// has open, its scratch buffer, its new entries.
type storyCacheWorker struct {
	c       *storyCache
	dirRel  string
	dir     *safefile.Dir // nil: dirRel could not be opened safely
	opened  bool
	scratch []byte
	keyBuf  [sha256.Size]byte
	added   []storyCacheEntry
	hits    int
}

// worker returns a worker's view of c.
func (c *storyCache) worker() *storyCacheWorker { return &storyCacheWorker{c: c} }

// done closes w's folder and hands its new entries to the cache.
func (w *storyCacheWorker) done() {
	w.dir.Close()
	w.c.mu.Lock()
	w.c.added = append(w.c.added, w.added...)
	w.c.hits += w.hits
	w.c.mu.Unlock()
}

// folder returns p's folder, opened without following a symlink (kept open
// for the next path in it), and p's file name; nil when it cannot be
// opened that way.
func (w *storyCacheWorker) folder(p string) (*safefile.Dir, string) {
	dir, name := ".", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir, name = p[:i], p[i+1:]
	}
	if !w.opened || dir != w.dirRel {
		w.dir.Close()
		w.dir, w.dirRel, w.opened = nil, dir, true
		if d, err := safefile.OpenDir(w.c.root, dir, false); err == nil {
			w.dir = d
		}
	}
	return w.dir, name
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
				if st, isStory, ok := storyDecode(p, v); ok {
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
		if v := storyEncode(st); v != nil {
			w.added = append(w.added, storyCacheEntry{key: c.key(p, fs, &w.scratch), val: v})
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
