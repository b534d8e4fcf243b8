package wfstate

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
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
// what tolerant.DecodeYAMLMap gives for a text, of what Build gives for a
// document, or of the value encoding. 3: a state Build turned into a
// candidate keeps the candidate (candcodec.go), the keys salted with the
// workflow definitions (definitionsSalt).
var stateCacheKind = source.StatTableKind{Name: "wfstates", Label: "orchestrate workflow-state cache", Version: 3}

// stateCache is one scan's use of the state table. It is safe for
// concurrent use by the scan's workers.
type stateCache struct {
	*source.StatTable

	folders *source.Folders
	// lists are the folders holding at least listFolderMin of the scan's
	// state files, by folder: each listed once, by the first missing that
	// asks (set when the cache is opened, then only read)
	lists map[string]*folderNames
}

// folderNames is the listing of one folder of state files (missing).
type folderNames struct {
	once  sync.Once
	names map[string]struct{}
	ok    bool // listed (else missing stats each name)
}

// listFolderMin is how many state files a folder holds for missing to
// list it once rather than stat a name of it for each (a variable for the
// tests): 1,000 states' .bak twins were 1,000 stats, each a system call;
// a listing of their folder is a few.
var listFolderMin = 32

// openStateCache opens r's state table for the state files files, or
// returns nil when r has no cache. Its keys are salted with r's workflow
// definitions, which the candidates it keeps were built with.
func openStateCache(r *source.Repo, files []string) *stateCache {
	t := source.OpenStatTable(r, &stateCacheKind, definitionsSalt(r.Definitions))
	if t == nil {
		return nil
	}
	c := &stateCache{StatTable: t, folders: source.NewFolders(r.Root)}
	if len(files) >= listFolderMin {
		n := map[string]int{}
		for _, f := range files {
			n[folderOf(f)]++
		}
		for dir, k := range n {
			if k >= listFolderMin {
				if c.lists == nil {
					c.lists = map[string]*folderNames{}
				}
				c.lists[dir] = &folderNames{}
			}
		}
	}
	return c
}

// folderOf is the folder of the slash path p, as source.Folders names it
// ("." for none).
func folderOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return "."
}

// folder returns p's folder and name (source.Folders).
func (c *stateCache) folder(p string) (*safefile.Dir, string) { return c.folders.Of(p) }

// stateRead is what the scan has of one state file: its decoded document
// (m, with entries the count tolerant.CountEntries(m, maxStateEntries)
// gives when not -1), or the candidate Build made of it, kept in the cache
// (built: its entries drawn from the scan's budget already); readErr is
// r.Read's error, decodeErr tolerant.DecodeYAMLMap's. A document read now
// (not from the cache) that may be kept has keep set, with its stat data.
type stateRead struct {
	m                  map[string]any
	entries            int
	built              bool
	cand               workflow.Candidate
	readErr, decodeErr error
	keep               bool
	fs                 safefile.FileStat
}

// decode gives what the scan has of the state file p: from the cache when
// its stat data is unchanged (a built candidate, or a decoded document),
// else read (through its safely opened folder, else with r.Read, which
// reports any problem; or the bytes the epic source read of it, with their
// stat data: source.Repo.Kept) and decoded; keep (stateCache.keep) records
// it.
func (c *stateCache) decode(r *source.Repo, p string) (st stateRead) {
	st.entries = -1
	d, name := c.folder(p)
	if d == nil {
		st.m, st.readErr, st.decodeErr = decodeState(r, p)
		return st
	}
	if v, _, ok := c.Lookup(d, name, p, nil); ok && len(v) > 0 {
		var n int
		switch v[0] {
		case tagBuilt:
			st.cand, n, st.built = decodeBuilt(v)
			ok = st.built
		case tagDoc:
			st.m, n, ok = tolerant.DecodeMapValueCount(v[1:], maxStateEntries)
		default:
			ok = false
		}
		if ok {
			c.AddHits(1)
			// not read, but held: its entries are drawn from the scan's budget
			if err := c.SpendN(p, 1+n); err != nil {
				return stateRead{entries: -1, readErr: err}
			}
			st.entries = n
			return st
		}
		st = stateRead{entries: -1}
	}
	data, fs, withStat, ok := r.Kept(p) // the epic source's read of p, with its stat data
	if !ok || !withStat {
		data, fs, ok = c.ReadRegular(d, name)
	}
	if !ok {
		st.m, st.readErr, st.decodeErr = decodeState(r, p)
		return st
	}
	if err := c.Spend(p, data); err != nil {
		st.readErr = err
		return st
	}
	st.m, st.decodeErr = tolerant.DecodeYAMLMap(data)
	st.keep, st.fs = st.decodeErr == nil && c.Storable(fs), fs
	return st
}

