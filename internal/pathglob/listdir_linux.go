//go:build linux

package pathglob

import (
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// direntBufs are listDir's getdents buffers, shared by the walks.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// listDir lists the folder full without sorting, as (*os.File).ReadDir
// does on Linux (with noFollow, a symlink there is not followed: an error),
// with fewer system calls: the folder is opened with
// O_DIRECTORY (a FIFO put there since it was listed never blocks) and
// read with getdents64 directly, never handed to Go's poller (whose try
// to register a folder fails, one epoll_ctl a folder). Each entry's type
// comes from d_type, without following a symlink; when the file system
// does not fill it in (DT_UNKNOWN) the entry is lstat'ed, and one gone
// since the listing is skipped, as os does. On an error the entries read
// so far are returned with it.
func listDir(full string, noFollow bool) ([]DirEntry, error) {
	flags := syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_CLOEXEC
	if noFollow {
		flags |= syscall.O_NOFOLLOW
	}
	var fd int
	var err error
	for {
		fd, err = syscall.Open(full, flags, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: full, Err: err}
	}
	defer syscall.Close(fd)
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var out []DirEntry
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return out, &fs.PathError{Op: "readdirent", Path: full, Err: err}
		}
		if n <= 0 {
			return out, nil
		}
		var stop error
		out, stop = parseDirents(full, buf[:n], out)
		if stop != nil {
			return out, stop
		}
	}
}

// linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen (2), d_type (1),
// d_name (NUL-terminated), the same on every Linux architecture.
const (
	direntReclen = 16
	direntType   = 18
	direntName   = 19
)

// parseDirents appends the entries of one getdents64 buffer to out,
// skipping "." and "..". A malformed record ends the buffer.
func parseDirents(full string, buf []byte, out []DirEntry) ([]DirEntry, error) {
	for len(buf) >= direntName {
		reclen := int(binary.NativeEndian.Uint16(buf[direntReclen:]))
		if reclen < direntName || reclen > len(buf) {
			break
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		name := rec[direntName:]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		e := DirEntry{Name: string(name)}
		switch rec[direntType] {
		case syscall.DT_DIR:
			e.Type = fs.ModeDir
		case syscall.DT_REG:
			e.Type = 0
		case syscall.DT_LNK:
			e.Type = fs.ModeSymlink
		case syscall.DT_FIFO:
			e.Type = fs.ModeNamedPipe
		case syscall.DT_SOCK:
			e.Type = fs.ModeSocket
		case syscall.DT_CHR:
			e.Type = fs.ModeDevice | fs.ModeCharDevice
		case syscall.DT_BLK:
			e.Type = fs.ModeDevice
		default: // DT_UNKNOWN (or a type this code does not know): ask
			fi, err := os.Lstat(filepath.Join(full, e.Name))
			if os.IsNotExist(err) {
				continue // gone since the listing
			}
			if err != nil {
				return out, err
			}
			e.Type = fi.Mode().Type()
		}
		out = append(out, e)
	}
	return out, nil
}
