package gitobj

// Fork returns a Store that reads the packs, alternates and loose objects
// s reads, with a reader of its own (inflater, buffers, object cache,
// delta-work bound), so that one goroutine can read objects beside s's
// users without waiting for s's lock. It has no go-git fallback: an object
// only go-git can read is reported missing (the caller reads it through
// s). It shares s's open packs: it must not be used once s is closed, and
// closing it closes nothing. nil when s has no packs to share.
func (s *Store) Fork() *Store {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.load()
	if len(s.packs) == 0 {
		return nil
	}
	return &Store{FS: s.FS, packs: s.packs, loaded: true, cache: newOffsetCache(forkCacheBytes), ObjDir: s.ObjDir, alts: s.alts, forked: true}
}

// forkCacheBytes bounds a fork's cache of rebuilt objects: a fork reads
// commits along a chain, which are seldom deltas of each other.
const forkCacheBytes = 256 << 10
