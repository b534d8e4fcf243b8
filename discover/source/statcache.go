package source

import (
	"crypto/sha256"
	"encoding/binary"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/cachetable"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// The stat-keyed caches of the formats (discover/story's parses,
// discover/wfstate's decoded documents) key an entry as git's index keys a
// file: a file whose stat data is unchanged has unchanged content. These
// are the rules they share; see docs/SECURITY.md ("The cache").

// StatCacheRacy is how close to a scan's clock a file's modification or
// change time may be and the file still be stored: a write within the same
// clock tick as the stat could leave the stat data unchanged.
const StatCacheRacy = 2 * time.Second

// buildSalt is what identifies this build (Go version, module version, VCS
// revision): an entry one build stored is never read by another, whose
// parser may differ.
var buildSalt = sync.OnceValue(func() []byte {
	var b []byte
	if info, ok := debug.ReadBuildInfo(); ok {
		b = appendString(b, info.GoVersion)
		b = appendString(b, info.Main.Version)
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
				b = appendString(b, s.Key+"="+s.Value)
			}
		}
	}
	return b
})

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// StatCacheSalt returns the SHA-256 that salts a cache's keys: its label,
// its version (bump it on any change of what the parse gives for a file or
// of the value encoding), the build, and extra (whatever else the parse
// depends on besides the content, e.g. configured spellings), each
// length-prefixed.
func StatCacheSalt(label string, version uint64, extra ...string) [sha256.Size]byte {
	b := appendString(nil, label)
	b = binary.AppendUvarint(b, version)
	b = append(b, buildSalt()...)
	b = binary.AppendUvarint(b, uint64(len(extra)))
	for _, s := range extra {
		b = appendString(b, s)
	}
	return sha256.Sum256(b)
}

// StatCacheKey is the table key of the file at the repository-relative
// path p with stat data fs: a SHA-256 of salt, the stat data (device,
// inode, mode, size, modification and change times in ns) and p. scratch,
// when not nil, is reused for the bytes hashed.
func StatCacheKey(salt [sha256.Size]byte, p string, fs safefile.FileStat, scratch *[]byte) [sha256.Size]byte {
	var b []byte
	if scratch != nil {
		b = (*scratch)[:0]
	}
	b = append(b, salt[:]...)
	b = binary.LittleEndian.AppendUint64(b, fs.Dev)
	b = binary.LittleEndian.AppendUint64(b, fs.Ino)
	b = binary.LittleEndian.AppendUint32(b, fs.Mode)
	b = binary.LittleEndian.AppendUint64(b, uint64(fs.Size))
	b = binary.LittleEndian.AppendUint64(b, uint64(fs.Mtime.Unix()))
	b = binary.LittleEndian.AppendUint32(b, uint32(fs.Mtime.Nanosecond()))
	b = binary.LittleEndian.AppendUint64(b, uint64(fs.Ctime.Unix()))
	b = binary.LittleEndian.AppendUint32(b, uint32(fs.Ctime.Nanosecond()))
	b = append(b, p...) // last: every field before it has a fixed size
	if scratch != nil {
		*scratch = b
	}
	return sha256.Sum256(b)
}

// StatCacheStorable reports whether a file of stat data fs may be stored by
// a scan whose clock read now: not changed within StatCacheRacy of it, nor
// in the future.
func StatCacheStorable(now time.Time, fs safefile.FileStat) bool {
	limit := now.Add(-StatCacheRacy)
	return !fs.Mtime.After(limit) && !fs.Ctime.After(limit)
}

// StatTableKind describes one stat-keyed table: its name in the cache,
// what salts its keys besides the build, and two hooks for tests.
type StatTableKind struct {
	Name    string // the table's name in the cache (diskcache.Cache.Open)
	Label   string // salts the keys (StatCacheSalt)
	Version uint64 // salts the keys: bump it on any change of what the parse gives for a file or of the value encoding
	// Now is the scan's wall clock (nil: time.Now; a test moves it to
	// store files it has just written).
	Now func() time.Time
	// Hits, when set (by a test), is called at the end of each scan that
	// used the table with its number of hits and of new entries.
	Hits func(hits, added int)
}

