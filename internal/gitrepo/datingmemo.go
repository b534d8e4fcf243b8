package gitrepo

import (
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
	"github.com/orchestrate-dev/orchestrate/internal/gitblob"
	"github.com/orchestrate-dev/orchestrate/internal/gitcache"
)

// The work-tree hash table (internal/gitcache's worktree.go) spares
// LastCommitted hashing a file whose stat data is as when it was hashed.

// datingNow is the run's clock for gitcache.Storable (a test moves it to
// store files it has just written).
var datingNow = time.Now

// diskHashDating is diskHashStat for LastCommitted: a regular file whose key
// is in the work-tree hash table takes its hash unread, and one read is
// recorded (when not changed within datingMemoRacy of now).
func (r *Repo) diskHashDating(p string, buf *[]byte) (h plumbing.Hash, onDisk bool, err error) {
	t := r.wtHashes
	if t == nil {
		return r.diskHashStat(p, buf, nil, nil)
	}
	fi, err := fastsys.Lstat(filepath.Join(r.root, filepath.FromSlash(p)))
	if err != nil {
		return r.diskHashStat(p, buf, nil, nil) // says why, as without the table
	}
	st, ok := gitcache.FileStatOf(fi)
	if !ok || !fi.Mode().IsRegular() {
		return r.diskHashStat(p, buf, nil, fi)
	}
	k := gitcache.WorktreeKey(p, st)
	if h, _, ok := t.Get(k); ok {
		return h, true, nil
	}
	h, onDisk, err = r.diskHashStat(p, buf, nil, fi)
	if err == nil && onDisk && h != gitblob.TooLarge && gitcache.Storable(datingNow(), st) {
		t.Add(k, h)
	}
	return h, onDisk, err
}
