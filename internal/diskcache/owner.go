package diskcache

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// ownedPrivate checks that fi (of the cache folder when dir is set, else of
// a table) belongs to the user running orchestrate and that nobody else can
// write it: another user's cache could hold entries that lie.
func ownedPrivate(fi fs.FileInfo, dir bool) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return errors.New("cannot tell its owner")
	}
	if int(st.Uid) != os.Geteuid() {
		return errors.New("owned by another user")
	}
	if fi.Mode().Perm()&0o022 != 0 {
		if dir {
			return errors.New("writable by other users (chmod go-w)")
		}
		return errors.New("writable by other users")
	}
	return nil
}
