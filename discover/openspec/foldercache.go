package openspec

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"slices"
	"sort"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/pathglob"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// The folder cache keeps, in a table of its own beside the tasks cache,
// what a change's folders held when last listed, keyed on the folder's
// own stat (device, inode, mode, size, modification and change times, from
// an fstat of its descriptor, opened one component at a time without
// following a symlink) and its repository-relative path with a trailing
// slash: a change folder's listing (each name and its type), its specs/
// folder's subfolders, and for each specs/X/ whether it holds a spec.md
// that specs/*/spec.md matches (a regular file or a symlink). A folder's
// times move whenever an entry is added to it, removed from it or renamed
// in it, and a name cannot change type without being removed and made
// again; a folder changed within source.StatCacheRacy of the scan's clock
// is not stored, so a later change always gives another key. The stat is
// taken before the listing: a listing that changed meanwhile is stored
// under a stat the folder no longer has (a miss, never a wrong hit). A
// value that does not decode, or whose folder is not as it says (a
// subfolder that is no longer a folder), is a miss and the folder is
// listed; anything unexpected falls back to the walk without the cache
// (Repo.Glob), which gives the answer. See docs/SECURITY.md.

// folderCacheKind is the folder cache's table. Bump its Version on any
// change of the value encoding or of what a listing keeps.
var folderCacheKind = source.StatTableKind{Name: "openspec-folders", Label: "orchestrate openspec folder listings", Version: 1}

// The kinds of value of the folder cache besides a change folder's
// listing (pathglob.EncodeListing, whose first byte is 1).
const (
	valueSubdirs = 2 // the folders of specs/, sorted by name
	valueSpecDoc = 3 // whether specs/X/ holds a matching spec.md
)

// maxListing bounds a stored listing's entries (a value past it is a miss).
const maxListing = pathglob.MaxListing

// listCached is listFolder for the change folder dir, opened as folder,
// through the folder cache t (nil: listFolder itself); the folder's stat,
// when taken, is left in ds (the draft cache's key reads it).
func listCached(t *source.StatTable, folder *safefile.Dir, dir string, ds *source.DirStat) (ents []pathglob.DirEntry, listed, ok bool) {
	if t == nil {
		return listFolder(folder)
	}
	st, err := folder.Stat()
	if err != nil {
		return listFolder(folder)
	}
	ds.Set(st)
	p := dir + "/"
	if v, hit := t.Find(p, st, nil); hit {
		if ents, ok := pathglob.DecodeListing(v); ok {
			t.AddHits(1)
			return ents, true, true
		}
	}
	ents, listed, ok = listFolder(folder)
	if listed && len(ents) <= maxListing && t.Storable(st) {
		t.Add(p, st, pathglob.EncodeListing(ents), nil)
	}
	return ents, listed, ok
}

// specDocs is Repo.Glob of dir+"/specs/*/spec.md" for the change folder
// dir (opened as folder), answered through the folder cache t when it can
// be (specsCached), else by the glob itself (without the cache the glob is
// the cheaper: a listing and an lstat a folder, where specsCached opens
// each folder).
func specDocs(r *source.Repo, t *source.StatTable, folder *safefile.Dir, dir string) []string {
	if t != nil && folder != nil {
		if out, ok := specsCached(t, folder, dir); ok {
			return out
		}
	}
	return r.Glob([]string{dir + "/specs/*/spec.md"}, false)
}

