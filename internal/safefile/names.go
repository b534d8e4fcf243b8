package safefile

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
)

// Names lists the names in d (without "." and ".."), in the order the
// file system gives them. It reads through a duplicate of d's descriptor,
// so d stays open and usable.
func (d *Dir) Names() ([]string, error) {
	var fd int
	err := retry(func() (e error) {
		fd, e = fastsys.Openat(d.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		return e
	})
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: d.full("."), Err: err}
	}
	f := os.NewFile(uintptr(fd), d.full("."))
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", d.full("."), err)
	}
	return names, nil
}
