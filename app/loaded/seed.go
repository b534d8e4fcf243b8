package loaded

import (
	"github.com/orchestrate-dev/orchestrate/internal/cachetable"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
)

// The first run of a repository with a cache folder keeps nothing but a
// mark (docs/ARCHITECTURE.md, "The cache fills on the second run").
//
// Filling the caches costs a run more than a run with the cache off
// does: every git object a history walk reads is hashed to prove it is
// what its name says (the 20,000-commit bench shape: +0.3 s of CPU, +57 %),
// and each table's values are encoded and written. A CI job runs in a
// fresh clone, which is a new folder (the tables are bound to a folder's
// path, device, inode and birth time): its caches would be filled, never
// read. So a cache folder that has not seen the repository yet is used
// for nothing on that run — discovery, git and the verdict memo read and
// keep nothing, exactly as with the cache off — and only a mark is
// written at SaveCaches; the next run in the same folder fills the
// tables, and the run after it reads them. The answers are the cache-off
// run's in every case.

// seenPrefix names the mark's table: seen-<digest of the root folder>.
const seenPrefix = "seen-"

// seenTable is the mark of the repository at root in cache c: one entry
// once a run there has ended with the cache on.
func seenTable(c *diskcache.Cache, root string) *cachetable.Table[byte, struct{}] {
	return cachetable.New(c, root, cachetable.Spec[byte, struct{}]{
		Prefix:  seenPrefix,
		KeySize: 1,
		Key:     func(k *byte) []byte { return []byte{*k} },
		Encode:  func(dst []byte, _ struct{}) []byte { return dst },
		Decode:  func([]byte) (struct{}, bool) { return struct{}{}, true },
	})
}

// firstSight reports whether cache c is on and has not seen the
// repository at root yet: the run then uses no cache and marks it seen
// (see markSeen).
func firstSight(c *diskcache.Cache, root string) bool {
	if !c.Enabled() {
		return false
	}
	t := seenTable(c, root)
	return t.Open() && t.Len() == 0
}

// markSeen marks the repository at root seen in cache c.
func markSeen(c *diskcache.Cache, root string) error {
	t := seenTable(c, root)
	if !t.Open() {
		return nil
	}
	t.Add(0, struct{}{})
	return t.Save()
}