// specsCached answers specs/*/spec.md below the change folder: specs/ is
// opened inside folder without following a symlink and fstat'ed, its
// folders (every folder but .git, as the glob walks them) taken from the
// cache when its stat is unchanged, else listed; each is stat'ed without
// following a link, and whether it holds a spec.md the glob matches is
// taken from the cache when that stat is unchanged, else asked (a no-follow
// stat inside it). t nil: nothing is taken from a cache or stored. ok is
// false on anything unexpected (a listing or stat error, a folder no longer
// one): the caller globs.
func specsCached(t *source.StatTable, folder *safefile.Dir, dir string) (out []string, ok bool) {
	sd, err := folder.OpenSub("specs")
	if err != nil {
		return nil, false
	}
	defer sd.Close()
	var st safefile.FileStat
	if t != nil {
		if st, err = sd.Stat(); err != nil {
			return nil, false
		}
	}
	base := dir + "/specs/"
	var names []string
	hit := false
	if t != nil {
		if v, found := t.Find(base, st, nil); found {
			names, hit = decodeSubdirs(v)
		}
	}
	if hit {
		t.AddHits(1)
	} else {
		names, ok = listSubdirs(sd)
		if !ok {
			return nil, false
		}
		if t != nil && len(names) <= maxListing && t.Storable(st) {
			t.Add(base, st, encodeSubdirs(names), nil)
		}
	}
	for _, x := range names {
		xs, err := sd.StatNoFollow(x)
		if err != nil || !xs.IsDir() {
			return nil, false // changed meanwhile: the glob decides
		}
		p := base + x + "/"
		var match bool
		var v []byte
		found := false
		if t != nil {
			v, found = t.Find(p, xs, nil)
		}
		if found && len(v) == 2 && v[0] == valueSpecDoc && v[1] <= 1 {
			t.AddHits(1)
			match = v[1] == 1
		} else {
			if match, ok = specDocIn(sd, x); !ok {
				return nil, false
			}
			if t != nil && t.Storable(xs) {
				b := []byte{valueSpecDoc, 0}
				if match {
					b[1] = 1
				}
				t.Add(p, xs, b, nil)
			}
		}
		if match {
			out = append(out, p+"spec.md")
		}
	}
	sort.Strings(out) // the glob's order: by path ("a-b/spec.md" before "a/spec.md")
	return out, true
}

// specDocIn reports whether the folder x inside sd holds a spec.md the
// glob matches: a regular file or a symlink (whatever it leads to; the
// reader judges it), never a folder, FIFO or device. ok is false when x
// cannot be opened as a folder or the stat fails other than "missing".
func specDocIn(sd *safefile.Dir, x string) (match, ok bool) {
	xd, err := sd.OpenSub(x)
	if err != nil {
		return false, false
	}
	defer xd.Close()
	st, err := xd.StatNoFollow("spec.md")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, true
	case err != nil:
		return false, false
	}
	return st.Regular() || st.IsSymlink(), true
}

// listSubdirs lists the folders of the folder sd (its descriptor, read
// once), sorted, without .git (the glob never enters one).
func listSubdirs(sd *safefile.Dir) (names []string, ok bool) {
	bp := entryBufs.Get().(*[]byte)
	defer entryBufs.Put(bp)
	err := sd.ReadEntries(*bp, func(name []byte, typ fs.FileMode) {
		if typ.IsDir() && string(name) != ".git" {
			names = append(names, string(name))
		}
	})
	if err != nil {
		return nil, false
	}
	slices.Sort(names)
	return names, true
}

// encodeSubdirs encodes a sorted list of folder names: its kind, its
// number of names, then each name, length first.
func encodeSubdirs(names []string) []byte {
	b := []byte{valueSubdirs}
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, n := range names {
		b = binary.AppendUvarint(b, uint64(len(n)))
		b = append(b, n...)
	}
	return b
}

// decodeSubdirs decodes encodeSubdirs's value; ok is false for anything it
// would not have written (as decodeListing; .git is never one of them).
func decodeSubdirs(v []byte) (names []string, ok bool) {
	if len(v) == 0 || v[0] != valueSubdirs {
		return nil, false
	}
	v = v[1:]
	n, k := pathglob.Uvarint(v)
	if k <= 0 || n > maxListing || n > uint64(len(v)) {
		return nil, false
	}
	v = v[k:]
	names = make([]string, 0, n)
	for range n {
		name, rest, ok := pathglob.DecodeName(v)
		if !ok || name == ".git" || len(names) > 0 && names[len(names)-1] >= name {
			return nil, false
		}
		names = append(names, name)
		v = rest
	}
	if len(v) != 0 {
		return nil, false
	}
	return names, true
}
