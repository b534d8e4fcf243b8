// Package atomicfile replaces files so that a reader (or a crash) sees either
// the old content or the new one, never a torn mix: the new bytes go to a
// temporary file in the same folder, are synced, and are renamed over the
// target, and the folder is synced so the rename itself is durable.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
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
// ".<name>.tmp-<random>" in path's folder; it is written, fsynced, renamed
// over path, and the folder is fsynced. When path already exists its
// permission bits are kept (perm applies to a new file only). On any error the
// temporary file is removed and path is left as it was (unless the error
// comes from syncing the folder after the rename, which the message says).
func Write(path string, data []byte, perm os.FileMode) (err error) {
	dir, name := filepath.Split(path)
	if name == "" {
		return fmt.Errorf("atomic write %q: no file name", path)
	}
	if dir == "" {
		dir = "."
	}
	if fi, serr := os.Stat(path); serr == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("atomic write %s: not a regular file", path)
		}
		perm = fi.Mode().Perm()
	} else if !errors.Is(serr, fs.ErrNotExist) {
		return fmt.Errorf("atomic write %s: %w", path, serr)
	}
	perm = perm.Perm()

	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return fmt.Errorf("atomic write %s: create temporary file: %w", path, err)
	}
	tmp := f.Name()
	closed := false
	defer func() {
		if err != nil {
			if !closed {
				_ = f.Close()
			}
			_ = os.Remove(tmp)
		}
	}()

	if err = failpoint("write"); err != nil {
		return fmt.Errorf("atomic write %s: %w", path, err)
	}
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("atomic write %s: write: %w", path, err)
	}
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("atomic write %s: chmod: %w", path, err)
	}
	if err = failpoint("sync"); err != nil {
		return fmt.Errorf("atomic write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("atomic write %s: sync: %w", path, err)
	}
	closed = true
	if err = f.Close(); err != nil {
		return fmt.Errorf("atomic write %s: close: %w", path, err)
	}
	if err = failpoint("rename"); err != nil {
		return fmt.Errorf("atomic write %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("atomic write %s: rename: %w", path, err)
	}
	if serr := SyncDir(dir); serr != nil {
		// the rename happened (the temporary name is gone); report the
		// durability problem so the caller can roll back
		return fmt.Errorf("atomic write %s: written, but syncing the folder failed: %w", path, serr)
	}
	return nil
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
