package safefile

import (
	"io/fs"
	"os"

	"github.com/orchestrate-dev/orchestrate/internal/dirent"
	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
)

// readEntries is ReadEntries with getdents64 on d's descriptor
// (internal/dirent reads its records).
func (d *Dir) readEntries(buf []byte, fn func(name []byte, typ fs.FileMode)) error {
	for {
		var n int
		err := retry(func() (e error) {
			n, e = fastsys.Getdents(d.fd, buf)
			return e
		})
		if err != nil {
			return &os.PathError{Op: "readdirent", Path: d.full(""), Err: err}
		}
		if n <= 0 {
			return nil
		}
		var lerr error
		complete := dirent.Records(buf[:n], func(name []byte, dtype byte) bool {
			typ, known := dirent.Type(dtype)
			if !known {
				t, gone, err := d.lstatType(string(name))
				if gone {
					return true // gone between the listing and the lstat: as if it never was
				}
				if err != nil {
					lerr = err
					return false
				}
				typ = t
			}
			fn(name, typ)
			return true
		})
		if lerr != nil {
			return lerr
		}
		if !complete {
			return nil
		}
	}
}
