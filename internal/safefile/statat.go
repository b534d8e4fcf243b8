package safefile

import (
	"bytes"
	"time"

	"golang.org/x/sys/unix"

	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
)

// FileStat is what a stat of a file tells a stat-keyed cache (as git's
// index keeps it): a file whose FileStat is unchanged is taken to have
// unchanged content. Mtime and Ctime are in UTC.
type FileStat struct {
	Dev, Ino uint64
	Mode     uint32 // the st_mode bits: type and permissions
	Size     int64
	Mtime    time.Time
	Ctime    time.Time
}

// Regular reports whether the stat is a regular file's.
func (s FileStat) Regular() bool { return s.Mode&unix.S_IFMT == unix.S_IFREG }

// fileStat converts what stat(2) filled in.
func fileStat(st *unix.Stat_t) FileStat {
	msec, mnsec := st.Mtim.Unix()
	csec, cnsec := st.Ctim.Unix()
	return FileStat{
		Dev:   uint64(st.Dev),
		Ino:   uint64(st.Ino),
		Mode:  uint32(st.Mode),
		Size:  int64(st.Size),
		Mtime: time.Unix(msec, mnsec).UTC(),
		Ctime: time.Unix(csec, cnsec).UTC(),
	}
}

// StatNoFollow stats the file name directly inside d without following a
// symlink (fstatat with AT_SYMLINK_NOFOLLOW): a symlink, FIFO or folder is
// reported as itself (see FileStat.Regular), never opened. A missing name
// gives an error matching fs.ErrNotExist.
func (d *Dir) StatNoFollow(name string) (FileStat, error) {
	if err := checkName(name); err != nil {
		return FileStat{}, err
	}
	var st unix.Stat_t
	if err := retry(func() error { return fastsys.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return FileStat{}, err
	}
	return fileStat(&st), nil
}

// ReadRegular reads the regular file name directly inside d, opened with
// O_NOFOLLOW and without blocking, and returns its content with the stat
// of the open file. ok is false for anything but a clean read of a regular
// file of at most max bytes (max <= 0: no limit) with no NUL byte in its
// first 8 KiB (Read's binary test) that did not grow while read: the caller
// then reads the file its usual, fully checked way, which reports why.
// The data is a fresh buffer of its own.
func (d *Dir) ReadRegular(name string, max int64) (data []byte, fs FileStat, ok bool) {
	return d.ReadRegularInto(name, max, nil)
}

// ReadRegularInto is ReadRegular reading into buf when the file fits in
// its capacity (size+1 bytes: the read that hears the end), else into a
// fresh buffer: data then shares buf's array, and the caller must not keep
// views into data past its next use of buf (a reader's reused buffer).
func (d *Dir) ReadRegularInto(name string, max int64, buf []byte) (data []byte, fs FileStat, ok bool) {
	if checkName(name) != nil {
		return nil, FileStat{}, false
	}
	var fd int
	err := retry(func() (e error) {
		fd, e = fastsys.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		return e
	})
	if err != nil {
		return nil, FileStat{}, false
	}
	defer fastsys.Close(fd)
	var st unix.Stat_t
	if err := fastsys.Fstat(fd, &st); err != nil {
		return nil, FileStat{}, false
	}
	fs = fileStat(&st)
	if !fs.Regular() || fs.Size < 0 || (max > 0 && fs.Size > max) {
		return nil, FileStat{}, false
	}
	data, ok = readSizedInto(fd, fs.Size, buf)
	// a file that shrank while read: the stat is not the content's
	if !ok || int64(len(data)) != fs.Size || looksBinary(data) {
		return nil, FileStat{}, false
	}
	return data, fs, true
}

// readSized reads the open file fd, of size bytes by its fstat, into a
// fresh buffer, in a read asked for one byte more: a read that gives all
// size bytes is the end of a regular file, without a read just to hear it.
// ok is false on a read error and for a file that grew while read; one that
// shrank gives fewer bytes.
func readSized(fd int, size int64) (data []byte, ok bool) {
	return readSizedInto(fd, size, nil)
}

// readSizedInto is readSized reading into into when it has room for
// size+1 bytes.
func readSizedInto(fd int, size int64, into []byte) (data []byte, ok bool) {
	var buf []byte
	if int64(cap(into)) > size {
		buf = into[:size+1]
	} else {
		buf = make([]byte, size+1)
	}
	n := 0
	for {
		m, err := fastsys.Read(fd, buf[n:])
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err != nil {
			return nil, false
		}
		if m == 0 {
			break
		}
		n += m
		if n == len(buf) {
			return nil, false // grew while read
		}
		if int64(n) == size {
			break
		}
	}
	return buf[:n], true
}

// looksBinary is Read's binary test: a NUL byte in the first 8 KiB.
func looksBinary(data []byte) bool {
	head := data
	if len(head) > 8192 {
		head = head[:8192]
	}
	return bytes.IndexByte(head, 0) >= 0
}

// OpenSub opens the folder name directly inside d, without following a
// symlink: a symlink or anything but a folder is refused with
// *RefusedError, as OpenDir refuses it. Close it when done.
func (d *Dir) OpenSub(name string) (*Dir, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	return d.sub(name, false, 0)
}
