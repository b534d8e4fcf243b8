// Package gitobj reads git's on-disk formats, and nothing else: the
// objects (loose files; pack files and their version 2 indexes, memory-
// mapped; pack entries, delta chains and a bounded cache of rebuilt objects
// by pack offset; alternates), the files of a .git folder (found, refused
// when another user owns them or when they are not regular files, read
// with bounds), the index (stat data, blob hashes, the cache-tree), the
// commit-graph, and trees (indexed for look-ups by name, scanned for the
// names a walk wants, derived from a similar tree, and the differences of
// two). A tree index cache checks the trees it reads with an ObjectChecker
// (internal/gitverify's Verifier).
//
// Every byte read is treated as hostile: a size is checked before anything
// is inflated, the work of a delta chain is bounded, a malformed structure
// is an error or a miss, never a panic or a hang. Each reader is fuzzed and
// compared with go-git, which stays the fallback for what this package does
// not read (objects of a pack whose index it cannot read, references).
//
// The questions orchestrate asks of a repository (which commit, which
// paths changed, since when) are internal/gitrepo's; this package imports
// no other package of the module.
package gitobj
