package gitrepo

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/orchestrate-dev/orchestrate/internal/gitblob"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// Compare tells, for each repository-relative slash path (already validated
// as safe), how the file on disk relates to base and to HEAD. The path is
// looked up in base's tree and the file on disk is hashed as a git blob; only
// when the two differ is HEAD's tree consulted, to tell a committed change
// from an uncommitted edit (HeadHash stays empty for unchanged paths). The
// cost follows len(paths): subtrees on the paths are loaded once each; for
// many paths the index is scanned too and, as git does, a file whose stat
// data matches its index entry (and is not racily clean) takes the entry's
// hash instead of being read. A folder counts as absent, both in
// a tree and on disk; content filters (end-of-line conversion, LFS) are not
// applied. The result is in the order of paths.
func (r *Repo) Compare(base Commit, paths []string) ([]PathState, error) {
	return r.CompareWith(base, paths, CompareOptions{})
}

// CompareOptions is what a caller that has looked at the paths already can
// hand Compare so that it does not do the same work again. The zero value
// makes Compare do everything itself.
type CompareOptions struct {
	// Lstat, when not nil, returns the lstat of the work-tree file at a
	// path, made earlier by the same command (ok false: not known, Compare
	// makes its own). It must be an lstat (a symbolic link not followed).
	Lstat func(path string) (fi fs.FileInfo, ok bool)
	// Index, when not nil, is the index read once for many Compare calls
	// (see IndexFor); its paths are not looked up in the index again.
	Index *Index
	// History, when not nil, gives the base's blobs of the paths it was
	// walked for (see HistoryFor) instead of a look-up in the base's tree.
	History *History
	// Serial, when not nil, lets calls of CompareWith run side by side,
	// with each other and with any other call on the Repo made while
	// holding Serial (a Repo is otherwise not safe for concurrent use):
	// CompareWith holds it while it reads or changes what the Repo keeps
	// between calls — the base's and HEAD's commits, and the look-ups in
	// their trees — and runs the rest without it: the answers taken from
	// Index and History (read only once made; History guards what it keeps
	// of the work tree), the work tree's stat data and hashing, the index
	// read for paths Index was not read for. The answers are the same.
	Serial sync.Locker
}

// serial holds a CompareOptions.Serial while a CompareWith uses the Repo's
// unshared state; with no lock it does nothing.
type serial struct {
	l    sync.Locker
	held bool
}

func (s *serial) lock() {
	if s.l != nil && !s.held {
		s.l.Lock()
		s.held = true
	}
}

func (s *serial) unlock() {
	if s.held {
		s.held = false
		s.l.Unlock()
	}
}

// Index is what Compare takes from the git index for a set of paths, read
// once for every Compare call of a command (see IndexFor), and HEAD's commit
// as it was then: the index is HEAD's tree and what is staged over it, the
// two taken together.
type Index struct {
	want    map[string]bool              // the paths it was read for
	entries map[string]gitobj.IndexEntry // those that can stand for the file on disk
	head    links                        // HEAD's commit; zero when it could not be read
	// heads is the blob of each wanted path in HEAD, not nil only when the
	// index's cache-tree says the index holds HEAD's tree (a path absent
	// from it is not a file in HEAD): Compare then reads none of HEAD's
	// trees for those paths.
	heads map[string]plumbing.Hash
	// dirs is the tree of each folder of the paths in HEAD, from the
	// cache-tree (with heads only): a base whose folder has that tree has
	// HEAD's files there (see baseBlob).
	dirs map[string]plumbing.Hash
}

// IndexFor reads the index entries of paths once, for the Compare calls of
// one command that each ask about a few of them (several workflows, each
// with its own base commit), expected being about how many paths those
// calls compare in all. It returns nil when Compare would not read the
// index for that many paths (see indexEntriesFor).
func (r *Repo) IndexFor(paths []string, expected int) *Index {
	heads := make(map[string]plumbing.Hash, len(paths))
	known, tree, dirs := r.readIndex(paths, expected, heads)
	if known == nil {
		return nil
	}
	head, err := r.headLinks()
	return newIndex(paths, known, heads, tree, dirs, head, err)
}

