package gitrepo

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-billy/v5"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// MaxReadSize is the largest blob ReadAt returns (8 MiB).
const MaxReadSize = 8 << 20

// maxOpenPacks is how many pack files a Repo keeps open.
const maxOpenPacks = 16

// minAbbrev is the shortest abbreviated hash InterruptionCommit accepts.
const minAbbrev = 4

// Repo is an opened git repository with a work tree. It reads objects on
// demand (through go-git's object cache) and keeps no other state between
// calls except the shallow boundary read at Open. A Repo is not safe for
// concurrent use; Close releases its open pack files.
type Repo struct {
	repo    *git.Repository
	objects storer.EncodedObjectStorer
	packs   *objectStore        // nil without a file-system storage
	storage *filesystem.Storage // nil once closed
	root    string
	shallow map[plumbing.Hash]bool
}

// Open opens the git repository that contains dir — dir itself, or any of
// its parents — including a linked worktree whose .git is a file pointing
// into the main repository's .git/worktrees. A folder outside any repository
// (or a bare repository, which has no work tree) gives an error wrapping
// ErrNoGit.
func Open(dir string) (*Repo, error) {
	probe, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return nil, fmt.Errorf("open git repository at %s: %w", dir, ErrNoGit)
		}
		return nil, fmt.Errorf("open git repository at %s: %w", dir, err)
	}
	wt, err := probe.Worktree()
	if err != nil {
		if errors.Is(err, git.ErrIsBareRepository) {
			return nil, fmt.Errorf("open git repository at %s: bare repository: %w", dir, ErrNoGit)
		}
		return nil, fmt.Errorf("open work tree at %s: %w", dir, err)
	}
	// Reopen the same .git (commondir mapping included) with pack files kept
	// open between reads: go-git otherwise reopens the pack for every object.
	var st *filesystem.Storage
	r := probe
	if fsStorage, ok := probe.Storer.(*filesystem.Storage); ok {
		st = filesystem.NewStorageWithOptions(fsStorage.Filesystem(), cache.NewObjectLRUDefault(),
			filesystem.Options{MaxOpenDescriptors: maxOpenPacks})
		if r, err = git.Open(st, wt.Filesystem); err != nil {
			return nil, fmt.Errorf("open git repository at %s: %w", dir, err)
		}
	}
	root, err := filepath.Abs(wt.Filesystem.Root())
	if err != nil {
		return nil, fmt.Errorf("work tree root of %s: %w", dir, err)
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return nil, fmt.Errorf("work tree root of %s: %w", dir, err)
	}
	bounds, err := r.Storer.Shallow()
	if err != nil {
		return nil, fmt.Errorf("read shallow boundary of %s: %w", root, err)
	}
	shallow := make(map[plumbing.Hash]bool, len(bounds))
	for _, h := range bounds {
		shallow[h] = true
	}
	out := &Repo{repo: r, objects: r.Storer, storage: st, root: root, shallow: shallow}
	if st != nil {
		// Commits and trees come straight from the packs (see objectStore).
		out.packs = newObjectStore(r.Storer, st.Filesystem())
		out.objects = out.packs
	}
	return out, nil
}

// Close releases the pack files the Repo keeps open (at most 16). A Repo
// left open holds them until the process exits; Close is safe to call more
// than once.
func (r *Repo) Close() error {
	if r.storage == nil {
		return nil
	}
	err := r.storage.Close()
	if r.packs != nil {
		if perr := r.packs.Close(); err == nil {
			err = perr
		}
	}
	r.storage = nil
	if err != nil {
		return fmt.Errorf("close git repository %s: %w", r.root, err)
	}
	return nil
}

// Root returns the top folder of the work tree: absolute, symlinks resolved.
func (r *Repo) Root() string { return r.root }

// Shallow reports whether the repository is a shallow clone (it has
// shallow boundaries beyond which history is missing).
func (r *Repo) Shallow() bool { return len(r.shallow) > 0 }

