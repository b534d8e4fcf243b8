//go:build !linux

package pathglob

import (
	"os"
	"syscall"
)

// listDir lists the folder full without sorting: elsewhere than on Linux
// (listdir_linux.go) through os, opened with O_DIRECTORY so that a FIFO
// put there since it was listed never blocks (with noFollow, nor a
// symlink followed), and O_NONBLOCK so that Go
// does not set and clear it around its try to poll the folder.
func listDir(full string, noFollow bool) ([]DirEntry, error) {
	flags := os.O_RDONLY | syscall.O_DIRECTORY | syscall.O_NONBLOCK
	if noFollow {
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(full, flags, 0)
	if err != nil {
		return nil, err
	}
	ents, err := f.ReadDir(-1)
	_ = f.Close()
	out := make([]DirEntry, 0, len(ents))
	for _, e := range ents {
		out = append(out, DirEntry{Name: e.Name(), Type: e.Type()})
	}
	return out, err
}
