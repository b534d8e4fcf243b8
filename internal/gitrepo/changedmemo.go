package gitrepo

// The changed-paths table: ChangedPaths' answers (the files a commit
// changed against its first parent, for validate's "whose change" rule),
// kept across runs in the user's cache folder, so that a status of 200
// workflows asking about the same 300 commits reads no tree for them when
// warm (each answer is a full difference of a commit with its parent: the
// trees of every folder it changed).
//
// One table, git-changed-<repo> (<repo> as for the history table, see
// histcache.go), keyed by the commit's hash. Its value (internal/gitcache's
// changed.go) is
// a format version, the bound asked (max), whether the answer was cut
// (more) and the paths in order.
//
// Why it is sound: the answer is a function of the commit's tree and of
// its first parent's tree, which git names by the commit's hash (the
// commit names its tree and parent, the parent its tree), of max (in the
// value: another bound is a miss) and of gitchanged.MaxTrees (the format
// version). Only answers computed against a parent that was read are
// recorded, and the table is only asked when the parent can be read now
// (not a root, not a shallow boundary, not missing): a commit that later
// becomes a shallow boundary is answered as without the table. As for the
// other git tables, every commit and tree read while the cache is on is
// checked against its hash (a run that met a lie saves nothing, see
// verify.go), the table is bound to the repository (cachetable), and a
// value that does not decode is a miss.
//
// The look-ups and the recording are gitcache.ChangedFirstHit and
// gitcache.ChangedRecord (ownership.go asks them).
