package handoff

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// GitignoreRel is the ignore file orchestrate writes for its own runtime
// files, relative to the repository root.
const GitignoreRel = ".orchestrate/.gitignore"

// GitignoreContent is what EnsureGitignore writes: orchestrate's runtime
// files (locks, handoff envelopes, the action log, backups and set-aside
// corrupt states), never the workflow states themselves. The trust store
// lives outside the repository and needs no line.
const GitignoreContent = `# Written by orchestrate: its runtime files, not to be committed.
# Workflow states (workflows/) and the archive (archive/) stay tracked.
/locks/
/handoffs/
/log.jsonl
*.bak
*` + CorruptSuffix + `*
`

// EnsureGitignore writes .orchestrate/.gitignore under root when there is
// none, and reports whether it did. The write is confined (no symlink is
// followed, see docs/SECURITY.md) and all or nothing: the file is written to
// a temporary name and linked into place, so an existing file — or one a
// concurrent resume wrote first — is never replaced.
func EnsureGitignore(root string) (bool, error) {
	d, err := safefile.OpenDir(root, ".orchestrate", true)
	if err != nil {
		return false, fmt.Errorf("write %s: %w", GitignoreRel, err)
	}
	defer d.Close()
	if _, _, err := d.Lstat(".gitignore"); err == nil {
		return false, nil // there is one (whatever it is): leave it alone
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("write %s: %w", GitignoreRel, err)
	}
	err = linkNew(d, ".gitignore", []byte(GitignoreContent), 0o644, "")
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("write %s: %w", GitignoreRel, err)
	}
	return true, nil
}
