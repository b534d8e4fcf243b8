package gitrepo

import (
	"errors"
	"fmt"
	"github.com/orchestrate-dev/orchestrate/internal/gitverify"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"

	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitchanged"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
	"github.com/orchestrate-dev/orchestrate/internal/safedir"
)

// MaxReadSize is the largest blob ReadAt returns (8 MiB).
const MaxReadSize = 8 << 20

// maxOpenPacks is how many pack files a Repo keeps open.
const maxOpenPacks = 16

// minAbbrev is the shortest abbreviated hash InterruptionCommit accepts.
const minAbbrev = 4

// Repo is an opened git repository with a work tree. It reads objects on
// demand (through go-git's object cache) and keeps no other state between
// calls except the shallow boundary read at Open, a bounded cache of the
// trees it has read (12 MiB; objects never change), bounded caches of the
// commits read (decoded, their links, their descriptions), and what those
// walks found along HEAD's first-parent chain (see history; dropped when HEAD
// moves). The walks take commits' trees and parents from the repository's
// commit-graph when it has one (see commitGraph), and, with UseCache, from
// the history cache in the user's cache folder (see histcache.go), which
// also describes the trees that differ between a commit and its parent;
// there too are the answers of the walks (walkmemo.go), what look-ups by
// path found in trees and the small blobs ReadAt read (internal/gitcache's
// paths.go and objects.go). The walks of a Repo all start from the HEAD its first walk
// found (see walkHead). A Repo is not safe for concurrent use, except
// CompareWith with CompareOptions.Serial and IndexLater's read (see there);
// Close releases its open pack files.
type Repo struct {
	repo    *git.Repository
	objects storer.EncodedObjectStorer
	packs   *gitobj.Store       // nil without a file-system storage
	storage *filesystem.Storage // nil once closed
	root    string
	shallow map[plumbing.Hash]bool
	trees   *gitobj.TreeIndexCache // the trees read, indexed (bounded)
	// graph is the commit-graph the history walks read commits' links
	// from, when the repository has one (see commitGraph).
	graph      *gitobj.CommitGraph
	graphTried bool

	linkCache map[plumbing.Hash]links  // commits' tree and first parent (at most maxCachedLinks)
	infoCache map[plumbing.Hash]Commit // commits decoded by commitInfo (at most maxCachedInfos)
	commits   sync.Map                 // hash → *object.Commit readCommit decoded (at most maxCachedInfos, nCommits)
	nCommits  atomic.Int64             // the commits kept in commits
	pairs     pairCache                // tree pairs the walks compared (at most maxCachedPairs)
	walks     int                      // the history walks run so far
	// plainTrees remembers which trees ChangedPaths may compare without
	// maps (see gitchanged.Plain).
	plainTrees gitchanged.Plain
	// lastIndex is the index read IndexLater's read started last (see
	// headEntries: HistoryFor takes HEAD's entries from it).
	lastIndex atomic.Pointer[indexRead]
	// disk, when not nil, keeps what walks derive across runs (UseCache).
	disk *diskcache.Cache
	// histc is the history tables of disk, read at the first walk (see
	// histcache.go); histTried is set once they were looked for.
	histc     *histCache
	histTried bool
	// the tables of disk, each nil when off: objects (internal/gitcache's
	// objects.go), paths (its paths.go), walks (see walkmemo.go), changed
	// paths (gitcache's changed.go), work-tree hashes (see datingmemo.go)
	objs     *gitcache.Objects
	memo     *gitcache.Paths
	wmemo    *gitcache.Walks
	cmemo    *gitcache.Changed
	wtHashes *gitcache.WorktreeHashes
	// verify checks the objects read while the cache is on (see verify.go).
	verify gitverify.Verifier
	// head is the HEAD of history walks once headKnown (see walkHead).
	head      links
	headKnown bool
	// ahead reads the first-parent chain ahead of the walks (see
	// linkahead.go); nil when none runs. noAhead turns it off (tests).
	ahead   *gitobj.ChainReader
	noAhead bool
	want    *gitobj.Trie // the paths the running walk follows (nil between walks): the reader reads their trees too
}

// UseCache lets r keep what its history walks derive (commits' links, the
// differences of their trees and their parents') in c, read back by later
// runs of the same repository; nil turns it off. Call it before the first
// walk. SaveCache writes what this run added (see histcache.go).
//
// What look-ups by path (Compare, ReadAt) find in trees, the small blobs
// ReadAt reads, and the answers of the walks are kept there too (see
// internal/gitcache's paths.go and objects.go, and walkmemo.go), and so are the answers of
// ChangedPaths (gitcache's changed.go).
func (r *Repo) UseCache(c *diskcache.Cache) {
	r.disk = c
	r.objs, r.memo, r.wmemo, r.cmemo = nil, nil, nil, nil
	r.wtHashes = gitcache.NewWorktreeHashes(c, r.root)
	if c.Enabled() && r.packs != nil && r.packs.FS != nil {
		r.objs = gitcache.NewObjects(c, r.packs.FS.Root())
		r.memo = gitcache.NewPaths(c, r.packs.FS.Root())
		r.wmemo = gitcache.NewWalks(c, r.packs.FS.Root())
		r.cmemo = gitcache.NewChanged(c, r.packs.FS.Root())
	}
	r.verify.On.Store(c.Enabled())
	r.trees.Verify = &r.verify
}

