package kiro

import (
	"io/fs"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/pathglob"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// The folder cache keeps, in a table of its own beside the tasks cache,
// each spec folder's listing (every name with its type bits,
// pathglob.EncodeListing) keyed on the folder's own stat (device, inode,
// mode, size, modification and change times, from an fstat of its
// descriptor, opened one component at a time without following a symlink)
// and its repository-relative path with a trailing slash. A folder's
// times move whenever an entry is added to it, removed from it or renamed
// in it, and a name cannot change type without being removed and made
// again; a folder changed within source.StatCacheRacy of the scan's clock
// is not stored, so a later change always gives another key. The stat is
// taken before the listing: a listing that changed meanwhile is stored
// under a stat the folder no longer has (a miss, never a wrong hit). A
// value that does not decode is a miss. See docs/SECURITY.md.

// folderCacheKind is the folder cache's table. Bump its Version on any
// change of the value encoding.
var folderCacheKind = source.StatTableKind{Name: "kiro-folders", Label: "orchestrate kiro folder listings", Version: 1}

// folderTable is the folder cache's table, nil when c is nil.
func (c *tasksCache) folderTable() *source.StatTable {
	if c == nil {
		return nil
	}
	return c.folders
}

// listCached lists the spec folder dir, opened as folder, through its
// descriptor (read once), through the folder cache t when it holds the
// folder's stat (nil t: listed). ok is false when it cannot be listed. The
// folder's stat, when taken, is left in ds (the draft cache's key reads it).
func listCached(t *source.StatTable, folder *safefile.Dir, dir string, ds *source.DirStat) (ents []pathglob.DirEntry, ok bool) {
	var st safefile.FileStat
	keyed := false
	if t != nil {
		var err error
		if st, err = folder.Stat(); err == nil {
			keyed = true
			ds.Set(st)
			if v, hit := t.Find(dir+"/", st, nil); hit {
				if ents, ok := pathglob.DecodeListing(v); ok {
					t.AddHits(1)
					return ents, true
				}
			}
		}
	}
	bp := entryBufs.Get().(*[]byte)
	defer entryBufs.Put(bp)
	err := folder.ReadEntries(*bp, func(name []byte, typ fs.FileMode) {
		ents = append(ents, pathglob.DirEntry{Name: string(name), Type: typ})
	})
	if err != nil {
		return nil, false
	}
	if keyed && len(ents) <= pathglob.MaxListing && t.Storable(st) {
		pathglob.SortListing(ents)
		t.Add(dir+"/", st, pathglob.EncodeListing(ents), nil)
	}
	return ents, true
}
