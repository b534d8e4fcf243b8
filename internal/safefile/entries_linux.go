package safefile

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// readEntries is ReadEntries with getdents64 on d's descriptor
// (direntRecords reads its records).
func (d *Dir) readEntries(buf []byte, fn func(name []byte, typ fs.FileMode)) error {
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
		var lerr error
		complete := direntRecords(buf[:n], func(name []byte, dtype byte) bool {
			typ, known := dtType(dtype)
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

// direntRecords calls fn with the name and d_type of each linux_dirent64
// record in b (d_ino at 0, d_off at 8, d_reclen at 16, d_type at 18, the
// NUL-terminated name from 19) but "." and "..", until fn returns false;
// it reports whether every record was whole and fn never said stop. A
// record cut short or of an impossible length ends it (ReadDir ends its
// listing there, without an error).
func direntRecords(b []byte, fn func(name []byte, dtype byte) bool) bool {
	const nameOff = 19
	for len(b) > 0 {
		if len(b) < nameOff {
			return false
		}
		reclen := int(binary.NativeEndian.Uint16(b[16:18]))
		if reclen < nameOff || reclen > len(b) {
			return false
		}
		rec := b[:reclen]
		b = b[reclen:]
		name := rec[nameOff:]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if string(name) == "." || string(name) == ".." {
			continue
		}
		if !fn(name, rec[18]) {
			return false
		}
	}
	return true
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
