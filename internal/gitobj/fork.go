package gitobj

// Fork returns a Store that reads the packs, alternates and loose objects
// s reads, with a reader of its own (inflater, buffers, object cache,
// delta-work bound), so that one goroutine can read objects beside s's
// users without waiting for s's lock. It has no go-git fallback: an object
// only go-git can read is reported missing (the caller reads it through
// s). It shares s's open packs: it must not be used once s is closed, and
// closing it closes nothing. nil when s has no packs to share.
func (s *Store) Fork() *Store { return s.forkSized(forkCacheBytes, 4) }

// forkSized is Fork with a cache of rebuilt objects of cache bytes, that
// drops the shared mappings past 1/touchDiv of the pages its parent does.
func (s *Store) forkSized(cache, touchDiv int) *Store {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.load()
	if len(s.packs) == 0 {
		return nil
	}
	return &Store{FS: s.FS, packs: s.packs, loaded: true, cache: newOffsetCache(cache), ObjDir: s.ObjDir, alts: s.alts, mapped: s.mapped, forked: true, touchDiv: touchDiv}
}

// forkCacheBytes bounds a fork's cache of rebuilt objects: a fork reads
// commits along a chain, which are seldom deltas of each other;
// treeForkCacheBytes a chain reader's fork that reads the walk's trees,
// deltas of each other (as the Repo's store's).
const (
	forkCacheBytes     = 256 << 10
	treeForkCacheBytes = 2 << 20
)