// Open opens the git repository that contains dir — dir itself, or any of
// its parents — including a linked worktree whose .git is a file pointing
// into the main repository's .git/worktrees. A folder outside any repository
// (or a bare repository, which has no work tree) gives an error wrapping
// ErrNoGit. A repository another user owns, and git's safe.directory does
// not allow, is refused with a *DubiousOwnershipError (see safedir.CheckOwnership); a
// file of .git that is not a regular file, or too large, with an error
// wrapping ErrNotRegular or ErrGitFileTooLarge (see gitobj.FindDotGit).
func Open(dir string) (*Repo, error) {
	d, err := gitobj.FindDotGit(dir)
	if err != nil {
		if errors.Is(err, gitobj.ErrNoGit) {
			return nil, fmt.Errorf("open git repository at %s: %w", dir, gitobj.ErrNoGit)
		}
		return nil, fmt.Errorf("open git repository at %s: %w", dir, err)
	}
	if err := safedir.CheckOwnership(safedir.Repo{Root: d.Root, GitFile: d.GitFile(), GitDir: d.GitDir}); err != nil {
		return nil, err
	}
	if err := gitobj.CheckHead(d); err != nil {
		return nil, fmt.Errorf("open git repository at %s: %w", dir, err)
	}
	// go-git reads .git through safeFS (no blocking open, regular files
	// only, bounded reads: see gitobj.SafeFS), with pack files kept open between
	// reads (it otherwise reopens the pack for every object).
	var dot billy.Filesystem = osfs.New(d.GitDir)
	if d.Common != "" {
		dot = dotgit.NewRepositoryFilesystem(dot, osfs.New(d.Common))
	}
	st := filesystem.NewStorageWithOptions(gitobj.SafeFS{Filesystem: dot}, cache.NewObjectLRUDefault(),
		filesystem.Options{MaxOpenDescriptors: maxOpenPacks})
	wt := osfs.New(d.Root)
	// extensionTolerant: go-git refuses a few read-harmless extensions
	// (sparse checkout, older partial clones; see shallow.go)
	r, err := git.Open(extensionTolerant{st}, wt)
	if err != nil {
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return nil, fmt.Errorf("open git repository at %s: %w", dir, gitobj.ErrNoGit)
		}
		return nil, fmt.Errorf("open git repository at %s: %w", dir, err)
	}
	root, err := filepath.Abs(d.Root)
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
	// Commits and trees come straight from the packs (see gitobj.Store).
	out.packs = gitobj.NewStore(r.Storer, st.Filesystem())
	out.packs.ObjDir = filepath.Join(d.GitDir, "objects")
	if d.Common != "" {
		out.packs.ObjDir = filepath.Join(d.Common, "objects")
	}
	out.objects = out.packs
	out.trees = gitobj.NewTreeIndexCache(out.objects, gitobj.TreeIndexBudget)
	return out, nil
}

// Close releases the pack files the Repo keeps open (at most 16). A Repo
// left open holds them until the process exits; Close is safe to call more
// than once.
func (r *Repo) Close() error {
	if r.storage == nil {
		return nil
	}
	r.ahead.Halt() // it reads the packs closed below
	r.ahead = nil
	err := r.storage.Close()
	if gerr := r.graph.Close(); err == nil {
		err = gerr
	}
	r.graph = nil
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
	c, err := r.readCommit(ref.Hash())
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

// readCommit decodes commit h, its message cut after its first line (see
// Store.readCommit).
func (r *Repo) readCommit(h plumbing.Hash) (c *object.Commit, err error) {
	if c, ok := r.commits.Load(h); ok {
		return c.(*object.Commit), nil
	}
	if r.packs == nil {
		c, err = object.GetCommit(r.objects, h)
	} else {
		c, err = r.packs.ReadCommit(h)
	}
	if err == nil && r.nCommits.Add(1) <= maxCachedInfos {
		r.commits.Store(h, c) // a commit never changes: read once (InterruptionCommit's walks from HEAD)
	}
	return c, err
}

// firstParent returns c's first parent; ok is false at the start of the
// history, at a shallow boundary, or when the parent object is missing.
func (r *Repo) firstParent(c *object.Commit) (p *object.Commit, ok bool, err error) {
	if len(c.ParentHashes) == 0 || r.shallow[c.Hash] {
		return nil, false, nil
	}
	p, err = r.readCommit(c.ParentHashes[0])
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
		c, err := r.readCommit(h)
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
		hs, err := gitobj.SearchIdx(fs, fs.Join("objects", "pack", fi.Name()), prefix)
		if err != nil {
			return nil, err
		}
		for _, h := range hs {
			add(h)
		}
	}
	return out, nil
}
