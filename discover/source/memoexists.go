package source

import "sync"

// MaxMemoExists bounds the answers MemoExists keeps for a scan.
const MaxMemoExists = 50_000

// MemoExists remembers exists's answers for the whole scan of a format
// whose items name the same files (500 OpenSpec changes on the bench's
// specs shape asked ~2,000 times after ~100 files; Kiro's specs alike), up
// to MaxMemoExists of them; past it, it asks again. It is safe for the
// scan's workers.
func MemoExists(exists func(string) bool) func(string) bool {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(p string) bool {
		mu.Lock()
		v, ok := seen[p]
		mu.Unlock()
		if ok {
			return v
		}
		v = exists(p)
		mu.Lock()
		if len(seen) < MaxMemoExists {
			seen[p] = v
		}
		mu.Unlock()
		return v
	}
}