// Salt is StatCacheSalt of k's label and version with extra.
func (k *StatTableKind) Salt(extra ...string) [sha256.Size]byte {
	return StatCacheSalt(k.Label, k.Version, extra...)
}

// StatTable is one scan's use of a stat-keyed cache table: the table as
// read at the start, the scan's clock, the entries it adds and its count
// of hits. It is safe for concurrent use by the scan's workers.
type StatTable struct {
	kind *StatTableKind
	c    *diskcache.Cache
	name string // the table's name: the kind's and the work tree's (TableName)
	t    *diskcache.Table
	salt [sha256.Size]byte
	now  time.Time // the scan's wall clock (not ORCHESTRATE_NOW: file times are real)
	root string
	max  int64
	r    *Repo // whose scan budget the files read are drawn from

	mu    sync.Mutex
	added *diskcache.Builder // the new entries of every worker (nil: none yet)
	hits  int
}

// OpenStatTable opens r's cache table of kind k, its keys salted with
// k.Salt(extra...) (whatever else the parse depends on besides the
// content); nil when r has no cache or its root cannot be named
// (cachetable.Digest). A table it cannot read is used as an empty one.
//
// Each work tree has its own table (TableName): one table for every
// repository a user runs in would be read whole by each run, however few
// of its entries the run's repository has, and rewritten whole by each
// run that adds one — up to diskcache.MaxTableSize (64 MiB) held in memory
// in a repository of ten stories.
func OpenStatTable(r *Repo, k *StatTableKind, extra ...string) *StatTable {
	if !r.Cache.Enabled() {
		return nil
	}
	name := TableName(k, r.Root)
	if name == "" {
		return nil
	}
	now := time.Now
	if k.Now != nil {
		now = k.Now
	}
	t, _ := r.Cache.Open(name, sha256.Size) // a table it cannot use is empty
	return &StatTable{kind: k, c: r.Cache, name: name, t: t, salt: k.Salt(extra...), now: now(), root: r.Root, max: r.Config.MaxFileSize, r: r}
}

// TableName is the name of the table of kind k for the work tree at root:
// the kind's name, "-" and the folder's cachetable.Digest (its path,
// device, inode and birth time); "" when the folder cannot be named.
func TableName(k *StatTableKind, root string) string {
	id := cachetable.Digest(root)
	if id == "" {
		return ""
	}
	return k.Name + "-" + id
}

// OpenDir opens the repository's folder dir ("." for the root) one
// component at a time without following a symlink (safefile.OpenDir).
func (t *StatTable) OpenDir(dir string) (*safefile.Dir, error) {
	return safefile.OpenDir(t.root, dir, false)
}

// ReadRegular reads the file name in folder d as d.ReadRegular does, within
// the configured size limit; ok is false when it must be read the usual way.
func (t *StatTable) ReadRegular(d *safefile.Dir, name string) (data []byte, fs safefile.FileStat, ok bool) {
	return d.ReadRegular(name, t.max)
}

// ReadRegularInto is ReadRegular reading into buf when the file fits
// (safefile.Dir.ReadRegularInto): data may share buf's array.
func (t *StatTable) ReadRegularInto(d *safefile.Dir, name string, buf []byte) (data []byte, fs safefile.FileStat, ok bool) {
	return d.ReadRegularInto(name, t.max, buf)
}

// Spend draws the elements of data, read by ReadRegular from the
// repository file p, from the scan's budget (Repo.Spend): a caller reports
// the error instead of parsing data.
func (t *StatTable) Spend(p string, data []byte) error { return t.r.Spend(p, data) }

// SpendN draws n elements for the file p, given from the table without
// being read (its decoded entries), from the scan's budget (Repo.SpendN).
func (t *StatTable) SpendN(p string, n int) error { return t.r.SpendN(p, n) }

// Lookup gives the stored value of the file name in folder d, at the
// repository-relative path p, when its stat data (a no-follow stat: a
// regular file within the size limit) has a key in the table, with that
// stat data. scratch is as for StatCacheKey.
func (t *StatTable) Lookup(d *safefile.Dir, name, p string, scratch *[]byte) (v []byte, fs safefile.FileStat, ok bool) {
	fs, ok = t.StatFile(d, name)
	if !ok {
		return nil, fs, false
	}
	v, ok = t.Find(p, fs, scratch)
	return v, fs, ok
}

