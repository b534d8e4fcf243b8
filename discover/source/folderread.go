package source

import (
	"encoding/binary"
	"sync"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// Kiro's spec folders and OpenSpec's change folders are each opened once
// (Folders.Open: inside their open parent, without following a symlink),
// listed through that descriptor, and their few small files read through
// it too: with the cache or without, one open per folder and one per file,
// none of the per-path checks (an lstat of every folder above the file) a
// read by path costs. ReadParseIn reads such a file into a reused buffer and
// hands it to the parser, which copies out what it keeps.

// readBufs are ReadParseIn's buffers: a spec or change folder's files are
// small (a tasks.md of a few KiB), one buffer a worker, reused.
var readBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// maxPooledBuf bounds a buffer given back to readBufs: one large file does
// not keep its buffer for the rest of the run.
const maxPooledBuf = 256 << 10

// GetReadBuf gives a reused read buffer (ReadRegularIn's); PutReadBuf
// gives it back once nothing reads its bytes any more.
func GetReadBuf() *[]byte { return readBufs.Get().(*[]byte) }

// PutReadBuf gives back a buffer of GetReadBuf (dropped when a large file
// made it large).
func PutReadBuf(bp *[]byte) {
	if cap(*bp) <= maxPooledBuf {
		readBufs.Put(bp)
	}
}

// ReadRegularIn reads the regular file p, named by its last element in its
// folder d, into the buffer *bp (grown into a larger one when it does not
// fit), as safefile.Dir.ReadRegularInto reads it (O_NOFOLLOW, no FIFO
// waited on, bounded by the configured size, no binary file), and draws it
// from the scan's budget (Repo.Spend). done is false when it must be read
// the usual way (d nil, a symlink, a FIFO, a file too large or binary, a
// read error: the usual read reports why); err is the budget's. data is
// *bp's: the caller copies what it keeps before the buffer's next use.
func ReadRegularIn(r *Repo, d *safefile.Dir, p string, bp *[]byte) (data []byte, fs safefile.FileStat, done bool, err error) {
	if d == nil {
		return nil, safefile.FileStat{}, false, nil
	}
	data, fs, ok := d.ReadRegularInto(BaseName(p), r.Config.MaxFileSize, (*bp)[:0])
	if !ok {
		return nil, safefile.FileStat{}, false, nil
	}
	if cap(data) > cap(*bp) {
		*bp = data[:0] // a larger file: its buffer serves the next
	}
	if err := r.Spend(p, data); err != nil {
		return nil, fs, true, err // as r.ReadWithTime refuses it
	}
	return data, fs, true, nil
}

// ReadParseIn reads the file p (in its folder d, nil when the folder could
// not be opened that way) as r.ReadWithTime reads it and gives parse its
// bytes: through d when ReadRegularIn can (the time the open file's
// modification time), else with r.ReadWithTime, which reports why. The
// bytes handed to parse are a reused buffer's, written again after parse
// returns: parse must copy what it keeps (a string conversion does). parse
// is not called when the read fails; err is then the read's error.
func ReadParseIn[T any](r *Repo, d *safefile.Dir, p string, parse func(data []byte) T) (out T, mt time.Time, err error) {
	if d != nil {
		bp := GetReadBuf()
		defer PutReadBuf(bp)
		data, fs, done, err := ReadRegularIn(r, d, p, bp)
		switch {
		case done && err != nil:
			return out, fs.Mtime, err
		case done:
			return parse(data), fs.Mtime, nil
		}
	}
	data, mt, err := r.ReadWithTime(p)
	if err != nil {
		return out, mt, err
	}
	return parse(data), mt, nil
}

// OpenFolder opens the repository's folder dir as Folders.Open does (the
// caller closes it); nil when f is nil or dir cannot be opened that way.
func (f *Folders) OpenFolder(dir string) *safefile.Dir {
	if f == nil {
		return nil
	}
	return f.Open(dir)
}

// AppendStat appends the stat data a stat-keyed entry depends on (device,
// inode, mode, size, modification and change times to the nanosecond) to
// b: a draft cache's key names each document it read by these.
func AppendStat(b []byte, fs safefile.FileStat) []byte {
	b = binary.LittleEndian.AppendUint64(b, fs.Dev)
	b = binary.LittleEndian.AppendUint64(b, fs.Ino)
	b = binary.LittleEndian.AppendUint32(b, fs.Mode)
	b = binary.LittleEndian.AppendUint64(b, uint64(fs.Size))
	b = binary.LittleEndian.AppendUint64(b, uint64(fs.Mtime.UnixNano()))
	return binary.LittleEndian.AppendUint64(b, uint64(fs.Ctime.UnixNano()))
}

// DirStat is a folder's stat, taken once for the few caches that key on
// it (a listing's and a draft's): its zero value holds none.
type DirStat struct {
	st  safefile.FileStat
	set bool
}

// Set records the folder's stat.
func (d *DirStat) Set(st safefile.FileStat) { d.st, d.set = st, true }

// Get is the recorded stat; ok is false when none was: a stat taken after
// the folder was listed may already describe another listing (a cache
// keyed on it could then give a wrong hit), so a caller takes none then.
func (d *DirStat) Get() (st safefile.FileStat, ok bool) { return d.st, d.set }
