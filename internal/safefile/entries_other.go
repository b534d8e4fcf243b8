//go:build !linux

package safefile

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// readEntries is ReadEntries through (*os.File).ReadDir on a duplicate of
// d's descriptor, where getdents64 is not there.
func (d *Dir) readEntries(_ []byte, fn func(name []byte, typ fs.FileMode)) error {
	fd, err := unix.Dup(d.fd)
	if err != nil {
		return &os.PathError{Op: "dup", Path: d.full(""), Err: err}
	}
	f := os.NewFile(uintptr(fd), d.full(""))
	defer f.Close()
	ents, err := f.ReadDir(-1)
	for _, e := range ents {
		fn([]byte(e.Name()), e.Type())
	}
	return err
}