// Head returns the commit HEAD points at. An unborn HEAD (a repository with
// no commits yet) gives an error wrapping ErrNoCommit.
func (r *Repo) Head() (Commit, error) {
	c, err := r.headObject()
	if err != nil {
		return Commit{}, err
	}
	return toCommit(c), nil
}

func (r *Repo) headObject() (*object.Commit, error) {
	ref, err := r.repo.Head()
	if err != nil {
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			return nil, fmt.Errorf("HEAD has no commits: %w", ErrNoCommit)
		}
		return nil, fmt.Errorf("resolve HEAD: %w", err)
	}
	c, err := object.GetCommit(r.objects, ref.Hash())
	if err != nil {
		return nil, fmt.Errorf("read HEAD commit %s: %w", ref.Hash(), err)
	}
	return c, nil
}

// InterruptionCommit returns the commit a workflow was interrupted at: the
// recorded one when recorded is not empty (a full or abbreviated hex hash of
// at least 4 digits), else the newest commit on HEAD's first-parent chain
// whose committer time is at or before at. When there is no such commit —
// an unknown or ambiguous hash, a time before the first commit, or a walk
// that reaches a shallow boundary or a missing object first — the error
// wraps ErrNoCommit; when the history is cut short (the shallow boundary or a
// missing ancestor comes first, or a recorded commit absent from a shallow
// clone) it wraps ErrHistoryMissing as well.
func (r *Repo) InterruptionCommit(recorded string, at time.Time) (Commit, error) {
	if recorded = strings.ToLower(strings.TrimSpace(recorded)); recorded != "" {
		c, err := r.resolve(recorded)
		if err != nil {
			return Commit{}, err
		}
		return toCommit(c), nil
	}
	if at.IsZero() {
		return Commit{}, fmt.Errorf("no recorded commit and no interruption time: %w", ErrNoCommit)
	}
	c, err := r.headObject()
	if err != nil {
		return Commit{}, err
	}
	for c.Committer.When.After(at) {
		p, ok, err := r.firstParent(c)
		if err != nil {
			return Commit{}, err
		}
		if !ok {
			if r.shallow[c.Hash] || len(c.ParentHashes) > 0 {
				return Commit{}, fmt.Errorf("no commit at or before %s (history walked back to %s, the shallow boundary): %w: %w",
					at.UTC().Format(time.RFC3339), c.Hash.String()[:7], ErrHistoryMissing, ErrNoCommit)
			}
			return Commit{}, fmt.Errorf("no commit at or before %s (history walked back to %s, the first commit): %w",
				at.UTC().Format(time.RFC3339), c.Hash.String()[:7], ErrNoCommit)
		}
		c = p
	}
	return toCommit(c), nil
}

// firstParent returns c's first parent; ok is false at the start of the
// history, at a shallow boundary, or when the parent object is missing.
func (r *Repo) firstParent(c *object.Commit) (p *object.Commit, ok bool, err error) {
	if len(c.ParentHashes) == 0 || r.shallow[c.Hash] {
		return nil, false, nil
	}
	p, err = object.GetCommit(r.objects, c.ParentHashes[0])
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("read parent of %s: %w", c.Hash.String()[:7], err)
	}
	return p, true, nil
}

