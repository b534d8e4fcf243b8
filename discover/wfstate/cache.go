package wfstate

import (
	"crypto/sha256"
	"strings"
	"sync"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
)

// The state cache keeps each workflow-state file's decoded document in the
// user's cache (internal/diskcache), keyed as the story cache keys its
// entries (discover/story/cache.go): a SHA-256 of the file's
// repository-relative path, its stat data (device, inode, mode, size,
// modification and change times) and stateCacheSalt (stateCacheVersion,
// the build). The stat comes from the file's folder opened one component
// at a time without following a symlink (safefile.OpenDir) and a no-follow
// stat of the file. The value is the document as tolerant.EncodeValue
// writes it; a document it cannot encode exactly is not stored, and a value
// that does not decode is a miss. Only documents that decoded are stored: a
// file that cannot be read or decoded is read the usual way on every run,
// which reports why. See docs/SECURITY.md.

// stateCacheTable names the table; stateCacheVersion is part of every key:
// bump it on any change of what tolerant.DecodeYAMLMap gives for a text or
// of the value encoding.
const (
	stateCacheTable   = "wfstates"
	stateCacheVersion = 2
)

// stateCacheNow is the scan's wall clock (a test moves it to store files it
// has just written).
var stateCacheNow = time.Now

// stateCacheHits, when set (by a test), is called at the end of each scan
// that used the cache with its number of hits and of new entries.
var stateCacheHits func(hits, added int)

// stateCache is one scan's use of the state table. It is safe for
// concurrent use by the scan's workers.
type stateCache struct {
	c    *diskcache.Cache
	t    *diskcache.Table
	salt [sha256.Size]byte
	now  time.Time
	root string
	max  int64

	mu    sync.Mutex
	dirs  map[string]*safefile.Dir // by folder; nil: cannot be opened without following a symlink
	added *diskcache.Builder
	hits  int
}

// openStateCache opens r's state table, or returns nil when r has no cache.
func openStateCache(r *source.Repo) *stateCache {
	if !r.Cache.Enabled() {
		return nil
	}
	t, _ := r.Cache.Open(stateCacheTable, sha256.Size) // a table it cannot use is empty
	return &stateCache{
		c: r.Cache, t: t, salt: stateCacheSalt(), now: stateCacheNow(),
		root: r.Root, max: r.Config.MaxFileSize, dirs: map[string]*safefile.Dir{},
	}
}

// stateCacheSalt hashes what a decode depends on besides the path and the
// content: stateCacheVersion and the build.
func stateCacheSalt() [sha256.Size]byte {
	return source.StatCacheSalt("orchestrate workflow-state cache", stateCacheVersion)
}

// key is the table key of path p with stat data fs.
func (c *stateCache) key(p string, fs safefile.FileStat) [sha256.Size]byte {
	return source.StatCacheKey(c.salt, p, fs, nil)
}

// storable reports whether a file of stat data fs may be stored
// (source.StatCacheStorable).
func (c *stateCache) storable(fs safefile.FileStat) bool {
	return source.StatCacheStorable(c.now, fs)
}

// folder returns p's folder (opened once per scan, one component at a
// time without following a symlink) and p's name; nil when it cannot be
// opened that way.
func (c *stateCache) folder(p string) (*safefile.Dir, string) {
	dir, name := ".", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir, name = p[:i], p[i+1:]
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.dirs[dir]
	if !ok {
		var err error
		if d, err = safefile.OpenDir(c.root, dir, false); err != nil {
			d = nil
		}
		c.dirs[dir] = d
	}
	return d, name
}

// decode gives the decoded document of the state file p: from the cache
// when its stat data is unchanged, else read (through its safely opened
// folder, else with r.Read, which reports any problem) and decoded, and
// recorded when it decodes. readErr is r.Read's error, decodeErr
// tolerant.DecodeYAMLMap's.
func (c *stateCache) decode(r *source.Repo, p string) (m map[string]any, readErr, decodeErr error) {
	d, name := c.folder(p)
	if d == nil {
		return decodeState(r, p)
	}
	if c.t.Len() > 0 {
		fs, err := d.StatNoFollow(name)
		if err == nil && fs.Regular() && (c.max <= 0 || fs.Size <= c.max) {
			k := c.key(p, fs)
			if v, ok := c.t.Get(k[:]); ok {
				if m, ok := tolerant.DecodeMapValue(v); ok {
					c.mu.Lock()
					c.hits++
					c.mu.Unlock()
					return m, nil, nil
				}
			}
		}
	}
	data, fs, ok := d.ReadRegular(name, c.max)
	if !ok {
		return decodeState(r, p)
	}
	m, decodeErr = tolerant.DecodeYAMLMap(data)
	if decodeErr == nil && c.storable(fs) {
		if v := tolerant.EncodeValue(nil, m); v != nil {
			k := c.key(p, fs)
			c.mu.Lock()
			if c.added == nil {
				c.added = diskcache.NewBuilder(sha256.Size)
			}
			c.added.Add(k[:], v)
			c.mu.Unlock()
		}
	}
	return m, nil, decodeErr
}

// decodeState reads p with r.Read and decodes it (no cache).
func decodeState(r *source.Repo, p string) (m map[string]any, readErr, decodeErr error) {
	data, err := r.Read(p)
	if err != nil {
		return nil, err, nil
	}
	m, err = tolerant.DecodeYAMLMap(data)
	return m, nil, err
}

// save closes the scan's folders and writes its new entries.
func (c *stateCache) save() {
	if c == nil {
		return
	}
	for _, d := range c.dirs {
		if d != nil {
			d.Close()
		}
	}
	c.dirs = nil
	if stateCacheHits != nil {
		stateCacheHits(c.hits, c.added.Len())
	}
	if c.added.Len() == 0 {
		return
	}
	_ = c.c.Write(stateCacheTable, c.t, c.added) // a cache that cannot be written is skipped
	c.added = nil
}
