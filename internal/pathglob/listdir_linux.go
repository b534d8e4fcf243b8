//go:build linux

package pathglob

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/orchestrate-dev/orchestrate/internal/dirent"
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

// parseDirents appends the entries of one getdents64 buffer to out
// (internal/dirent reads the records: "." and ".." skipped, a malformed
// record ends the buffer), their types from d_type or, when the file
// system does not say, an lstat of the entry (one gone since is skipped).
func parseDirents(full string, buf []byte, out []DirEntry) ([]DirEntry, error) {
	var err error
	dirent.Records(buf, func(name []byte, dtype byte) bool {
		e := DirEntry{Name: string(name)}
		typ, known := dirent.Type(dtype)
		if !known {
			fi, lerr := os.Lstat(filepath.Join(full, e.Name))
			if os.IsNotExist(lerr) {
				return true // gone since the listing
			}
			if lerr != nil {
				err = lerr
				return false
			}
			typ = fi.Mode().Type()
		}
		e.Type = typ
		out = append(out, e)
		return true
	})
	return out, err
}