// resolve finds the commit a full or abbreviated lower-case hex hash names.
func (r *Repo) resolve(s string) (*object.Commit, error) {
	if len(s) < minAbbrev || len(s) > 2*len(plumbing.ZeroHash) || !isHex(s) {
		return nil, fmt.Errorf("recorded commit %q is not a hex hash of 4 to 40 digits: %w", s, ErrNoCommit)
	}
	var candidates []plumbing.Hash
	if len(s) == 2*len(plumbing.ZeroHash) {
		candidates = []plumbing.Hash{plumbing.NewHash(s)}
	} else {
		var err error
		if candidates, err = r.hashesWithPrefix(s); err != nil {
			return nil, fmt.Errorf("resolve recorded commit %s: %w", s, err)
		}
	}
	var found []*object.Commit
	for _, h := range candidates {
		c, err := object.GetCommit(r.objects, h)
		switch {
		case err == nil:
			found = append(found, c)
		case errors.Is(err, plumbing.ErrObjectNotFound), errors.Is(err, object.ErrUnsupportedObject):
			// not there, or not a commit
		default:
			return nil, fmt.Errorf("read recorded commit %s: %w", h, err)
		}
	}
	switch len(found) {
	case 0:
		if len(r.shallow) > 0 {
			return nil, fmt.Errorf("recorded commit %s is not in this shallow clone: %w: %w", s, ErrHistoryMissing, ErrNoCommit)
		}
		return nil, fmt.Errorf("recorded commit %s is not in the repository: %w", s, ErrNoCommit)
	case 1:
		return found[0], nil
	default:
		return nil, fmt.Errorf("recorded commit %s is ambiguous (%d commits): %w", s, len(found), ErrNoCommit)
	}
}

// hashesWithPrefix lists the objects whose hex hash starts with prefix
// without scanning the object database: it reads one loose-object folder and
// binary-searches each pack index. Storages other than the file system (never
// met through Open) fall back to go-git's revision resolver.
func (r *Repo) hashesWithPrefix(prefix string) ([]plumbing.Hash, error) {
	st, ok := r.repo.Storer.(interface{ Filesystem() billy.Filesystem })
	if !ok {
		h, err := r.repo.ResolveRevision(plumbing.Revision(prefix))
		if err != nil {
			return nil, nil // an unknown prefix: no candidates
		}
		return []plumbing.Hash{*h}, nil
	}
	fs := st.Filesystem()
	seen := make(map[plumbing.Hash]bool)
	var out []plumbing.Hash
	add := func(h plumbing.Hash) {
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}

	loose, err := fs.ReadDir(fs.Join("objects", prefix[:2]))
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("list loose objects: %w", err)
	}
	for _, fi := range loose {
		name := prefix[:2] + fi.Name()
		if len(name) == 40 && strings.HasPrefix(name, prefix) && isHex(name) {
			add(plumbing.NewHash(name))
		}
	}

	packs, err := fs.ReadDir(fs.Join("objects", "pack"))
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("list packs: %w", err)
	}
	for _, fi := range packs {
		if !strings.HasSuffix(fi.Name(), ".idx") {
			continue
		}
		hs, err := searchIdx(fs, fs.Join("objects", "pack", fi.Name()), prefix)
		if err != nil {
			return nil, err
		}
		for _, h := range hs {
			add(h)
		}
	}
	return out, nil
}

