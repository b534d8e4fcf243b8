package wfstate

import (
	"errors"
	"io/fs"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
)

// The state cache keeps each workflow-state file's decoded document in the
// user's cache (internal/diskcache), keyed as the story cache keys its
// entries (discover/story/cache.go): a SHA-256 of the file's
// repository-relative path, its stat data (device, inode, mode, size,
// modification and change times) and what salts stateCacheKind (its version,
// the build). The stat comes from the file's folder opened one component
// at a time without following a symlink (safefile.OpenDir) and a no-follow
// stat of the file. The value is the document as tolerant.EncodeValue
// writes it; a document it cannot encode exactly is not stored, and a value
// that does not decode is a miss. Only documents that decoded are stored: a
// file that cannot be read or decoded is read the usual way on every run,
// which reports why. See docs/SECURITY.md.

// stateCacheKind is the state cache's table. Bump its Version on any change of
// what tolerant.DecodeYAMLMap gives for a text or of the value encoding.
var stateCacheKind = source.StatTableKind{Name: "wfstates", Label: "orchestrate workflow-state cache", Version: 2}

// stateCache is one scan's use of the state table. It is safe for
// concurrent use by the scan's workers.
type stateCache struct {
	*source.StatTable

	folders *source.Folders
}

// openStateCache opens r's state table, or returns nil when r has no cache.
func openStateCache(r *source.Repo) *stateCache {
	t := source.OpenStatTable(r, &stateCacheKind)
	if t == nil {
		return nil
	}
	return &stateCache{StatTable: t, folders: source.NewFolders(r.Root)}
}

// folder returns p's folder and name (source.Folders).
func (c *stateCache) folder(p string) (*safefile.Dir, string) { return c.folders.Of(p) }

// decode gives the decoded document of the state file p: from the cache
// when its stat data is unchanged, else read (through its safely opened
// folder, else with r.Read, which reports any problem) and decoded, and
// recorded when it decodes. readErr is r.Read's error, decodeErr
// tolerant.DecodeYAMLMap's; entries, when not -1, is what
// tolerant.CountEntries(m, maxStateEntries) gives (counted for a cached
// document, which draws them from the scan's budget).
func (c *stateCache) decode(r *source.Repo, p string) (m map[string]any, entries int, readErr, decodeErr error) {
	d, name := c.folder(p)
	if d == nil {
		m, readErr, decodeErr = decodeState(r, p)
		return m, -1, readErr, decodeErr
	}
	if v, _, ok := c.Lookup(d, name, p, nil); ok {
		if m, n, ok := tolerant.DecodeMapValueCount(v, maxStateEntries); ok {
			c.AddHits(1)
			// not read, but held: its entries are drawn from the scan's budget
			if err := c.SpendN(p, 1+n); err != nil {
				return nil, -1, err, nil
			}
			return m, n, nil, nil
		}
	}
	data, fs, ok := c.ReadRegular(d, name)
	if !ok {
		m, readErr, decodeErr = decodeState(r, p)
		return m, -1, readErr, decodeErr
	}
	if err := c.Spend(p, data); err != nil {
		return nil, -1, err, nil
	}
	m, decodeErr = tolerant.DecodeYAMLMap(data)
	if decodeErr == nil && c.Storable(fs) {
		if v := tolerant.EncodeValue(nil, m); v != nil {
			c.Add(p, fs, v, nil)
		}
	}
	return m, -1, nil, decodeErr
}

// missing reports whether nothing at all is named p in its folder: a
// no-follow stat of p's name in the folder the scan holds open finds no
// entry, so r.Exists(p), which stats the whole path, is false. false when
// that cannot be told (no cache, no such open folder, any other error).
func (c *stateCache) missing(p string) bool {
	if c == nil {
		return false
	}
	d, name := c.folder(p)
	if d == nil {
		return false
	}
	_, err := d.StatNoFollow(name)
	return errors.Is(err, fs.ErrNotExist)
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
	c.folders.Close()
	c.Save()
}