// StatFile is Lookup's stat: the no-follow stat of the file name in folder
// d, ok only when the table has entries and it is a regular file within
// the size limit (a file Find may then look up). A scan that stats a
// folder's files first and looks them up after (StatFile for each, then
// Find for each) finds what Lookup finds, with the table's look-ups back to
// back rather than each after a system call.
func (t *StatTable) StatFile(d *safefile.Dir, name string) (fs safefile.FileStat, ok bool) {
	if t.t.Len() == 0 {
		return fs, false
	}
	fs, err := d.StatNoFollow(name)
	if err != nil || !fs.Regular() || (t.max > 0 && fs.Size > t.max) {
		return fs, false
	}
	return fs, true
}

// Find is Lookup's look-up: the stored value of the file at the
// repository-relative path p whose stat data, by StatFile, is fs. The value
// points into the table, which is only ever read: it must not be changed.
func (t *StatTable) Find(p string, fs safefile.FileStat, scratch *[]byte) (v []byte, ok bool) {
	k := StatCacheKey(t.salt, p, fs, scratch)
	return t.t.Get(k[:])
}

// Storable reports whether a file of stat data fs may be stored
// (StatCacheStorable at the scan's clock).
func (t *StatTable) Storable(fs safefile.FileStat) bool {
	return StatCacheStorable(t.now, fs)
}

// Add records the value v of the file at p with stat data fs as a new
// entry (the builder copies it). scratch is as for StatCacheKey.
func (t *StatTable) Add(p string, fs safefile.FileStat, v []byte, scratch *[]byte) {
	k := StatCacheKey(t.salt, p, fs, scratch)
	t.mu.Lock()
	if t.added == nil {
		t.added = diskcache.NewBuilder(sha256.Size)
	}
	t.added.Add(k[:], v)
	t.mu.Unlock()
}

// AddHits counts n more values taken from the table.
func (t *StatTable) AddHits(n int) {
	t.mu.Lock()
	t.hits += n
	t.mu.Unlock()
}

// Save writes the scan's new entries (nothing when there are none; a cache
// that cannot be written is skipped), after calling the kind's Hits hook.
// The write itself may run beside the rest of the scan (Repo.Later): the
// table takes no entry once its source's scan has ended.
func (t *StatTable) Save() {
	t.mu.Lock()
	added, hits := t.added, t.hits
	t.added = nil
	t.mu.Unlock()
	if t.kind.Hits != nil {
		t.kind.Hits(hits, added.Len())
	}
	if added.Len() == 0 {
		return
	}
	t.r.Later(func() {
		if t.c.Write(t.name, t.t, added) == nil { // a cache that cannot be written is skipped
			t.c.Forget(t.kind.Name) // the table of the older layout: one for every repository
		}
	})
}

// FolderTable is a StatTable whose files are read through the folders a
// scan opens once (Folders: each folder opened inside its open parent,
// without following a symlink): the OpenSpec and Kiro caches, which read a
// few files of each change or spec folder.
type FolderTable struct {
	*StatTable
	folders *Folders
}

// OpenFolderTable opens r's table of kind k (OpenStatTable), or returns nil
// when r has no cache.
func OpenFolderTable(r *Repo, k *StatTableKind, extra ...string) *FolderTable {
	t := OpenStatTable(r, k, extra...)
	if t == nil {
		return nil
	}
	return &FolderTable{StatTable: t, folders: NewFolders(r.Root)}
}

// OpenDir opens the folder dir (Folders.Open: the caller closes it); nil
// when c is nil or it cannot be opened that way (its files are then read
// the usual way). A scan's workers may call it concurrently.
func (c *FolderTable) OpenDir(dir string) *safefile.Dir {
	if c == nil {
		return nil
	}
	return c.folders.Open(dir)
}

// SaveAndClose closes the scan's folders and writes its new entries (Save);
// nothing when c is nil.
func (c *FolderTable) SaveAndClose() {
	if c == nil {
		return
	}
	c.folders.Close()
	c.Save()
}

// BaseName is the name of the file at the slash path p in its folder.
func BaseName(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }
