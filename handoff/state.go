package handoff

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/rebuild"
	"github.com/orchestrate-dev/orchestrate/internal/atomicfile"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/internal/statepatch"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// ErrNotPatchable is returned by UpdateState for a file it does not know how
// to mark resumed (a markdown progress file, for now).
var ErrNotPatchable = statepatch.ErrNotPatchable

// maxStateSize is the largest state file UpdateState reads.
const maxStateSize = 16 << 20

// StatusActive is the status a resumed state gets.
const StatusActive = statepatch.StatusActive

// allWrappers are the keys under which a state may keep its fields: an AIOX
// epic (epic_state) and the wrapped QA-loop schemas.
var allWrappers = []string{"epic_state", "qaLoop", "qa_loop", "loop"}

// wrappersFor are the wrapper keys that apply to a source kind; unknown kinds
// get all of them.
func wrappersFor(kind string) []string {
	switch kind {
	case "epic-state":
		return []string{"epic_state"}
	case "qa-loop":
		return []string{"qaLoop", "qa_loop", "loop"}
	case "workflow-state", "work-session":
		return nil
	}
	return allWrappers
}

// Backup is what UpdateState replaced: enough to put the state file and its
// .bak twin back exactly as they were.
//
// The rollback needs no new disk blocks: before the update, the original
// state file (and the previous .bak, when the update replaces it) is kept
// under a hidden hard link in the same folder (a rollback handle,
// ".<name>.tmp-rb-<random>"); the new .bak, a copy, is written before the
// state is touched. Restore renames the handles back over the names, which
// a full disk cannot fail; only a file system without hard links falls
// back to rewriting the saved bytes (Original, OldBak). A Backup that is
// not restored is settled with Discard, which removes the handles.
type Backup struct {
	// Path is the state file written; empty when nothing was written.
	Path string
	// Original is the state file's content before the update.
	Original []byte
	// HadBak tells whether <Path>.bak existed before the update, and OldBak
	// is its content then.
	HadBak bool
	OldBak []byte

	written []byte      // what the update wrote to Path
	perm    fs.FileMode // the state file's permission bits
	root    string      // the repository, and Path relative to it: the
	rel     string      // restore goes through the confined folder

	// origHandle is the hidden hard link to the original state file ("":
	// none, the rollback rewrites Original); bakHandle the one to the
	// previous .bak ("": there was none, or the update left the .bak
	// alone). bakTouched tells whether the update created or replaced the
	// .bak (a rebuilt state and a retried update leave it as it is).
	origHandle string
	bakHandle  string
	bakTouched bool
}

// Restore puts back the original state file and the previous .bak (or
// removes the .bak when there was none). A zero Backup restores nothing.
// With rollback handles it only renames and removes names in the state
// file's folder, so it cannot fail for lack of space.
func (b Backup) Restore() error {
	if b.Path == "" {
		return nil
	}
	d, name, err := b.folder()
	if err != nil {
		return fmt.Errorf("restore %s: %w", b.Path, err)
	}
	defer d.Close()
	if b.origHandle != "" {
		done, err := b.restoreByRename(d, name)
		if done {
			return err
		}
		// a handle is gone or changed: rewrite the saved bytes instead
	}
	perm := b.perm
	if perm == 0 {
		perm = 0o644
	}
	if err := atomicfile.WriteIn(d, name, b.Original, perm); err != nil {
		return fmt.Errorf("restore %s: %w", b.Path, err)
	}
	defer b.dropHandles(d)
	bak := b.Path + ".bak"
	switch {
	case !b.bakTouched:
		// the update left the .bak as it was
	case b.HadBak:
		if err := atomicfile.WriteIn(d, name+".bak", b.OldBak, perm); err != nil {
			return fmt.Errorf("restore %s: %w", bak, err)
		}
	default:
		if err := d.Remove(name + ".bak"); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("restore: remove %s: %w", bak, err)
		}
	}
	_ = d.Sync()
	return nil
}

// restoreByRename is Restore through the rollback handles: each handle is
// checked to hold what it kept (a read), then renamed back over its name;
// a .bak the update created is removed. No new blocks are needed. done
// tells whether the state file was put back (err then concerns the .bak).
func (b Backup) restoreByRename(d *safefile.Dir, name string) (done bool, err error) {
	if got, err := d.ReadFile(b.origHandle, maxStateSize); err != nil || !bytes.Equal(got, b.Original) {
		return false, fmt.Errorf("the rollback handle %s does not hold the original", b.origHandle)
	}
	if b.bakTouched && b.bakHandle != "" {
		if got, err := d.ReadFile(b.bakHandle, maxStateSize); err != nil || !bytes.Equal(got, b.OldBak) {
			return false, fmt.Errorf("the rollback handle %s does not hold the previous .bak", b.bakHandle)
		}
	}
	if err := renameBack(d, b.origHandle, name); err != nil {
		return false, err
	}
	defer func() { _ = d.Sync() }()
	if !b.bakTouched {
		return true, nil
	}
	if b.bakHandle != "" {
		if err := renameBack(d, b.bakHandle, name+".bak"); err != nil {
			return true, fmt.Errorf("restore %s.bak: %w", b.Path, err)
		}
		return true, nil
	}
	if err := d.Remove(name + ".bak"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return true, fmt.Errorf("restore: remove %s.bak: %w", b.Path, err)
	}
	return true, nil
}

// Discard settles a Backup that will not be restored (the handoff went
// through, or the state was changed by someone else since): it removes the
// rollback handles. Removing frees blocks; it needs none.
func (b Backup) Discard() {
	if b.origHandle == "" && b.bakHandle == "" {
		return
	}
	d, _, err := b.folder()
	if err != nil {
		return
	}
	defer d.Close()
	b.dropHandles(d)
}

// dropHandles removes the rollback handles in d, the state file's folder.
func (b Backup) dropHandles(d *safefile.Dir) {
	for _, h := range []string{b.origHandle, b.bakHandle} {
		if h != "" {
			_ = d.Remove(h)
		}
	}
	_ = d.Sync()
}

// handleInfix marks a rollback handle: ".<name>" + handleInfix + random.
// It contains ".tmp-", so a handle left by a killed process is a temporary
// file like the atomic writes' (never a state file to discovery).
const handleInfix = ".tmp-rb-"

// linkFailpoint is the test hook before every hard link a state update
// makes (the step "link" of atomicfile.Failpoint).
func linkFailpoint() error {
	if atomicfile.Failpoint == nil {
		return nil
	}
	if err := atomicfile.Failpoint("link"); err != nil {
		return fmt.Errorf("link (injected): %w", err)
	}
	return nil
}

// errNoHardLinks is returned by keepLink when the file system cannot make a
// hard link at all: the caller falls back to copies.
var errNoHardLinks = errors.New("the file system does not support hard links")

// hardLink makes to in d a hard link to from (no data blocks): an error
// matching fs.ErrExist when to exists, errNoHardLinks when the file system
// refuses hard links.
func hardLink(d *safefile.Dir, from, to string) error {
	if err := linkFailpoint(); err != nil {
		return err
	}
	err := d.Link(from, d, to)
	switch {
	case err == nil, errors.Is(err, fs.ErrExist):
		return err
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.EOPNOTSUPP),
		errors.Is(err, syscall.EMLINK), errors.Is(err, syscall.EXDEV), errors.Is(err, syscall.ENOSYS):
		return fmt.Errorf("%w: %v", errNoHardLinks, err)
	}
	return err
}

// keepLink makes a rollback handle for name in d: a fresh hidden hard link
// to the same file (no data blocks). errNoHardLinks when the file system
// refuses hard links.
func keepLink(d *safefile.Dir, name string) (string, error) {
	var err error
	for i := 0; i < 10; i++ {
		var rnd [8]byte
		_, _ = rand.Read(rnd[:])
		h := "." + name + handleInfix + hex.EncodeToString(rnd[:])
		if err = hardLink(d, name, h); !errors.Is(err, fs.ErrExist) {
			if err != nil {
				return "", err
			}
			return h, nil
		}
	}
	return "", err
}

// renameBack renames the handle h over to in d. When to already is the
// same file (a .bak the user made as a hard link to the state), rename(2)
// does nothing and h stays, so h is removed after a successful
// rename (after a real one it is gone and the removal fails harmlessly).
// No new blocks.
func renameBack(d *safefile.Dir, h, to string) error {
	if err := d.Rename(h, d, to); err != nil {
		return err
	}
	_ = d.Remove(h)
	return nil
}

// folder opens the state file's folder: confined to the repository when
// the Backup knows it, else the folder of Path.
func (b Backup) folder() (*safefile.Dir, string, error) {
	if b.rel != "" {
		return safefile.OpenParent(b.root, b.rel, false)
	}
	d, err := safefile.OpenDir(filepath.Dir(b.Path), ".", false)
	return d, filepath.Base(b.Path), err
}

// unchangedSinceUpdate reports whether the state file still holds what the
// update wrote (nobody, e.g. the orchestrator, changed it since).
func (b Backup) unchangedSinceUpdate() bool {
	if b.Path == "" {
		return true
	}
	d, name, err := b.folder()
	if err != nil {
		return false
	}
	defer d.Close()
	got, err := d.ReadFile(name, maxStateSize)
	return err == nil && bytes.Equal(got, b.written)
}

// UpdateState marks the state file at path (repository-relative, or absolute
// inside root) resumed: status "active", resumed_at now (RFC 3339, UTC) and
// resume_count + 1, keeping every other byte of the file. The fields live in
// the top-level mapping, under epic_state when that key holds a mapping, or
// under qaLoop/qa_loop/loop for a wrapped QA loop; keys are spelt as the
// mapping spells its others (camelCase → resumedAt, resumeCount). The
// previous content is kept as <file>.bak; both files are written atomically.
//
// A folder (a spec pipeline) is a no-op; a markdown file gives
// ErrNotPatchable; a symlink, a path outside root, a flow-style YAML mapping,
// or anything the patch cannot rewrite safely is an error and nothing is
// written. The result is re-parsed before it is written: it must decode, give
// back the three fields, and keep every other field equal.
func UpdateState(root, path string, now time.Time) (Backup, error) {
	return updateState(root, path, now, allWrappers, false)
}

// CheckUpdate reports, without writing anything, whether the state update
// of a handoff would succeed for candidate c: the state file can be read,
// patched and verified. Stories, spec folders and index files have no state
// file to update (nil); a rebuilt state is written anew (nil). The command
// layer turns an error into a blocking finding, so a dry run exits with the
// code the real run would.
func CheckUpdate(root string, c workflow.Candidate, now time.Time) error {
	if !hasStateFile(c.Source.Kind) || c.Status == rebuild.StatusRebuilt {
		return nil
	}
	_, _, _, _, err := prepareUpdate(root, c.Source.Path, now, wrappersFor(c.Source.Kind))
	return err
}

// prepareUpdate reads and patches the state file at path in memory.
func prepareUpdate(root, path string, now time.Time, wrappers []string) (full, clean string, fi fs.FileInfo, data []byte, err error) {
	sf, err := openStateFile(root, path, "update state")
	if err != nil {
		return "", "", nil, nil, err
	}
	defer sf.Close()
	full, clean, fi = sf.full, sf.clean, sf.info
	if fi.IsDir() {
		return full, clean, fi, nil, nil
	}
	data, err = sf.read(sf.name)
	if err != nil {
		return "", "", nil, nil, fmt.Errorf("update state %s: %w", clean, err)
	}
	if _, _, err := sf.readBak(); err != nil {
		return "", "", nil, nil, fmt.Errorf("update state %s: %w", clean, err)
	}
	patch := patchState
	if isMarkdown(clean) {
		patch = patchProgressState
	}
	if _, err := patch(clean, data, now, wrappers); err != nil {
		return "", "", nil, nil, fmt.Errorf("update state %s: %w", clean, err)
	}
	return full, clean, fi, data, nil
}

