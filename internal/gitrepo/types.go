// Package gitrepo is orchestrate's one seam over go-git. It answers the few
// questions validation asks — which commit a state was saved at, whether the
// referenced files differ from that commit, and which commits changed them —
// at a cost that follows the number of referenced paths, not the size of the
// repository: no Worktree.Status, no whole-tree diff, no index decode.
package gitrepo

import (
	"errors"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
	"github.com/orchestrate-dev/orchestrate/internal/safedir"
)

// The errors of the format readers (internal/gitobj) this package's
// answers wrap, named here for its importers.
var (
	// ErrNoGit is the error Open wraps for a folder outside any repository.
	ErrNoGit = gitobj.ErrNoGit
	// ErrNotRegular is a file of a .git folder that is not a regular file.
	ErrNotRegular = gitobj.ErrNotRegular
	// ErrGitFileTooLarge is a file of a .git folder over its bound.
	ErrGitFileTooLarge = gitobj.ErrGitFileTooLarge
	// ErrDubiousOwnership is what a *DubiousOwnershipError wraps.
	ErrDubiousOwnership = safedir.ErrDubiousOwnership
	// ErrObjectTooLarge is an object over the size asked for.
	ErrObjectTooLarge = gitobj.ErrObjectTooLarge
	// ErrDeltaWork is a delta chain too costly to rebuild.
	ErrDeltaWork = gitobj.ErrDeltaWork
)

// DubiousOwnershipError is Open's refusal of a repository another user
// owns (see safedir.CheckOwnership).
type DubiousOwnershipError = safedir.DubiousOwnershipError

// ReadGitFile reads the file of a .git folder at full, at most max bytes,
// as every .git file is read (see gitobj.ReadGitFile: never blocking on a
// FIFO, regular files only).
func ReadGitFile(full string, max int64) ([]byte, error) { return gitobj.ReadGitFile(full, max) }

// ErrNoCommit is returned when the interruption commit cannot be found (no
// commit at or before the time, or a shallow clone that does not reach it).
var ErrNoCommit = errors.New("interruption commit not found")

// ErrHistoryMissing is returned (together with ErrNoCommit) when the
// interruption commit cannot be found because the history is cut short: a
// shallow clone whose boundary comes first, or a partial clone missing the
// commit or one of its ancestors. Changes since the interruption can then be
// neither confirmed nor ruled out.
var ErrHistoryMissing = errors.New("git history missing")

// Commit is the part of a commit orchestrate reports.
type Commit struct {
	Hash    string    `json:"hash"`
	Short   string    `json:"short"` // the first 7 hex digits
	Author  string    `json:"author"`
	Email   string    `json:"email"`
	When    time.Time `json:"when"` // committer time, UTC
	Subject string    `json:"subject"`
}

// IsZero reports whether c is the zero Commit.
func (c Commit) IsZero() bool { return c.Hash == "" }

// PathState compares one referenced path between a base commit, HEAD and the
// working tree.
type PathState struct {
	Path       string `json:"path"`
	BaseHash   string `json:"base_hash,omitempty"` // blob hash in the base commit; "" when absent there
	HeadHash   string `json:"head_hash,omitempty"` // blob hash in HEAD; "" when absent there, or not looked up (unchanged paths)
	DiskHash   string `json:"disk_hash,omitempty"` // git blob hash of the file on disk; "" when missing
	OnDisk     bool   `json:"on_disk"`
	Changed    bool   `json:"changed"`     // disk differs from base
	Committed  bool   `json:"committed"`   // HEAD differs from base (changed by commits since)
	Uncommited bool   `json:"uncommitted"` // disk differs from HEAD (an uncommitted edit)
}

// Removal is the commit that removed a path from HEAD's history.
type Removal struct {
	Commit Commit `json:"commit"`
	// MovedTo is where the same content went in that commit (rename
	// detection: the same blob at a new path); "" when it was deleted.
	MovedTo string `json:"moved_to,omitempty"`
	// Submodule is the folder on the path that the commit turned into a
	// submodule (the content moved to another repository); "" otherwise.
	Submodule string `json:"submodule,omitempty"`
}
