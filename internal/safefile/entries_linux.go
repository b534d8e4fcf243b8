package safefile

import (
	"encoding/binary"
	"io/fs"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readEntries is ReadEntries with getdents64 on d's descriptor: each
// record is struct linux_dirent64 (d_ino at 0, d_off at 8, d_reclen at
// 16, d_type at 18, the NUL-terminated name from 19). A record cut short
// ends the listing without an error, as it ends ReadDir's.
func (d *Dir) readEntries(buf []byte, fn func(name []byte, typ fs.FileMode)) error {
	const nameOff = 19
	for {
		var n int
		err := retry(func() (e error) {
			n, e = unix.Getdents(d.fd, buf)
			return e
		})
		if err != nil {
			return &os.PathError{Op: "readdirent", Path: d.full(""), Err: err}
		}
		if n <= 0 {
			return nil
		}
		for b := buf[:n]; len(b) > 0; {
			if len(b) < nameOff {
				return nil
			}
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < nameOff || reclen > len(b) {
				return nil
			}
			rec := b[:reclen]
			b = b[reclen:]
			name := rec[nameOff:]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			if string(name) == "." || string(name) == ".." {
				continue
			}
			typ, known := dtType(rec[18])
			if !known {
				t, gone, err := d.lstatType(unsafe.String(unsafe.SliceData(name), len(name)))
				if gone {
					continue // gone between the listing and the lstat: as if it never was
				}
				if err != nil {
					return err
				}
				typ = t
			}
			fn(name, typ)
		}
	}
}

// dtType is the type a getdents d_type says (os's dtToType); known is
// false for DT_UNKNOWN and anything else, which takes an lstat.
func dtType(t byte) (fs.FileMode, bool) {
	switch t {
	case unix.DT_BLK:
		return fs.ModeDevice, true
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case unix.DT_DIR:
		return fs.ModeDir, true
	case unix.DT_FIFO:
		return fs.ModeNamedPipe, true
	case unix.DT_LNK:
		return fs.ModeSymlink, true
	case unix.DT_REG:
		return 0, true
	case unix.DT_SOCK:
		return fs.ModeSocket, true
	}
	return 0, false
}