// updateState is UpdateState. With retry (the handoff's own use, which has
// already ruled out a completed handoff of this resume), a state marked by a
// resume that was killed before handing off is marked again from its .bak.
func updateState(root, path string, now time.Time, wrappers []string, retry bool) (Backup, error) {
	sf, err := openStateFile(root, path, "update state")
	if err != nil {
		return Backup{}, err
	}
	defer sf.Close()
	clean := sf.clean
	if sf.info.IsDir() {
		return Backup{}, nil
	}
	data, err := sf.read(sf.name)
	if err != nil {
		return Backup{}, fmt.Errorf("update state %s: %w", clean, err)
	}
	patch := patchState
	if isMarkdown(clean) {
		patch = patchProgressState // a progress file (discover/progress); other markdown: ErrNotPatchable
	}
	// A resume killed after marking the state and before handing off leaves
	// the state marked and the unmarked version in .bak. The retry marks it
	// from the .bak (one resume, one count) and keeps that .bak.
	base, keepBak := data, false
	if prev, err := sf.read(sf.name + ".bak"); retry && err == nil && !bytes.Equal(prev, data) &&
		stateHash(clean, prev, wrappers) == stateHash(clean, data, wrappers) && markedActive(clean, data, wrappers) && !markedActive(clean, prev, wrappers) {
		base, keepBak = prev, true
	}
	patched, err := patch(clean, base, now, wrappers)
	if err != nil {
		return Backup{}, fmt.Errorf("update state %s: %w", clean, err)
	}

	b, err := sf.backup(root, data, patched)
	if err != nil {
		return Backup{}, fmt.Errorf("update state %s: %w", clean, err)
	}
	// keepBak: .bak already holds the unmarked version: leave it
	if err := b.keepOriginal(sf.d, sf.name, !keepBak); err != nil {
		return Backup{}, fmt.Errorf("update state %s: keep the previous version: %w", clean, err)
	}
	if err := atomicfile.WriteIn(sf.d, sf.name, patched, b.perm); err != nil {
		// the state file was not replaced: put the .bak back as it was
		b.undoKeep(sf.d, sf.name)
		return Backup{}, fmt.Errorf("update state %s: %w", clean, err)
	}
	return b, nil
}

// keepOriginal prepares the rollback of an update of name in d before the
// update replaces it: a rollback handle (a hidden hard link, no data
// blocks) to the original and, when touchBak, one to the previous .bak;
// then, when touchBak, the new .bak, a copy of the original (a full disk
// fails here, with nothing changed). The rollback then only renames. On
// a file system without hard links there are no handles and Restore
// rewrites the saved bytes. On an error nothing is left changed.
func (b *Backup) keepOriginal(d *safefile.Dir, name string, touchBak bool) error {
	h, err := keepLink(d, name)
	switch {
	case errors.Is(err, errNoHardLinks):
		h = ""
	case err != nil:
		return err
	}
	b.origHandle = h
	if !touchBak {
		return nil
	}
	if b.HadBak && h != "" {
		bh, err := keepLink(d, name+".bak")
		if err != nil {
			b.undoKeep(d, name)
			return err
		}
		b.bakHandle = bh
	}
	if err := atomicfile.WriteIn(d, name+".bak", b.Original, b.perm); err != nil {
		b.undoKeep(d, name)
		return err
	}
	b.bakTouched = true
	return nil
}

// undoKeep reverses keepOriginal when the state file was not replaced: the
// previous .bak is renamed back (or the new one removed) and the handles
// are dropped. Renames and removals only.
func (b *Backup) undoKeep(d *safefile.Dir, name string) {
	if b.bakTouched {
		switch {
		case b.bakHandle != "":
			if err := renameBack(d, b.bakHandle, name+".bak"); err == nil {
				b.bakHandle = ""
			}
		case b.HadBak: // copies: rewrite the old one
			_ = restoreBak(d, name+".bak", true, b.OldBak, b.perm)
		default:
			_ = d.Remove(name + ".bak")
		}
	}
	b.dropHandles(d)
	b.origHandle, b.bakHandle, b.bakTouched = "", "", false
}

// restoreBak puts the .bak twin bakName in d back as it was: old when it
// existed, else removed.
func restoreBak(d *safefile.Dir, bakName string, had bool, old []byte, perm fs.FileMode) error {
	if had {
		return atomicfile.WriteIn(d, bakName, old, perm)
	}
	if err := d.Remove(bakName); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	_ = d.Sync()
	return nil
}

// stateFile is a state file reached through its folder, opened from the
// repository root without following a symlink anywhere (see
// docs/SECURITY.md): every read and write of the file, its .bak twin, its
// temporary files and its .corrupt copies goes through that folder.
type stateFile struct {
	d           *safefile.Dir
	name        string      // the file's name in d
	full, clean string      // its full and repository-relative paths
	info        fs.FileInfo // what it is: a regular file or a folder
}

