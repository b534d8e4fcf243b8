package safefile

import (
	"os"

	"golang.org/x/sys/unix"
)

// RemoveEmptyDir removes the empty folder name directly inside d (never
// following a symlink: a symlink or a non-empty folder is an error). A
// missing name gives an error matching fs.ErrNotExist.
func (d *Dir) RemoveEmptyDir(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	err := retry(func() error { return unix.Unlinkat(d.fd, name, unix.AT_REMOVEDIR) })
	if err != nil {
		if err == unix.ENOENT {
			err = os.ErrNotExist
		}
		return &os.PathError{Op: "rmdir", Path: d.full(name), Err: err}
	}
	return nil
}
