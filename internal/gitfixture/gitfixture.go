// Package gitfixture builds real git repositories with go-git alone, so that
// tests, the demo generator and the benchmarks need no git binary.
//
// It is deliberately small: Init a repository, WriteFile and Remove files in
// its work tree, and Commit them with a fixed author and time (author and
// committer are the same person at the same instant), which makes every
// commit hash deterministic. Commit builds the index and the trees with
// go-git's plumbing in one pass, so its cost is linear in the number of files;
// large commits are written as one packfile rather than as loose objects.
package gitfixture

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/memory"
)

// DefaultBranch is the branch a repository made by Init starts on.
const DefaultBranch = "main"

// packThreshold is the number of new objects from which Commit writes one
// packfile instead of loose objects (a loose object costs a file each).
const packThreshold = 256

// Init creates dir (and its parents) when needed and initialises an empty,
// non-bare repository in it whose HEAD points at refs/heads/main.
func Init(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("gitfixture: create %s: %w", dir, err)
	}
	_, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName(DefaultBranch)},
	})
	if err != nil {
		return fmt.Errorf("gitfixture: init %s: %w", dir, err)
	}
	return nil
}

// WriteFile writes content to the slash path rel inside dir, creating the
// folders on the way (like mkdir -p).
func WriteFile(dir, rel, content string) error {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("gitfixture: create folder for %s: %w", rel, err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		return fmt.Errorf("gitfixture: write %s: %w", rel, err)
	}
	return nil
}

// Remove deletes the file (or folder, recursively) at the slash path rel
// inside dir. The next Commit records the deletion.
func Remove(dir, rel string) error {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if _, err := os.Lstat(p); err != nil {
		return fmt.Errorf("gitfixture: remove %s: %w", rel, err)
	}
	if err := os.RemoveAll(p); err != nil {
		return fmt.Errorf("gitfixture: remove %s: %w", rel, err)
	}
	return nil
}

// Commit stages the given slash paths of the work tree in dir — a file, a
// folder (everything under it), or a path that no longer exists (a deletion)
// — or, when no path is given, everything that changed in the work tree,
// deletions included. It then commits the index on top of HEAD with author
// and committer both set to author <email> at when, moves the current branch
// to the new commit, and returns its hash.
func Commit(dir, msg, author, email string, when time.Time, paths ...string) (string, error) {
	return commit(dir, msg, author, email, when, nil, paths)
}

// Merge is Commit with a second parent: it records a merge commit whose
// first parent is HEAD and whose second parent is the commit other (a full
// hash). It does not merge any content — the tree is whatever is staged, as
// with Commit — which is all a history-walking test needs.
func Merge(dir, msg, author, email string, when time.Time, other string, paths ...string) (string, error) {
	h, err := fullHash(other)
	if err != nil {
		return "", fmt.Errorf("gitfixture: merge: %w", err)
	}
	return commit(dir, msg, author, email, when, []plumbing.Hash{h}, paths)
}

// ResetBranch points the current branch (or a detached HEAD) at the commit
// hash, leaving the index and the work tree alone, like `git reset --soft`.
func ResetBranch(dir, hash string) error {
	h, err := fullHash(hash)
	if err != nil {
		return fmt.Errorf("gitfixture: reset: %w", err)
	}
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return fmt.Errorf("gitfixture: open %s: %w", dir, err)
	}
	if _, err := repo.CommitObject(h); err != nil {
		return fmt.Errorf("gitfixture: reset to %s: %w", hash, err)
	}
	if err := moveHead(repo.Storer, h); err != nil {
		return fmt.Errorf("gitfixture: reset to %s: %w", hash, err)
	}
	return nil
}

func fullHash(s string) (plumbing.Hash, error) {
	if len(s) != 40 || !plumbing.IsHash(s) {
		return plumbing.ZeroHash, fmt.Errorf("%q is not a full commit hash", s)
	}
	return plumbing.NewHash(s), nil
}