// backup is the Backup of the state file before original is replaced by
// written: its path, bytes and mode, and its .bak twin as it is now.
func (sf *stateFile) backup(root string, original, written []byte) (Backup, error) {
	old, had, err := sf.readBak()
	if err != nil {
		return Backup{}, err
	}
	return Backup{Path: sf.full, Original: original, written: written, perm: sf.info.Mode().Perm(), root: root, rel: sf.clean, HadBak: had, OldBak: old}, nil
}

// openStateFile resolves path (repository-relative, or absolute inside
// root) and opens its folder confined; op starts error messages. A state
// file that is a symlink, a FIFO, a device or missing is an error; a folder
// (a spec pipeline) is returned as one.
func openStateFile(root, path, op string) (*stateFile, error) {
	full, clean, err := resolveState(root, path)
	if err != nil {
		return nil, err
	}
	d, name, err := safefile.OpenParent(root, clean, false)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", op, clean, err)
	}
	mode, _, err := d.Lstat(name)
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("%s %s: %w", op, clean, err)
	}
	switch {
	case mode&fs.ModeSymlink != 0:
		d.Close()
		return nil, fmt.Errorf("%s %s: %w: the state file is a symlink", op, clean, safefile.ErrUnsafe)
	case !mode.IsDir() && !mode.IsRegular():
		d.Close()
		return nil, fmt.Errorf("%s %s: %w", op, clean, safefile.ErrNotFile)
	}
	fi, err := os.Lstat(full)
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("%s %s: %w", op, clean, err)
	}
	return &stateFile{d: d, name: name, full: full, clean: clean, info: fi}, nil
}

// Close closes the state file's folder.
func (s *stateFile) Close() { s.d.Close() }

// read reads name in the state file's folder: regular files only, opened
// non-blocking without following a symlink, at most maxStateSize bytes
// (checked before reading), not binary.
func (s *stateFile) read(name string) ([]byte, error) {
	data, err := s.d.ReadFile(name, maxStateSize)
	if err != nil {
		return nil, err
	}
	head := data
	if len(head) > 8192 {
		head = head[:8192]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return nil, fmt.Errorf("%w: %s", safefile.ErrBinary, name)
	}
	return data, nil
}

// readBak reads the state file's .bak twin, bounded and non-blocking: had
// tells whether it exists. A .bak that is a symlink, a FIFO, a device or a
// folder is refused ("refusing to replace it"): nothing is written then.
func (s *stateFile) readBak() (data []byte, had bool, err error) {
	data, err = s.d.ReadFile(s.name+".bak", maxStateSize)
	switch {
	case err == nil:
		return data, true, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	}
	var refused *safefile.RefusedError
	if errors.As(err, &refused) {
		return nil, false, fmt.Errorf("%w; refusing to replace it", err)
	}
	return nil, false, fmt.Errorf("read the previous .bak: %w", err)
}

// resolveState checks that path names a file inside root (no escaping, no
// symlink leading out) and returns its full and clean relative forms.
func resolveState(root, path string) (full, clean string, err error) {
	if path == "" {
		return "", "", errors.New("update state: empty path")
	}
	rel := path
	if filepath.IsAbs(path) {
		r, err := filepath.Rel(root, path)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "", "", fmt.Errorf("update state %s: %w: outside the repository", path, safefile.ErrUnsafe)
		}
		rel = filepath.ToSlash(r)
	}
	clean, err = safefile.CheckPath(root, rel)
	if err != nil {
		return "", "", fmt.Errorf("update state: %w", err)
	}
	return filepath.Join(root, filepath.FromSlash(clean)), clean, nil
}

func isMarkdown(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".md", ".markdown", ".mdx":
		return true
	}
	return false
}

// patchState is the JSON or YAML state patch (statepatch.Patch); markdown
// progress files go to patchProgressState.
var patchState = statepatch.Patch

// stateHash is the hex sha256 of a state's content apart from the three
// fields a resume writes (statepatch.Hash; progress.StateHash for a
// markdown progress file).
func stateHash(path string, data []byte, wrappers []string) string {
	if isMarkdown(path) {
		return progressStateHash(data)
	}
	return statepatch.Hash(path, data, wrappers)
}

// markedActive reports whether a state file's status says active (as a
// resume leaves it).
func markedActive(path string, data []byte, wrappers []string) bool {
	if isMarkdown(path) {
		return bytes.Contains(data, []byte("active"))
	}
	return statepatch.MarkedActive(path, data, wrappers)
}
