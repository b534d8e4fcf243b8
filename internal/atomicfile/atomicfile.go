// Package atomicfile replaces files so that a reader (or a crash) sees either
// the old content or the new one, never a torn mix: the new bytes go to a
// temporary file in the same folder, are synced, and are renamed over the
// target, and the folder is synced so the rename itself is durable.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// Failpoint is a test hook: when set, Write calls it at the steps "write",
// "sync" and "rename" (before each) and fails with the error it returns. It
// is nil in production.
var Failpoint func(step string) error

func failpoint(step string) error {
	if Failpoint == nil {
		return nil
	}
	if err := Failpoint(step); err != nil {
		return fmt.Errorf("%s (injected): %w", step, err)
	}
	return nil
}

// Write atomically replaces path with data. The temporary file is
// ".<name>.tmp-<random>" in path's folder, created exclusively without
// following a symlink; it is written, fsynced, renamed over path within the
// folder (renameat on the folder's descriptor), and the folder is fsynced.
// An existing path that is a symlink, FIFO, device or folder is refused
// (nothing written). When path already exists its permission bits are kept
// (perm applies to a new file only). On any error the temporary file is
// removed and path is left as it was (unless the error comes from syncing
// the folder after the rename, which the message says). Write trusts path's
// folder; WriteConfined also confines the folder to a root.
func Write(path string, data []byte, perm os.FileMode) error {
	dir, name := filepath.Split(path)
	if name == "" {
		return fmt.Errorf("atomic write %q: no file name", path)
	}
	if dir == "" {
		dir = "."
	}
	d, err := safefile.OpenDir(dir, ".", false)
	if err != nil {
		return fmt.Errorf("atomic write %s: %w", path, err)
	}
	defer d.Close()
	return writeIn(d, name, path, path, data, perm)
}

// WriteConfined atomically replaces root/rel (rel slash-separated and
// relative) as Write does, with every folder of rel reached without
// following a symlink (missing folders are created, 0o755): a symlinked
// folder or file, a FIFO or a device anywhere on the way is refused with a
// *safefile.RefusedError and nothing is written.
func WriteConfined(root, rel string, data []byte, perm os.FileMode) error {
	d, name, err := safefile.OpenParent(root, rel, true)
	if err != nil {
		return fmt.Errorf("atomic write %s: %w", rel, err)
	}
	defer d.Close()
	return WriteIn(d, name, data, perm)
}

// WriteIn atomically replaces the file name directly inside the confined
// folder d, as Write does: for a caller that already holds the folder (a
// state file and its .bak twin written through one descriptor).
func WriteIn(d *safefile.Dir, name string, data []byte, perm os.FileMode) error {
	shown := name
	if d.Rel() != "." {
		shown = d.Rel() + "/" + name
	}
	return writeIn(d, name, d.Path(name), shown, data, perm)
}

// writeIn is the atomic replacement of name inside the open folder d; label
// names the file in messages, shown in a refusal.
func writeIn(d *safefile.Dir, name, label, shown string, data []byte, perm os.FileMode) (err error) {
	if mode, _, serr := d.Lstat(name); serr == nil {
		if !mode.IsRegular() {
			what := "is not a regular file"
			if mode&fs.ModeSymlink != 0 {
				what = "is a symlink"
			}
			return fmt.Errorf("atomic write %s: %w", label, &safefile.RefusedError{Path: shown, What: what, Kind: kindOf(mode)})
		}
		perm = mode.Perm()
	} else if !errors.Is(serr, fs.ErrNotExist) {
		return fmt.Errorf("atomic write %s: %w", label, serr)
	}
	perm = perm.Perm()

	var f *os.File
	var tmp string
	for i := 0; i < 10; i++ {
		var rnd [8]byte
		_, _ = rand.Read(rnd[:])
		tmp = "." + name + ".tmp-" + hex.EncodeToString(rnd[:])
		f, err = d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("atomic write %s: create temporary file: %w", label, err)
	}
	closed := false
	defer func() {
		if err != nil {
			if !closed {
				_ = f.Close()
			}
			_ = d.Remove(tmp)
		}
	}()

	if err = failpoint("write"); err != nil {
		return fmt.Errorf("atomic write %s: %w", label, err)
	}
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("atomic write %s: write: %w", label, err)
	}
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("atomic write %s: chmod: %w", label, err)
	}
	if err = failpoint("sync"); err != nil {
		return fmt.Errorf("atomic write %s: %w", label, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("atomic write %s: sync: %w", label, err)
	}
	closed = true
	if err = f.Close(); err != nil {
		return fmt.Errorf("atomic write %s: close: %w", label, err)
	}
	if err = failpoint("rename"); err != nil {
		return fmt.Errorf("atomic write %s: %w", label, err)
	}
	if err = d.Rename(tmp, d, name); err != nil {
		return fmt.Errorf("atomic write %s: rename: %w", label, err)
	}
	if serr := d.Sync(); serr != nil {
		// the rename happened (the temporary name is gone); report the
		// durability problem so the caller can roll back
		return fmt.Errorf("atomic write %s: written, but syncing the folder failed: %w", label, serr)
	}
	return nil
}

func kindOf(mode fs.FileMode) error {
	if mode&fs.ModeSymlink != 0 {
		return safefile.ErrSymlink
	}
	return safefile.ErrNotFile
}

// SyncDir fsyncs a folder so that entries created, renamed or removed in it
// are durable. File systems that cannot sync a folder (EINVAL, ENOTSUP) are
// not an error.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open folder %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
			return nil
		}
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	return nil
}