func commit(dir, msg, author, email string, when time.Time, extra []plumbing.Hash, paths []string) (string, error) {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return "", fmt.Errorf("gitfixture: open %s: %w", dir, err)
	}
	idx, err := repo.Storer.Index()
	if err != nil {
		return "", fmt.Errorf("gitfixture: read index of %s: %w", dir, err)
	}
	st := &stager{
		root:    dir,
		dst:     repo.Storer,
		entries: make(map[string]*index.Entry, len(idx.Entries)),
		pending: memory.NewStorage(),
	}
	for _, e := range idx.Entries {
		if e.Stage == 0 { // conflict stages (1–3) are dropped
			st.entries[e.Name] = e
		}
	}
	if len(paths) == 0 {
		if err := st.stageTree(""); err != nil {
			return "", err
		}
	}
	for _, p := range paths {
		if err := st.stageTree(path.Clean(filepath.ToSlash(p))); err != nil {
			return "", err
		}
	}

	treeHash, err := st.writeTrees()
	if err != nil {
		return "", err
	}
	var parents []plumbing.Hash
	if head, err := repo.Head(); err == nil {
		parents = append(parents, head.Hash())
	} else if !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", fmt.Errorf("gitfixture: resolve HEAD: %w", err)
	}
	parents = append(parents, extra...)
	sig := object.Signature{Name: author, Email: email, When: when}
	c := &object.Commit{
		Author:       sig,
		Committer:    sig,
		Message:      msg,
		TreeHash:     treeHash,
		ParentHashes: parents,
	}
	commitHash, err := st.put(c)
	if err != nil {
		return "", fmt.Errorf("gitfixture: encode commit: %w", err)
	}
	if err := st.flush(); err != nil {
		return "", err
	}
	if err := moveHead(repo.Storer, commitHash); err != nil {
		return "", fmt.Errorf("gitfixture: update HEAD: %w", err)
	}

	idx.Entries = idx.Entries[:0]
	for _, e := range st.entries {
		idx.Entries = append(idx.Entries, e)
	}
	sort.Slice(idx.Entries, func(i, j int) bool { return idx.Entries[i].Name < idx.Entries[j].Name })
	idx.Cache = nil
	idx.ResolveUndo = nil
	idx.EndOfIndexEntry = nil
	if err := repo.Storer.SetIndex(idx); err != nil {
		return "", fmt.Errorf("gitfixture: write index: %w", err)
	}
	return commitHash.String(), nil
}

// moveHead points the branch HEAD names (or HEAD itself when detached) at h.
func moveHead(s storer.ReferenceStorer, h plumbing.Hash) error {
	head, err := s.Reference(plumbing.HEAD)
	if err != nil {
		return fmt.Errorf("read HEAD: %w", err)
	}
	name := plumbing.HEAD
	if head.Type() == plumbing.SymbolicReference {
		name = head.Target()
	}
	return s.SetReference(plumbing.NewHashReference(name, h))
}

// Blob returns a new object of st that holds content as a git blob; it is
// not stored yet.
func Blob(st storer.EncodedObjectStorer, content []byte) (plumbing.EncodedObject, error) {
	obj := st.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(content)))
	w, err := obj.Writer()
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(content); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return obj, nil
}

