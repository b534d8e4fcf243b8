// Package gitcache is what each git table of the user's cache holds on
// disk: its name, its keys, the encoding of its values and the bounds of
// what one run adds, for the five tables internal/gitrepo keeps across
// runs (internal/cachetable binds each to one repository):
//
//   - git-commits-<repo> (commits.go): a commit's tree and first parent,
//     and the description of what differs between their trees (Pair);
//   - git-walks-<repo> (walks.go): the answers of the history walks,
//     keyed by their question (WalkKey);
//   - git-changed-<repo> (changed.go): ChangedPaths' answers;
//   - git-paths-<repo> (paths.go): the entry a look-up by path found in a
//     tree;
//   - git-objects-<repo> (objects.go): small blobs, each checked against
//     its hash before it is used.
//
// Every value read from a table is untrusted input: a decoder checks it
// whole (or, for a description, one level at a time as a walk reads it)
// and one that does not decode is a miss, never a panic. When an answer
// may be used, and why that is sound, is internal/gitrepo's (the headers
// of its histcache.go and walkmemo.go; for the changed-paths, path and
// object tables, the headers of changed.go, paths.go and objects.go here).
package gitcache

import "github.com/go-git/go-git/v5/plumbing"

// hashKey is the key of an object's hash (the tables keyed by one).
func hashKey(h *plumbing.Hash) []byte { return h[:] }
