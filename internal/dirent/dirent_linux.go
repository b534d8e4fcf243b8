//go:build linux

package dirent

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"syscall"
)

// linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen (2), d_type (1),
// d_name (NUL-terminated), the same on every Linux architecture.
const (
	reclenOff = 16
	typeOff   = 18
	nameOff   = 19
)

// Records calls fn with the name and d_type of each linux_dirent64 record
// of b, a buffer getdents64 filled, but "." and ".." (and an empty name,
// which no folder holds), until fn returns false; it reports whether every
// record was whole and fn never said stop. A record cut short or of an
// impossible length ends the buffer, as os's ReadDir ends its listing
// there, without an error. name is a view of b.
func Records(b []byte, fn func(name []byte, dtype byte) bool) bool {
	for len(b) > 0 {
		if len(b) < nameOff {
			return false
		}
		reclen := int(binary.NativeEndian.Uint16(b[reclenOff:]))
		if reclen < nameOff || reclen > len(b) {
			return false
		}
		rec := b[:reclen]
		b = b[reclen:]
		name := rec[nameOff:]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		if !fn(name, rec[typeOff]) {
			return false
		}
	}
	return true
}

// Type is the type a d_type says, as os gives it (fs.FileMode's type
// bits); known is false for DT_UNKNOWN and anything else, which the caller
// learns with an lstat (never following the entry).
func Type(dtype byte) (typ fs.FileMode, known bool) {
	switch dtype {
	case syscall.DT_BLK:
		return fs.ModeDevice, true
	case syscall.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case syscall.DT_DIR:
		return fs.ModeDir, true
	case syscall.DT_FIFO:
		return fs.ModeNamedPipe, true
	case syscall.DT_LNK:
		return fs.ModeSymlink, true
	case syscall.DT_REG:
		return 0, true
	case syscall.DT_SOCK:
		return fs.ModeSocket, true
	}
	return 0, false
}
