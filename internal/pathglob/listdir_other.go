//go:build !linux

package pathglob

import (
	"os"
	"syscall"
)

// listDir lists the folder full without sorting: elsewhere than on Linux
// (listdir_linux.go) through os, opened with O_DIRECTORY so that a FIFO
// put there since it was listed never blocks, and O_NONBLOCK so that Go
// does not set and clear it around its try to poll the folder.
func listDir(full string) ([]dirEntry, error) {
	f, err := os.OpenFile(full, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	ents, err := f.ReadDir(-1)
	_ = f.Close()
	out := make([]dirEntry, 0, len(ents))
	for _, e := range ents {
		out = append(out, dirEntry{name: e.Name(), typ: e.Type()})
	}
	return out, err
}