// Compare tells, for each repository-relative slash path (already validated
// as safe), how the file on disk relates to base and to HEAD. The path is
// looked up in base's tree and the file on disk is hashed as a git blob; only
// when the two differ is HEAD's tree consulted, to tell a committed change
// from an uncommitted edit (HeadHash stays empty for unchanged paths). The
// cost follows len(paths): subtrees on the paths are loaded once each, and
// nothing else of the repository is read. A folder counts as absent, both in
// a tree and on disk; content filters (end-of-line conversion, LFS) are not
// applied. The result is in the order of paths.
func (r *Repo) Compare(base Commit, paths []string) ([]PathState, error) {
	out := make([]PathState, 0, len(paths))
	if len(paths) == 0 {
		return out, nil
	}
	baseTree, err := r.treeOf(base.Hash)
	if err != nil {
		return nil, err
	}
	var headTree *pathTree // loaded on first need
	buf := make([]byte, 32<<10)
	for _, p := range paths {
		st := PathState{Path: p}
		be, err := baseTree.blob(p)
		if err != nil {
			return nil, err
		}
		st.BaseHash = hashString(be)
		dh, onDisk, err := r.diskHash(p, buf)
		if err != nil {
			return nil, err
		}
		st.DiskHash, st.OnDisk = hashString(dh), onDisk
		st.Changed = st.BaseHash != st.DiskHash
		if st.Changed {
			if headTree == nil {
				if headTree, err = r.headTree(base.Hash, baseTree); err != nil {
					return nil, err
				}
			}
			he, err := headTree.blob(p)
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

// headTree returns the path lookup for HEAD, sharing base's when HEAD is base.
func (r *Repo) headTree(base string, baseTree *pathTree) (*pathTree, error) {
	head, err := r.headObject()
	if err != nil {
		return nil, err
	}
	if head.Hash.String() == base {
		return baseTree, nil
	}
	return newPathTree(r.objects, head.TreeHash), nil
}

// treeOf returns the path lookup for the tree of the commit with the full hex
// hash h.
func (r *Repo) treeOf(h string) (*pathTree, error) {
	c, err := r.commitByHash(h)
	if err != nil {
		return nil, err
	}
	return newPathTree(r.objects, c.TreeHash), nil
}

func (r *Repo) commitByHash(h string) (*object.Commit, error) {
	if len(h) != 2*len(plumbing.ZeroHash) || !isHex(h) {
		return nil, fmt.Errorf("commit %q is not a full hash", h)
	}
	c, err := object.GetCommit(r.objects, plumbing.NewHash(h))
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	return c, nil
}

// diskHash returns the git blob hash of the file at the slash path p in the
// work tree; onDisk is false when there is no file (or a folder) there. A
// symbolic link hashes as its target, as git stores it.
func (r *Repo) diskHash(p string, buf []byte) (h plumbing.Hash, onDisk bool, err error) {
	abs := filepath.Join(r.root, filepath.FromSlash(p))
	fi, err := os.Lstat(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return plumbing.ZeroHash, false, nil
		}
		return plumbing.ZeroHash, false, fmt.Errorf("stat %s: %w", p, err)
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(abs)
		if err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("read link %s: %w", p, err)
		}
		return plumbing.ComputeHash(plumbing.BlobObject, []byte(filepath.ToSlash(target))), true, nil
	case fi.Mode().IsRegular():
		h, err := hashFile(abs, buf)
		if err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("hash %s: %w", p, err)
		}
		return h, true, nil
	default:
		return plumbing.ZeroHash, false, nil
	}
}

// hashFile streams the file at abs through a git blob hasher, using buf.
func hashFile(abs string, buf []byte) (_ plumbing.Hash, err error) {
	f, err := os.Open(abs)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	h := plumbing.NewHasher(plumbing.BlobObject, fi.Size())
	// Hide the file's WriterTo, which would bring its own buffer.
	n, err := io.CopyBuffer(h, struct{ io.Reader }{f}, buf)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if n != fi.Size() {
		return plumbing.ZeroHash, fmt.Errorf("file changed while hashing (%d of %d bytes)", n, fi.Size())
	}
	return h.Sum(), nil
}

// CommitsTouching walks HEAD's first-parent chain back to base (excluded)
// and returns, for each of paths that some commit changed (its content
// differs from the commit's first parent, or it was added or deleted), those
// commits, newest first, at most limit per path (limit <= 0: no limit).
// Paths no commit changed are absent from the map. Only the entries on the
// given paths are compared, and a folder whose tree is the same in both
// commits is not descended into. When base is not on the chain the walk runs
// to the first commit or the shallow boundary (a root or boundary commit
// counts as adding what it holds) — or stops early once every path has limit
// commits.
func (r *Repo) CommitsTouching(base Commit, paths []string, limit int) (map[string][]Commit, error) {
	out := make(map[string][]Commit)
	if len(paths) == 0 {
		return out, nil
	}
	c, err := r.headLinks()
	if err != nil {
		return nil, err
	}
	stop, hasStop := fullHash(base.Hash)
	trie := newPathTrie(paths)
	cache := newTreeCache(r.objects)
	full := 0
	for !hasStop || c.hash != stop {
		p, ok, err := r.parentLinks(c)
		if err != nil {
			return nil, err
		}
		parentTree := plumbing.ZeroHash
		if ok {
			parentTree = p.tree
		}
		changed, err := cache.changed(c.tree, parentTree, trie)
		if err != nil {
			return nil, fmt.Errorf("compare %s with its parent: %w", c.hash.String()[:7], err)
		}
		var info Commit
		for _, path := range changed {
			if limit > 0 && len(out[path]) >= limit {
				continue
			}
			if info.IsZero() {
				if info, err = r.commitInfo(c.hash); err != nil {
					return nil, err
				}
			}
			out[path] = append(out[path], info)
			if limit > 0 && len(out[path]) == limit {
				full++
			}
		}
		if !ok || (limit > 0 && full == len(trie.paths)) {
			break
		}
		cache.next()
		c = p
	}
	return out, nil
}

