package gitcache

// The object table: the content of the small blobs ReadAt reads (a story
// as it was at a workflow's base, for validation), kept across runs in the
// user's cache folder (internal/diskcache; never in a repository) so that a
// later run reads them without inflating them from a pack or rebuilding
// them from a delta chain.
//
// One table, git-objects-<repo> (<repo> as for the history table, see
// internal/gitrepo's histcache.go: a digest of the git folder's absolute
// path, device and inode), keyed by an object's hash (20 bytes). Its value is the object's
// type (one byte, plumbing.ObjectType) then its content: objects of at
// most maxStoredObject bytes, at most maxStoredPerRun bytes of them per run.
//
// Trees are not in it. The trees of look-ups by path were, first: a warm
// run then read 4 to 9 MiB of trees from it (the bases of 200 workflows,
// or 5,000 paths under one base), checking each one's hash, and a cold run
// wrote as much (+20 ms). The path table (paths.go) keeps what those
// look-ups found instead, and a warm run reads no tree at all; the trees of
// history walks are the history table's (commits.go).
//
// Why it is sound: an object's content is what git names by its hash. A
// value is used only when its type is the one asked for and the git hash of
// its type and content (SHA-1, as the repository's object names) is its key;
// anything else is a miss, and the object is read from the repository as
// without the table. So a table that was damaged, or written by a buggy or
// hostile program, can make a run slower, never give it another object.
// (The hash is checked once per object and run: about 3 µs for a 4 KiB
// story, much less than inflating it.)

import (
	"github.com/orchestrate-dev/orchestrate/internal/gitverify"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/orchestrate-dev/orchestrate/internal/cachetable"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

// objectsTable prefixes the object table's name (the repository's digest
// follows).
const objectsTable = "git-objects-"

const (
	// maxStoredObject bounds an object the table keeps.
	maxStoredObject = 64 << 10
	// maxStoredPerRun bounds the bytes of objects one run adds.
	maxStoredPerRun = 1 << 20
	// maxObjectTable bounds the table file (every run that reads a blob
	// reads it whole): a table that would grow past it starts over with
	// this run's objects only.
	maxObjectTable = 4 << 20
)

// Objects is a Repo's view of the object table, opened on first use. It
// is safe for concurrent use (stories are dated while other sources scan);
// nil is a table that is off. Its values are this run's objects (type byte
// then content); checked is the objects whose value was found true this
// run.
type Objects struct {
	t       *cachetable.Table[plumbing.Hash, []byte]
	mu      sync.Mutex
	checked map[plumbing.Hash]bool
}

// NewObjects returns the object table of the repository whose git folder
// is gitDir in disk; it is read on first use.
func NewObjects(disk *diskcache.Cache, gitDir string) *Objects {
	return &Objects{checked: map[plumbing.Hash]bool{}, t: cachetable.New(disk, gitDir, cachetable.Spec[plumbing.Hash, []byte]{
		Prefix: objectsTable, KeySize: len(plumbing.ZeroHash), Key: hashKey,
		Encode:   func(dst, v []byte) []byte { return append(dst, v...) },
		Decode:   func(v []byte) ([]byte, bool) { return v, true },
		MaxBytes: maxStoredPerRun, Size: func(v []byte) int { return len(v) },
		Bound: maxObjectTable, Grow: func(int, int) int64 { return maxStoredPerRun },
	})}
}

// Table is the table under c (its look-up counts, its name), nil when c
// is.
func (c *Objects) Table() *cachetable.Table[plumbing.Hash, []byte] {
	if c == nil {
		return nil
	}
	return c.t
}

// Get returns the content of object h of type t when the table (or this
// run) holds it; the content points into the table: the caller must not
// change it.
func (c *Objects) Get(t plumbing.ObjectType, h plumbing.Hash) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	v, fresh, ok := c.t.Get(h)
	if !ok {
		return nil, false
	}
	content, ok := decodeObject(t, v)
	if fresh {
		return content, ok // read from the repository this run
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ok && !c.checked[h] {
		ok = gitverify.ObjectHash(t, content) == h
		if ok && len(c.checked) < 1<<16 {
			c.checked[h] = true
		}
	}
	if !ok {
		c.t.Refuse()
		return nil, false
	}
	return content, true
}

// Add records object h of type t, read from the repository, for Save; an
// object too big, or past this run's budget, is not kept.
func (c *Objects) Add(t plumbing.ObjectType, h plumbing.Hash, content []byte) {
	if c == nil || len(content) > maxStoredObject {
		return
	}
	if c.t.Add(h, encodeObject(t, content)) {
		c.mu.Lock()
		c.checked[h] = true // read from the repository, under that name
		c.mu.Unlock()
	}
}

// Drop forgets this run's new entries unsaved.
func (c *Objects) Drop() {
	if c != nil {
		c.t.Drop()
	}
}

// Save writes this run's objects with the table's (a table that would grow
// past maxObjectTable starts over); nothing when there is nothing new.
func (c *Objects) Save() error {
	if c == nil {
		return nil
	}
	return c.t.Save()
}

// encodeObject is an object's value: its type, then its content.
func encodeObject(t plumbing.ObjectType, content []byte) []byte {
	v := make([]byte, 0, 1+len(content))
	v = append(v, byte(t))
	return append(v, content...)
}

// decodeObject returns the content of a value of an object of type t; ok
// is false when the value is empty or of another type. The content is not
// checked against the key here (see get).
func decodeObject(t plumbing.ObjectType, v []byte) (content []byte, ok bool) {
	if len(v) < 1 || plumbing.ObjectType(v[0]) != t || !t.Valid() {
		return nil, false
	}
	return v[1:], true
}