// IndexLater is IndexFor in two steps: it resolves HEAD now, and returns
// read, which reads the index for paths and gives IndexFor's answer. read
// uses nothing the Repo keeps between calls, so it may run on another
// goroutine beside any other call on the Repo (a caller that serialises
// its calls reads the index while the Repo walks the history). HistoryFor
// takes HEAD's entries from the first read of the last IndexLater (see
// headEntries), waiting for it while it walks.
func (r *Repo) IndexLater() (read func(paths []string, expected int) *Index) {
	head, herr := r.headLinks()
	rd := &indexRead{done: make(chan struct{})}
	r.lastIndex.Store(rd)
	return func(paths []string, expected int) *Index {
		first := rd.claimed.CompareAndSwap(false, true)
		if first {
			defer close(rd.done)
		}
		heads := make(map[string]plumbing.Hash, len(paths))
		known, tree, dirs := r.readIndex(paths, expected, heads)
		if known == nil {
			return nil
		}
		idx := newIndex(paths, known, heads, tree, dirs, head, herr)
		if first {
			rd.idx = idx
		}
		return idx
	}
}

// newIndex is the Index of paths read from the index (known, heads, and
// the cache-tree's tree and dirs), with HEAD's links when herr is nil.
func newIndex(paths []string, known map[string]gitobj.IndexEntry, heads map[string]plumbing.Hash, tree plumbing.Hash, dirs map[string]plumbing.Hash, head links, herr error) *Index {
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	idx := &Index{want: want, entries: known}
	if herr == nil {
		idx.head = head // else each Compare resolves HEAD (and reports why it cannot)
		if !tree.IsZero() && tree == head.tree {
			idx.heads, idx.dirs = heads, dirs
		}
	}
	return idx
}

// CompareWith is Compare with what the caller knows already (see
// CompareOptions); the answers are the same.
func (r *Repo) CompareWith(base Commit, paths []string, o CompareOptions) ([]PathState, error) {
	out := make([]PathState, 0, len(paths))
	if len(paths) == 0 {
		return out, nil
	}
	s := serial{l: o.Serial}
	defer s.unlock()
	s.lock()
	baseTree, err := r.treeOf(base.Hash)
	if err != nil {
		return nil, err
	}
	s.unlock()
	var headTree *pathTree // loaded on first need
	var buf []byte         // made on the first file hashed
	known := r.knownEntries(paths, o.Index)
	fromHistory := o.History.blobsAt(base.Hash) // nil: look every path up
	disk := o.History.disks(paths)              // what the run's other Compares found on disk
	var found []diskFound                       // and what this one finds, kept for them
	defer func() { o.History.keepDisks(found) }()
	for i, p := range paths {
		st := PathState{Path: p}
		be, ok := fromHistory.blob(p)
		if !ok {
			s.lock()
			be, err = baseBlob(baseTree, p, o.Index)
			s.unlock()
			if err != nil {
				return nil, err
			}
		}
		st.BaseHash = hashString(be)
		if d, ok := disk.at(i); ok {
			st.DiskHash, st.OnDisk = d.hash, d.onDisk
		} else {
			var fi fs.FileInfo
			if o.Lstat != nil {
				if got, ok := o.Lstat(p); ok {
					fi = got
				}
			}
			dh, onDisk, err := r.diskHashStat(p, &buf, known, fi)
			if err != nil {
				return nil, err
			}
			st.DiskHash, st.OnDisk = hashString(dh), onDisk
			found = disk.found(found, i, st.DiskHash, st.OnDisk)
		}
		st.Changed = st.BaseHash != st.DiskHash
		if st.Changed && o.Index != nil && o.Index.heads != nil && o.Index.want[p] {
			st.HeadHash = hashString(o.Index.heads[p])
			st.Committed = st.HeadHash != st.BaseHash
			st.Uncommited = st.DiskHash != st.HeadHash
		} else if st.Changed {
			s.lock()
			he, err := r.headBlob(&headTree, base.Hash, baseTree, o.Index, p)
			s.unlock()
			if err != nil {
				return nil, err
			}
			st.HeadHash = hashString(he)
			st.Committed = st.HeadHash != st.BaseHash
			st.Uncommited = st.DiskHash != st.HeadHash
		}
		out = append(out, st)
	}
	return out, nil
}

