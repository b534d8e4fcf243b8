package gitrepo

import (
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// indexWeight is how many paths' worth of index one tree look-up of a
// path costs about (HistoryFor's HEAD entries): a cold look-up in a
// 100,000-file tree costs what scanning some 100 KB of index does (0.1 ms
// against 1.4 ms a MB), and the index is worth reading for a path when it
// holds at most 4 KB an index path (gitobj.ReadIndex's bound) × indexWeight.
const indexWeight = 8

// headEntries is entriesOf(tree, paths) for HEAD's tree, taken from the
// git index when its cache-tree says it holds that very tree (as Compare
// takes HEAD's blobs from it, see Index.heads): a path the index holds as a
// file at stage 0 is that file in HEAD, read from no tree; any other path
// (a folder, a submodule, absent) is looked up in the trees, from the
// deepest of its folders whose tree the cache-tree gives instead of from
// the root. The index is not used — every path is looked up in the trees
// as entriesOf does — when it cannot be read, is too large for the paths,
// is split or sparse, holds a conflicted, skip-worktree or intent-to-add
// entry (its cache-tree is then not taken), or its cache-tree's root is not
// tree (staged changes, another HEAD); and when a look-up from a folder
// the cache-tree gives fails (a cache-tree naming a tree not in the
// repository). The first read of the last IndexLater is taken rather than
// a read of its own when it was read for every one of paths and holds, by
// its cache-tree, the very tree (its heads and dirs are facts about that
// tree, which a later change to the index does not make untrue); it is
// waited for until it is done, or until giveUp is closed (HistoryFor: its
// walk ended) if not started by then (the index is then read here; a read
// started ends: a bounded read, never blocking on a FIFO). A file's entry
// has the mode Regular (a symbolic link in HEAD too): History only asks an
// entry its blob and its folder tree.
func (r *Repo) headEntries(tree plumbing.Hash, paths []string, giveUp <-chan struct{}) (map[string]gitobj.RawEntry, error) {
	if r.storage == nil || tree.IsZero() || len(paths) == 0 {
		return r.entriesOf(tree, paths)
	}
	if idx := r.lastIndex.Load().index(giveUp); idx != nil && idx.heads != nil && idx.head.tree == tree && idx.wants(paths) {
		if out, err := r.indexedEntries(tree, paths, idx.heads, idx.dirs); err == nil {
			return out, nil
		}
		return r.entriesOf(tree, paths)
	}
	blobs := make(map[string]plumbing.Hash, len(paths))
	known, root, dirs := gitobj.ReadIndex(r.storage.Filesystem(), paths, len(paths)*indexWeight, blobs)
	if known == nil || root != tree {
		return r.entriesOf(tree, paths)
	}
	if out, err := r.indexedEntries(tree, paths, blobs, dirs); err == nil {
		return out, nil
	}
	return r.entriesOf(tree, paths)
}

// indexedEntries is headEntries' answer from an index whose cache-tree
// holds tree: blobs the files it holds of paths, dirs the trees it gives
// their folders.
func (r *Repo) indexedEntries(tree plumbing.Hash, paths []string, blobs, dirs map[string]plumbing.Hash) (map[string]gitobj.RawEntry, error) {
	out := make(map[string]gitobj.RawEntry, len(paths))
	var trees map[plumbing.Hash]*pathTree // one look-up per folder tree started from
	for _, p := range paths {
		if b, ok := blobs[p]; ok {
			out[p] = gitobj.RawEntry{Mode: filemode.Regular, Hash: b}
			continue
		}
		from, rel := tree, p
		for i := len(p) - 1; i > 0; i-- {
			if p[i] != '/' {
				continue
			}
			if h, ok := dirs[p[:i]]; ok {
				from, rel = h, p[i+1:]
				break
			}
		}
		t := trees[from]
		if t == nil {
			if trees == nil {
				trees = map[plumbing.Hash]*pathTree{}
			}
			t = r.pathTree(from)
			trees[from] = t
		}
		e, err := t.entry(rel)
		if err != nil {
			return nil, err
		}
		if e != nil {
			out[p] = gitobj.RawEntry{Mode: e.Mode, Hash: e.Hash}
		}
	}
	return out, nil
}

// indexRead is the first read of one IndexLater: idx once done is closed
// (nil when the index was not read); claimed is set when it starts.
type indexRead struct {
	claimed atomic.Bool
	done    chan struct{}
	idx     *Index
}

// index waits for the read to end and returns its Index; nil when giveUp
// is closed before the read has started (or rd is nil: no read). A read
// started by then is waited for: it ends sooner than a second parse of
// the index beside it (a warm run whose walk ended first).
func (rd *indexRead) index(giveUp <-chan struct{}) *Index {
	if rd == nil {
		return nil
	}
	select {
	case <-rd.done:
	case <-giveUp:
		if !rd.claimed.Load() {
			return nil
		}
		<-rd.done
	}
	return rd.idx
}

// wants reports whether idx was read for every one of paths.
func (idx *Index) wants(paths []string) bool {
	for _, p := range paths {
		if !idx.want[p] {
			return false
		}
	}
	return true
}
