package epic

import (
	"path"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// The workflow-state files the epic source read and found holding no
// epic key (mayHoldEpicKey false), by their stat data: a warm scan stats
// such a file in its folder instead of opening and reading it (1,000 state
// files of a 1,000-workflow repository were read every run only to be
// skipped here). A file whose stat data has changed, or that was never
// stored, is read as before; one that may hold the key is always read the
// usual way (r.Peek), so the table decides only skips, on the very bytes
// that decided them before. Keyed and guarded as every stat table
// (discover/source/statcache.go, docs/SECURITY.md "The cache").
var peekCacheKind = source.StatTableKind{Name: "epic-peek", Label: "orchestrate epic peek cache", Version: 1}

// peekCache is one scan's use of the table, with the folders it opened
// (one for every folder of state files). A nil *peekCache is off.
type peekCache struct {
	t       *source.StatTable
	r       *source.Repo
	dirs    map[string]*safefile.Dir
	scratch []byte
}

// openPeekCache opens r's table, or returns nil when r has no cache.
func openPeekCache(r *source.Repo) *peekCache {
	t := source.OpenStatTable(r, &peekCacheKind)
	if t == nil {
		return nil
	}
	return &peekCache{t: t, r: r, dirs: map[string]*safefile.Dir{}}
}

// dir is the open folder of the repository-relative slash path p, nil when
// it cannot be opened without following a link.
func (c *peekCache) dir(p string) *safefile.Dir {
	dir := path.Dir(p)
	d, ok := c.dirs[dir]
	if !ok {
		d, _ = c.t.OpenDir(dir) // nil on error: the file is read the usual way
		c.dirs[dir] = d
	}
	return d
}

// skip reports whether the state file p holds no epic key: known from the
// table at its stat data, or read now (no-follow, in its folder) and found
// without one (and then recorded, and its bytes kept for the
// workflow-state source: source.Repo.Keep). False when p may hold the key, or cannot
// be read that way: the caller reads it with r.Peek as before.
func (c *peekCache) skip(p string) bool {
	if c == nil {
		return false
	}
	d := c.dir(p)
	if d == nil {
		return false
	}
	name := source.BaseName(p)
	if _, _, ok := c.t.Lookup(d, name, p, &c.scratch); ok {
		c.t.AddHits(1)
		return true
	}
	data, fs, ok := c.t.ReadRegular(d, name)
	if !ok || mayHoldEpicKey(data) {
		return false
	}
	if c.t.Storable(fs) {
		c.t.Add(p, fs, nil, &c.scratch)
	}
	c.r.Keep(p, data, &fs) // the workflow-state source decodes these very bytes
	return true
}

// close closes the folders and writes the scan's new entries.
func (c *peekCache) close() {
	if c == nil {
		return
	}
	for _, d := range c.dirs {
		if d != nil {
			d.Close()
		}
	}
	c.t.Save()
}