// LastChange returns, for each path, the newest commit on HEAD's first-parent
// chain that changed it (added, edited or deleted it), looking at most
// maxCommits commits back (maxCommits <= 0: no bound). Paths not changed
// within the bound — or when the repository has no commits — are absent. It
// gives the "last update" time of a file without reading its history in full.
func (r *Repo) LastChange(paths []string, maxCommits int) map[string]Commit {
	out := make(map[string]Commit)
	if len(paths) == 0 {
		return out
	}
	c, err := r.headLinks()
	if err != nil {
		return out
	}
	trie := newPathTrie(paths)
	cache := newTreeCache(r.objects)
	for n := 0; maxCommits <= 0 || n < maxCommits; n++ {
		p, ok, err := r.parentLinks(c)
		if err != nil {
			return out
		}
		parentTree := plumbing.ZeroHash
		if ok {
			parentTree = p.tree
		}
		changed, err := cache.changed(c.tree, parentTree, trie)
		if err != nil {
			return out
		}
		if len(changed) > 0 {
			info, err := r.commitInfo(c.hash)
			if err != nil {
				return out
			}
			for _, path := range changed {
				out[path] = info
			}
			var rest []string
			for _, path := range trie.paths {
				if _, done := out[path]; !done {
					rest = append(rest, path)
				}
			}
			if len(rest) == 0 {
				break
			}
			trie = newPathTrie(rest)
		}
		if !ok {
			break
		}
		cache.next()
		c = p
	}
	return out
}

// ReadAt returns the content of the file at the slash path p in commit c.
// A path absent from c gives an error wrapping os.ErrNotExist; a folder or a
// submodule, or a blob over MaxReadSize, gives an error.
func (r *Repo) ReadAt(c Commit, p string) ([]byte, error) {
	t, err := r.treeOf(c.Hash)
	if err != nil {
		return nil, err
	}
	e, err := t.entry(p)
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", p, c.Short, err)
	}
	if e == nil {
		return nil, fmt.Errorf("read %s at %s: %w", p, c.Short, os.ErrNotExist)
	}
	if !isBlob(e.Mode) {
		return nil, fmt.Errorf("read %s at %s: not a file (mode %s)", p, c.Short, e.Mode)
	}
	blob, err := r.repo.BlobObject(e.Hash)
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", p, c.Short, err)
	}
	if blob.Size > MaxReadSize {
		return nil, fmt.Errorf("read %s at %s: %d bytes, over the %d-byte limit", p, c.Short, blob.Size, MaxReadSize)
	}
	rd, err := blob.Reader()
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", p, c.Short, err)
	}
	data, err := io.ReadAll(io.LimitReader(rd, MaxReadSize+1))
	if cerr := rd.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", p, c.Short, err)
	}
	return data, nil
}