// keep records the state file p as st read it: cand, when not nil, is the
// candidate Build made of st's document (before the scan adds to it), kept
// when it round-trips exactly (encodeBuilt); else the document. Nothing
// is kept of a document the value codec refuses (a time in another zone
// than UTC, whose value depends on the environment): a candidate built
// from it could too.
func (c *stateCache) keep(p string, st *stateRead, cand *workflow.Candidate) {
	if c == nil || !st.keep {
		return
	}
	v := encodeDoc(st.m)
	if v == nil {
		return
	}
	if cand != nil {
		if b := encodeBuilt(cand, st.entries); b != nil {
			v = b
		}
	}
	c.Add(p, st.fs, v, nil)
}

// definitionsSalt is what salts the state table's keys besides the build:
// the SHA-256 of every workflow definition a state may be built with (the
// repository's, defs, and the built-in ones), each canonically encoded in
// the order of its id.
func definitionsSalt(defs map[string]workflow.Definition) string {
	var w candWriter
	for _, set := range []map[string]workflow.Definition{defs, source.BuiltinDefinitions()} {
		ids := slices.Sorted(maps.Keys(set))
		w.count(len(ids))
		for _, id := range ids {
			d := set[id]
			w.str(id)
			w.str(d.ID)
			w.str(d.Name)
			w.str(d.Source)
			w.int(d.MaxIterations)
			if w.present(d.Phases != nil) {
				w.count(len(d.Phases))
				for _, ph := range d.Phases {
					w.str(ph.ID)
					w.str(ph.Name)
					w.str(ph.Agent)
					w.str(ph.Task)
					w.str(ph.Next)
					w.str(ph.SkipIf)
					if w.present(ph.Decision != nil) {
						keys := slices.Sorted(maps.Keys(ph.Decision))
						w.count(len(keys))
						for _, k := range keys {
							w.str(k)
							w.str(ph.Decision[k])
						}
					}
				}
			}
		}
	}
	sum := sha256.Sum256(w.b)
	return string(sum[:])
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
	if l := c.lists[folderOf(p)]; l != nil {
		// the folder as listed once (the same folder, opened the same way):
		// a name it does not hold is missing, as its stat would say
		l.once.Do(func() {
			names, err := d.Names()
			if err != nil {
				return
			}
			l.names = make(map[string]struct{}, len(names))
			for _, n := range names {
				l.names[n] = struct{}{}
			}
			l.ok = true
		})
		if l.ok {
			_, listed := l.names[name]
			return !listed
		}
	}
	_, err := d.StatNoFollow(name)
	return errors.Is(err, fs.ErrNotExist)
}

// decodeState reads p with r.Read, or takes the bytes the epic source kept
// of it (source.Repo.Kept, drawn from the budget as r.Read would), and
// decodes it (no cache).
func decodeState(r *source.Repo, p string) (m map[string]any, readErr, decodeErr error) {
	data, _, _, kept := r.Kept(p)
	var err error
	if kept {
		err = r.Spend(p, data)
	} else {
		data, err = r.Read(p)
	}
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
