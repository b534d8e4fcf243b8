package gitrepo

import (
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
	"github.com/orchestrate-dev/orchestrate/internal/par"
	"github.com/orchestrate-dev/orchestrate/internal/pathglob"
)

// maxFolderFiles bounds the files compared to date one folder: a bigger
// folder is not dated from git (its caller keeps the modification time).
const maxFolderFiles = 2000

// LastCommitted returns, for each slash path that is exactly as committed in
// HEAD, the newest commit on HEAD's first-parent chain that changed it,
// looking at most maxCommits commits back (see LastChange). A path is a file
// or a folder; a folder is as committed when the files on disk under it are
// the files HEAD holds there, with the same content (at most 2000 files), and
// its commit is the newest one that changed anything inside it. Paths with an
// uncommitted edit, missing, untracked, unsafe, or beyond the bound are
// absent: their caller keeps the modification time. In a shallow clone a path
// not changed since the boundary gets the boundary commit (the newest time
// the history can vouch for), and likewise the commit whose parent is
// missing in a partial clone: such a date is a bound, the path was last
// changed at or before it — HistoryCut tells the commit apart, and its
// time must not be taken for the time of the change. The answer is the
// same in a fresh clone, a linked worktree or the original checkout of the
// same commit.
func (r *Repo) LastCommitted(paths []string, maxCommits int) map[string]Commit {
	out := make(map[string]Commit)
	if len(paths) == 0 {
		return out
	}
	head, err := r.headObject()
	if err != nil {
		return out
	}
	// HEAD's entries looked up in turn (a pathTree is one goroutine's),
	// the files and folders on disk compared side by side (stat, hash and
	// list calls; the tree and hash caches are safe for concurrent use)
	tree := r.pathTree(head.TreeHash)
	var ps []string
	var es []*object.TreeEntry
	for _, p := range paths {
		if !safeRel(p) {
			continue
		}
		if e, err := tree.entry(p); err == nil && e != nil && (gitobj.IsBlob(e.Mode) || e.Mode == filemode.Dir) {
			ps, es = append(ps, p), append(es, e)
		}
	}
	same := make([]bool, len(ps))
	bufs := sync.Pool{New: func() any { return new([]byte) }} // hash buffers, made by gitblob.Hash when needed
	par.For(len(ps), par.Options{Workers: runtime.GOMAXPROCS(0), Chunk: 4, Min: 8}, func(i int) {
		buf := bufs.Get().(*[]byte)
		same[i] = gitobj.IsBlob(es[i].Mode) && r.fileAsCommitted(ps[i], es[i].Hash, buf) || es[i].Mode == filemode.Dir && r.folderAsCommittedMemo(ps[i], es[i].Hash, buf)
		bufs.Put(buf)
	})
	clean := ps[:0]
	for i, p := range ps {
		if same[i] {
			clean = append(clean, p)
		}
	}
	return r.LastChange(clean, maxCommits)
}

// fileAsCommitted reports whether the file at slash path p on disk has the
// content of blob h.
func (r *Repo) fileAsCommitted(p string, h plumbing.Hash, buf *[]byte) bool {
	dh, onDisk, err := r.diskHashDating(p, buf)
	return err == nil && onDisk && dh == h
}

// safeRel is cleanRel without a NUL, and not absolute on this system either.
func safeRel(p string) bool { return !strings.ContainsRune(p, 0) && !filepath.IsAbs(p) && cleanRel(p) }

// folderAsCommitted reports whether the folder at slash path p on disk holds
// exactly the files of the tree h (from r's tree cache), with the same
// content. Symbolic links are compared as git stores them and never
// followed; a folder over maxFolderFiles files or with a submodule is not
// compared (false).
func (r *Repo) folderAsCommitted(p string, h plumbing.Hash, buf *[]byte) bool {
	want := map[string]plumbing.Hash{}
	return r.folderFiles(h, "", want, 0) && r.folderOnDisk(filepath.Join(r.root, filepath.FromSlash(p)), p+"/", "", want, buf) && len(want) == 0
}