// WritePack writes the objects of pending named by order, in that order, to
// pw as one packfile.
func WritePack(pw storer.PackfileWriter, pending storer.EncodedObjectStorer, order []plumbing.Hash) error {
	w, err := pw.PackfileWriter()
	if err != nil {
		return fmt.Errorf("gitfixture: open packfile: %w", err)
	}
	if _, err := packfile.NewEncoder(w, pending, false).Encode(order, 0); err != nil {
		_ = w.Close()
		return fmt.Errorf("gitfixture: write packfile: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("gitfixture: close packfile: %w", err)
	}
	return nil
}

// stager updates an in-memory index from the work tree and collects the new
// objects, which flush writes to the repository in one go.
type stager struct {
	root    string
	entries map[string]*index.Entry
	dst     storer.EncodedObjectStorer // the repository; objects it has are not written again
	pending *memory.Storage
	order   []plumbing.Hash // new objects, in creation order
}

// encoder is what object.Commit and object.Tree have in common.
type encoder interface {
	Encode(plumbing.EncodedObject) error
}

func (s *stager) put(v encoder) (plumbing.Hash, error) {
	obj := s.pending.NewEncodedObject()
	if err := v.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.store(obj)
}

func (s *stager) store(obj plumbing.EncodedObject) (plumbing.Hash, error) {
	h := obj.Hash()
	if s.pending.HasEncodedObject(h) == nil {
		return h, nil
	}
	// Trees are rebuilt for every commit, so most already exist; a blob only
	// gets here when its content changed, so asking would mostly cost a miss
	// (and writing a duplicate is harmless).
	if obj.Type() != plumbing.BlobObject && s.dst.HasEncodedObject(h) == nil {
		return h, nil
	}
	if _, err := s.pending.SetEncodedObject(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	s.order = append(s.order, h)
	return h, nil
}

// flush writes the pending objects to dst: one packfile when there are many,
// loose objects otherwise.
func (s *stager) flush() error {
	dst := s.dst
	if pw, ok := dst.(storer.PackfileWriter); ok && len(s.order) >= packThreshold {
		return WritePack(pw, s.pending, s.order)
	}
	for _, h := range s.order {
		obj, err := s.pending.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return fmt.Errorf("gitfixture: pending object %s: %w", h, err)
		}
		if _, err := dst.SetEncodedObject(obj); err != nil {
			return fmt.Errorf("gitfixture: write object %s: %w", h, err)
		}
	}
	return nil
}

// stageTree stages the slash path rel ("" for the whole work tree): files
// found on disk are added or updated, index entries at or under rel that no
// longer exist on disk are removed.
func (s *stager) stageTree(rel string) error {
	if rel == "." {
		rel = ""
	}
	if rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return fmt.Errorf("gitfixture: path %q is outside the work tree", rel)
	}
	seen := make(map[string]bool)
	start := filepath.Join(s.root, filepath.FromSlash(rel))
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == start {
				return nil // a deletion
			}
			return err
		}
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		r, err := filepath.Rel(s.root, p)
		if err != nil {
			return err
		}
		r = filepath.ToSlash(r)
		seen[r] = true
		return s.stageFile(r, p, d)
	})
	if err != nil {
		return fmt.Errorf("gitfixture: stage %q: %w", rel, err)
	}
	for name := range s.entries {
		if seen[name] {
			continue
		}
		if rel == "" || name == rel || strings.HasPrefix(name, rel+"/") {
			delete(s.entries, name)
		}
	}
	return nil
}

func (s *stager) stageFile(rel, abs string, d fs.DirEntry) error {
	info, err := d.Info()
	if err != nil {
		return err
	}
	var content []byte
	mode := filemode.Regular
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(abs)
		if err != nil {
			return err
		}
		content = []byte(filepath.ToSlash(target))
		mode = filemode.Symlink
	case info.Mode().IsRegular():
		if content, err = os.ReadFile(abs); err != nil {
			return err
		}
		if info.Mode()&0o111 != 0 {
			mode = filemode.Executable
		}
	default:
		return nil // sockets, devices, …: git does not track them
	}
	h := plumbing.ComputeHash(plumbing.BlobObject, content)
	e := s.entries[rel]
	if e == nil || e.Hash != h {
		obj, err := Blob(s.pending, content)
		if err != nil {
			return err
		}
		if _, err := s.store(obj); err != nil {
			return err
		}
	}
	if e == nil {
		e = &index.Entry{Name: rel}
		s.entries[rel] = e
	}
	e.Hash = h
	e.Mode = mode
	e.Size = uint32(info.Size())
	e.ModifiedAt = info.ModTime()
	e.CreatedAt = info.ModTime()
	return nil
}

// dirNode is one folder of the tree being built.
type dirNode struct {
	files []object.TreeEntry
	dirs  map[string]*dirNode
}

// writeTrees builds the tree objects for the staged entries and returns the
// root tree's hash.
func (s *stager) writeTrees() (plumbing.Hash, error) {
	root := &dirNode{}
	for name, e := range s.entries {
		n := root
		parts := strings.Split(name, "/")
		for _, dir := range parts[:len(parts)-1] {
			if n.dirs == nil {
				n.dirs = make(map[string]*dirNode)
			}
			child := n.dirs[dir]
			if child == nil {
				child = &dirNode{}
				n.dirs[dir] = child
			}
			n = child
		}
		n.files = append(n.files, object.TreeEntry{Name: parts[len(parts)-1], Mode: e.Mode, Hash: e.Hash})
	}
	h, err := s.writeDir(root)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitfixture: write trees: %w", err)
	}
	return h, nil
}

func (s *stager) writeDir(n *dirNode) (plumbing.Hash, error) {
	entries := n.files
	for name, child := range n.dirs {
		h, err := s.writeDir(child)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	for _, f := range n.files {
		if _, ok := n.dirs[f.Name]; ok {
			return plumbing.ZeroHash, fmt.Errorf("%q is both a file and a folder", f.Name)
		}
	}
	sort.Sort(object.TreeEntrySorter(entries))
	return s.put(&object.Tree{Entries: entries})
}
