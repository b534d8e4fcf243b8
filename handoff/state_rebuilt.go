package handoff

// The state write of a rebuilt state: a corrupt state file that
// discover/rebuild reconstructed is replaced by the content rebuild.Fresh
// renders (the format's side), with the corrupt bytes kept beside it and
// the same Backup and rollback as any state update (state.go).

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/rebuild"
	"github.com/orchestrate-dev/orchestrate/internal/atomicfile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// CorruptSuffix starts the name of the copy WriteRebuilt keeps of a corrupt
// state file: <file>.corrupt-<UTC time, 20060102T150405Z>.
const CorruptSuffix = ".corrupt-"

// WriteRebuilt replaces the corrupt state file of c, a candidate that
// rebuild.Rebuild reconstructed (status "rebuilt"), with a fresh state
// marked resumed: status "active", resumed_at now, resume_count 1 (the
// backup's count + 1 when the state came from the .bak twin). The corrupt
// bytes are first copied to <file>.corrupt-<time>, which is never deleted;
// then the state file is replaced atomically. The .bak twin is left as it
// is. Restore on the Backup returned puts the corrupt file back.
//
// The fresh state is the .bak twin's own content when it parses (every field
// the framework wrote is kept), else the rebuilt candidate rendered in the
// layout of its kind: our workflow-state YAML for a workflow state, the
// `epic_state:` YAML for an epic, JSON for a QA loop or a spec pipeline
// state. It refuses (and writes nothing) when the file is not corrupt any
// more — someone repaired or replaced it since discovery — or is a symlink,
// a folder or outside root.
func WriteRebuilt(root string, c workflow.Candidate, now time.Time) (Backup, error) {
	if c.Status != rebuild.StatusRebuilt {
		return Backup{}, fmt.Errorf("write rebuilt state %s: the candidate is %q, not a rebuilt state", c.Source.Path, c.Status)
	}
	if now.IsZero() {
		return Backup{}, fmt.Errorf("write rebuilt state %s: no time of the rebuild (the caller's clock)", c.Source.Path)
	}
	sf, err := openStateFile(root, c.Source.Path, "write rebuilt state")
	if err != nil {
		return Backup{}, err
	}
	defer sf.Close()
	clean := sf.clean
	if !sf.info.Mode().IsRegular() {
		return Backup{}, fmt.Errorf("write rebuilt state %s: not a regular file; refusing to replace it", clean)
	}
	corrupt, err := sf.d.ReadFile(sf.name, maxStateSize)
	if err != nil {
		return Backup{}, fmt.Errorf("write rebuilt state %s: %w", clean, err)
	}
	if !rebuild.StillCorrupt(c.Source.Kind, clean, corrupt) {
		return Backup{}, fmt.Errorf("write rebuilt state %s: the file parses now (it was changed since it was found corrupt); run orchestrate resume again", clean)
	}
	wrappers := wrappersFor(c.Source.Kind)
	fresh, err := rebuild.Fresh(root, c, clean, now, wrappers)
	if err != nil {
		return Backup{}, fmt.Errorf("write rebuilt state %s: %w", clean, err)
	}

	b, err := sf.backup(root, corrupt, fresh)
	if err != nil {
		return Backup{}, fmt.Errorf("write rebuilt state %s: %w", clean, err)
	}

	keep, err := rbFreeName(sf.full + CorruptSuffix + now.UTC().Format("20060102T150405Z"))
	if err != nil {
		return Backup{}, fmt.Errorf("write rebuilt state %s: %w", clean, err)
	}
	keepName := filepath.Base(keep)
	// the corrupt copy is a real copy (written before anything changes, so
	// a full disk fails here with nothing changed): after a rollback it
	// must not share its file with the state the framework writes again
	if err := atomicfile.WriteIn(sf.d, keepName, corrupt, b.perm); err != nil {
		return Backup{}, fmt.Errorf("write rebuilt state %s: keep the corrupt file: %w", clean, err)
	}
	// the rollback handle: Restore renames the corrupt file back
	if err := b.keepOriginal(sf.d, sf.name, false); err != nil {
		_ = sf.d.Remove(keepName)
		return Backup{}, fmt.Errorf("write rebuilt state %s: keep the corrupt file: %w", clean, err)
	}
	if err := atomicfile.WriteIn(sf.d, sf.name, fresh, b.perm); err != nil {
		// the state file was not replaced: the copy is not needed
		b.undoKeep(sf.d, sf.name)
		_ = sf.d.Remove(keepName)
		return Backup{}, fmt.Errorf("write rebuilt state %s: %w", clean, err)
	}
	return b, nil
}

// updateOrRebuild is step 2 of Execute for any candidate: a rebuilt state is
// written afresh (WriteRebuilt), any other is patched (updateState).
func updateOrRebuild(root string, c workflow.Candidate, now time.Time, wrappers []string) (Backup, error) {
	if c.Status == rebuild.StatusRebuilt {
		return WriteRebuilt(root, c, now)
	}
	return updateState(root, c.Source.Path, now, wrappers, true)
}

// rbFreeName returns p, or p-2, p-3, … when p is taken.
func rbFreeName(p string) (string, error) {
	for i := 1; i <= 100; i++ {
		name := p
		if i > 1 {
			name = fmt.Sprintf("%s-%d", p, i)
		}
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return name, nil
		} else if err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("no free name for %s", p)
}