// headBlob is p's blob in HEAD's tree, *headTree being loaded on first
// need (see headTree).
func (r *Repo) headBlob(headTree **pathTree, base string, baseTree *pathTree, idx *Index, p string) (plumbing.Hash, error) {
	if *headTree == nil {
		t, err := r.headTree(base, baseTree, idx)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		*headTree = t
	}
	return (*headTree).blob(p)
}

// baseBlob is t.blob(p), taken from idx when the base (t) has, at the root
// or at one of p's folders, the tree idx's cache-tree gives HEAD there: the
// files under it are then HEAD's, whose blobs idx holds, and the trees below
// it are not read.
func baseBlob(t *pathTree, p string, idx *Index) (plumbing.Hash, error) {
	if idx == nil || idx.heads == nil || !idx.want[p] || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p) {
		return t.blob(p)
	}
	if t.root == idx.head.tree {
		return idx.heads[p], nil
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		h, ok := idx.dirs[p[:i]]
		if !ok {
			continue
		}
		e, err := t.entryKept(p[:i], true) // p is clean: so is p[:i]
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if e == nil || e.Mode != filemode.Dir {
			break // not a folder in base: t.blob answers
		}
		if e.Hash == h {
			return idx.heads[p], nil
		}
	}
	return t.blob(p)
}

// knownEntries is the index entries Compare may use for paths: idx's for
// the paths it was read for, the index read now for the others (when they
// are many enough, see indexEntriesFor).
func (r *Repo) knownEntries(paths []string, idx *Index) map[string]gitobj.IndexEntry {
	if idx == nil {
		return r.indexEntriesFor(paths, len(paths))
	}
	var rest []string
	for _, p := range paths {
		if !idx.want[p] {
			rest = append(rest, p)
		}
	}
	more := r.indexEntriesFor(rest, len(rest))
	if len(more) == 0 {
		return idx.entries
	}
	known := make(map[string]gitobj.IndexEntry, len(more)+len(paths))
	for _, p := range paths {
		if e, ok := idx.entries[p]; ok {
			known[p] = e
		}
	}
	for p, e := range more {
		known[p] = e
	}
	return known
}

// headTree returns the path lookup for HEAD, sharing base's when HEAD is
// base; HEAD is idx's when idx has it.
func (r *Repo) headTree(base string, baseTree *pathTree, idx *Index) (*pathTree, error) {
	var head links
	if idx != nil && !idx.head.hash.IsZero() {
		head = idx.head
	} else {
		var err error
		if head, err = r.headLinks(); err != nil {
			return nil, err
		}
	}
	if head.hash.String() == base {
		return baseTree, nil
	}
	return r.pathTree(head.tree), nil
}

// treeOf returns the path lookup for the tree of the commit with the full hex
// hash h.
func (r *Repo) treeOf(h string) (*pathTree, error) {
	if len(h) != 2*len(plumbing.ZeroHash) || !isHex(h) {
		return nil, fmt.Errorf("commit %q is not a full hash", h)
	}
	l, err := r.readLinks(plumbing.NewHash(h))
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	return r.pathTree(l.tree), nil
}

func (r *Repo) commitByHash(h string) (*object.Commit, error) {
	if len(h) != 2*len(plumbing.ZeroHash) || !isHex(h) {
		return nil, fmt.Errorf("commit %q is not a full hash", h)
	}
	c, err := r.readCommit(plumbing.NewHash(h))
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	return c, nil
}

// diskHashStat is gitblob.Hash in r's work tree.
func (r *Repo) diskHashStat(p string, buf *[]byte, known map[string]gitobj.IndexEntry, fi fs.FileInfo) (h plumbing.Hash, onDisk bool, err error) {
	return gitblob.Hash(r.root, p, buf, known, fi)
}