// toCommit converts a go-git commit: When is the committer time in UTC and
// Subject the first line of the message.
func toCommit(c *object.Commit) Commit {
	h := c.Hash.String()
	subject, _, _ := strings.Cut(c.Message, "\n")
	return Commit{
		Hash:    h,
		Short:   h[:7],
		Author:  c.Author.Name,
		Email:   c.Author.Email,
		When:    c.Committer.When.UTC(),
		Subject: strings.TrimSpace(subject),
	}
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func isBlob(m filemode.FileMode) bool {
	return m == filemode.Regular || m == filemode.Executable || m == filemode.Symlink || m == filemode.Deprecated
}

func hashString(h plumbing.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}

// links is what the history walk reads of a commit: its tree and first
// parent, parsed from the raw object without decoding the rest.
type links struct {
	hash, tree plumbing.Hash
	parent     plumbing.Hash // zero for a root commit
}

// headLinks returns HEAD's links.
func (r *Repo) headLinks() (links, error) {
	ref, err := r.repo.Head()
	if err != nil {
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			return links{}, fmt.Errorf("HEAD has no commits: %w", ErrNoCommit)
		}
		return links{}, fmt.Errorf("resolve HEAD: %w", err)
	}
	l, err := r.readLinks(ref.Hash())
	if err != nil {
		return links{}, fmt.Errorf("read HEAD commit %s: %w", ref.Hash(), err)
	}
	return l, nil
}

// parentLinks returns c's first parent; ok is false at the start of the
// history, at a shallow boundary, or when the parent object is missing (as
// firstParent).
func (r *Repo) parentLinks(c links) (p links, ok bool, err error) {
	if c.parent.IsZero() || r.shallow[c.hash] {
		return links{}, false, nil
	}
	p, err = r.readLinks(c.parent)
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return links{}, false, nil
		}
		return links{}, false, fmt.Errorf("read parent of %s: %w", c.hash.String()[:7], err)
	}
	return p, true, nil
}

// readLinks reads the header lines of commit h.
func (r *Repo) readLinks(h plumbing.Hash) (links, error) {
	obj, err := r.objects.EncodedObject(plumbing.CommitObject, h)
	if err != nil {
		return links{}, err
	}
	raw, err := objectBytes(obj)
	if err != nil {
		return links{}, err
	}
	l := links{hash: h}
	seenTree := false
	for len(raw) > 0 {
		line := raw
		if nl := bytes.IndexByte(raw, '\n'); nl >= 0 {
			line, raw = raw[:nl], raw[nl+1:]
		} else {
			raw = nil
		}
		if len(line) == 0 {
			break // the end of the header
		}
		switch {
		case !seenTree && bytes.HasPrefix(line, []byte("tree ")):
			if l.tree, err = parseHexHash(line[5:]); err != nil {
				return links{}, fmt.Errorf("commit %s: tree: %w", h.String()[:7], err)
			}
			seenTree = true
		case l.parent.IsZero() && bytes.HasPrefix(line, []byte("parent ")):
			if l.parent, err = parseHexHash(line[7:]); err != nil {
				return links{}, fmt.Errorf("commit %s: parent: %w", h.String()[:7], err)
			}
		}
	}
	if !seenTree {
		return links{}, fmt.Errorf("commit %s has no tree", h.String()[:7])
	}
	return l, nil
}

// commitInfo decodes commit h in full.
func (r *Repo) commitInfo(h plumbing.Hash) (Commit, error) {
	c, err := object.GetCommit(r.objects, h)
	if err != nil {
		return Commit{}, fmt.Errorf("read commit %s: %w", h.String()[:7], err)
	}
	return toCommit(c), nil
}

func parseHexHash(b []byte) (plumbing.Hash, error) {
	var h plumbing.Hash
	if len(b) != 2*len(h) {
		return h, fmt.Errorf("%q is not a full hash", b)
	}
	if _, err := hex.Decode(h[:], b); err != nil {
		return h, fmt.Errorf("%q is not a full hash: %w", b, err)
	}
	return h, nil
}

// fullHash parses a full lower-case hex hash; ok is false for anything else.
func fullHash(s string) (plumbing.Hash, bool) {
	if len(s) != 2*len(plumbing.ZeroHash) || !isHex(s) {
		return plumbing.ZeroHash, false
	}
	return plumbing.NewHash(s), true
}