// folderFiles adds to want every file of tree h, by its path under prefix;
// false on a submodule, an unreadable tree, past maxFolderFiles files or
// 1024 folders deep (as go-git's tree walker).
func (r *Repo) folderFiles(h plumbing.Hash, prefix string, want map[string]plumbing.Hash, depth int) bool {
	t, err := r.trees.Get(h)
	if err != nil || depth > 1024 {
		return false
	}
	for i := range t.Offs {
		mode, name, at := t.At(i)
		switch e := gitobj.ParseEntry(mode, t.Raw[at:at+20]); {
		case e.Mode == filemode.Dir:
			if !r.folderFiles(e.Hash, prefix+string(name)+"/", want, depth+1) {
				return false
			}
		case !gitobj.IsBlob(e.Mode):
			return false // a submodule: its content is another repository's
		default:
			if want[prefix+string(name)] = e.Hash; len(want) > maxFolderFiles {
				return false
			}
		}
	}
	return true
}

// folderOnDisk takes out of want each file under the folder abs (sub
// under the folder compared, whose work-tree slash path is base) whose
// content is as want holds it; false at the first file want lacks
// (untracked or ignored) or holds with another content. Each folder is
// listed once, unsorted, without following a link (pathglob.ListNoFollow:
// opened as a folder, never handed to Go's poller, whose try to register a
// folder fails: one epoll_ctl a folder).
func (r *Repo) folderOnDisk(abs, base, sub string, want map[string]plumbing.Hash, buf *[]byte) bool {
	ents, err := pathglob.ListNoFollow(abs)
	if err != nil {
		return false
	}
	for _, d := range ents {
		rel := sub + d.Name
		if d.Type.IsDir() {
			if !r.folderOnDisk(filepath.Join(abs, d.Name), base, rel+"/", want, buf) {
				return false
			}
			continue
		}
		if wh, found := want[rel]; !found || !r.fileAsCommitted(base+rel, wh, buf) {
			return false // untracked (or ignored), or changed
		}
		delete(want, rel)
	}
	return true
}

// maxRemovalScan bounds the commits Removal walks back.
const maxRemovalScan = 5000

// Removal names the newest commit on HEAD's first-parent chain that removed
// the file at slash path p, which HEAD no longer holds: ok is false when HEAD
// still holds p, when no commit within reach removed it (never committed, or
// beyond the shallow boundary), or on a read error. When the commit added the
// same blob at another path, MovedTo names it (the first in path order); when
// it turned a folder on p into a submodule, Submodule names that folder.
func (r *Repo) Removal(p string) (Removal, bool) {
	if !safeRel(p) {
		return Removal{}, false
	}
	head, err := r.headObject()
	if err != nil {
		return Removal{}, false
	}
	if e, err := r.pathTree(head.TreeHash).entry(p); err != nil || e != nil {
		return Removal{}, false
	}
	c, ok := r.LastChange([]string{p}, maxRemovalScan)[p]
	if !ok {
		return Removal{}, false
	}
	obj, err := r.commitByHash(c.Hash)
	if err != nil {
		return Removal{}, false
	}
	parent, ok, err := r.firstParent(obj)
	if err != nil || !ok {
		return Removal{}, false
	}
	old, err := r.pathTree(parent.TreeHash).entry(p)
	if err != nil || old == nil {
		return Removal{}, false // not a removal: p was added (and is absent from HEAD for another reason)
	}
	out := Removal{Commit: c}
	// a folder on the path that became a submodule
	now := r.pathTree(obj.TreeHash)
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		if e, err := now.entry(dir); err == nil && e != nil && e.Mode == filemode.Submodule {
			out.Submodule = dir
			return out, true
		}
	}
	if !gitobj.IsBlob(old.Mode) {
		return out, true
	}
	from, err := parent.Tree()
	if err != nil {
		return out, true
	}
	to, err := obj.Tree()
	if err != nil {
		return out, true
	}
	changes, err := object.DiffTree(from, to)
	if err != nil {
		return out, true
	}
	var moved []string
	for _, ch := range changes {
		if ch.To.Name != "" && ch.To.Name != p && ch.To.TreeEntry.Hash == old.Hash && gitobj.IsBlob(ch.To.TreeEntry.Mode) {
			moved = append(moved, ch.To.Name)
		}
	}
	if len(moved) > 0 {
		sort.Strings(moved)
		out.MovedTo = moved[0]
	}
	return out, true
}
