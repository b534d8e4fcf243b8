package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

// history makes the commits between the first and the last one quickly.
//
// gitfixture.Commit rebuilds the index and every tree from scratch, which
// costs about a second per commit at 100,000 files. The middle of the
// history only edits a few files per commit, so history keeps HEAD's tree in
// memory and re-encodes just the folders on the changed paths; the objects
// go into one packfile (flush). The index is left as the first commit wrote
// it: the last commit is made with gitfixture.Commit again, staging the
// work tree, which brings the index up to date (and its tree is checked
// against the one kept here).
type history struct {
	dir     string
	repo    *git.Repository
	root    *treeNode
	head    plumbing.Hash
	pending *memory.Storage
	order   []plumbing.Hash
}

type treeNode struct {
	files map[string]object.TreeEntry
	dirs  map[string]*treeNode
	hash  plumbing.Hash
	dirty bool
}

func newTreeNode() *treeNode {
	return &treeNode{files: map[string]object.TreeEntry{}, dirs: map[string]*treeNode{}, dirty: true}
}

// openHistory loads HEAD's tree of the repository in dir.
func openHistory(dir string) (*history, error) {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return nil, err
	}
	ref, err := repo.Head()
	if err != nil {
		return nil, err
	}
	c, err := repo.CommitObject(ref.Hash())
	if err != nil {
		return nil, err
	}
	h := &history{dir: dir, repo: repo, head: c.Hash, pending: memory.NewStorage()}
	if h.root, err = h.load(c.TreeHash); err != nil {
		return nil, err
	}
	return h, nil
}

func (h *history) load(th plumbing.Hash) (*treeNode, error) {
	t, err := object.GetTree(h.repo.Storer, th)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", th, err)
	}
	n := newTreeNode()
	n.hash, n.dirty = th, false
	for _, e := range t.Entries {
		if e.Mode == filemode.Dir {
			child, err := h.load(e.Hash)
			if err != nil {
				return nil, err
			}
			n.dirs[e.Name] = child
		} else {
			n.files[e.Name] = e
		}
	}
	return n, nil
}

// stage records the file at the slash path rel as it is on disk.
func (h *history) stage(rel string) error {
	data, err := os.ReadFile(filepath.Join(h.dir, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	obj, err := gitfixture.Blob(h.pending, data)
	if err != nil {
		return err
	}
	bh, err := h.store(obj)
	if err != nil {
		return err
	}
	parts := strings.Split(rel, "/")
	n := h.root
	n.dirty = true
	for _, d := range parts[:len(parts)-1] {
		child := n.dirs[d]
		if child == nil {
			child = newTreeNode()
			n.dirs[d] = child
		}
		child.dirty = true
		n = child
	}
	name := parts[len(parts)-1]
	n.files[name] = object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: bh}
	return nil
}

func (h *history) store(obj plumbing.EncodedObject) (plumbing.Hash, error) {
	id := obj.Hash()
	if h.pending.HasEncodedObject(id) == nil {
		return id, nil
	}
	if _, err := h.pending.SetEncodedObject(obj); err != nil {
		return id, err
	}
	h.order = append(h.order, id)
	return id, nil
}

func (h *history) writeTree(n *treeNode) (plumbing.Hash, error) {
	if !n.dirty {
		return n.hash, nil
	}
	entries := make([]object.TreeEntry, 0, len(n.files)+len(n.dirs))
	for _, e := range n.files {
		entries = append(entries, e)
	}
	for name, child := range n.dirs {
		ch, err := h.writeTree(child)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: ch})
	}
	sort.Sort(object.TreeEntrySorter(entries))
	obj := h.pending.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	th, err := h.store(obj)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	n.hash, n.dirty = th, false
	return th, nil
}

// commit records the staged files on top of HEAD and moves the branch.
func (h *history) commit(msg, name, email string, when time.Time) (string, error) {
	th, err := h.writeTree(h.root)
	if err != nil {
		return "", err
	}
	sig := object.Signature{Name: name, Email: email, When: when}
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: th, ParentHashes: []plumbing.Hash{h.head}}
	obj := h.pending.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return "", err
	}
	ch, err := h.store(obj)
	if err != nil {
		return "", err
	}
	h.head = ch
	return ch.String(), nil
}

// flush writes the new objects as one packfile and points the current
// branch at the last commit.
func (h *history) flush() error {
	if len(h.order) > 0 {
		pw, ok := h.repo.Storer.(storer.PackfileWriter)
		if !ok {
			return fmt.Errorf("the repository storage cannot write packfiles")
		}
		if err := gitfixture.WritePack(pw, h.pending, h.order); err != nil {
			return err
		}
		h.order, h.pending = nil, memory.NewStorage()
	}
	head, err := h.repo.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return err
	}
	name := plumbing.HEAD
	if head.Type() == plumbing.SymbolicReference {
		name = head.Target()
	}
	return h.repo.Storer.SetReference(plumbing.NewHashReference(name, h.head))
}

// treeHash returns the hash of the tree kept in memory, staged files included.
func (h *history) treeHash() (plumbing.Hash, error) { return h.writeTree(h.root) }

// commitTree returns the tree hash of the commit with the given hash, which
// may be in a packfile written since the history was opened.
func (h *history) commitTree(hash string) (plumbing.Hash, error) {
	repo, err := git.PlainOpen(h.dir)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	c, err := repo.CommitObject(plumbing.NewHash(hash))
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}
