package source

import (
	"sync"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// Kept reads. One source may read a file whole that another source reads
// next: the epic source looks at every workflow-state file for an
// "epic_state" key, and the workflow-state source then reads the same files
// (1,000 state files of a 1,000-workflow repository were opened, stat'ed
// and read twice in every scan without a cache, and in a first run). The
// first may Keep the bytes it read for the one Kept that follows: the file
// is read once, and both sources see the same bytes. Only a scan keeps
// (between BeginBudget and EndBudget, which drops what no source took), and
// at most maxKeptBytes at once; past it the second source reads the file
// as before. Kept bytes are given as read: the taker draws them from the
// scan's budget (Spend) as its own read would have.

// maxKeptBytes bounds the bytes a scan holds for Kept (a state file is a
// few kilobytes; 1,000 of them are ~3 MB).
const maxKeptBytes = 8 << 20

// keptFiles is a scan's kept reads by repository-relative path.
type keptFiles struct {
	mu    sync.Mutex
	files map[string]keptFile
	bytes int
}

// keptFile is one kept read: the bytes, and the stat data of the file they
// were read from when the reader had it (withStat).
type keptFile struct {
	data     []byte
	fs       safefile.FileStat
	withStat bool
}

// Keep holds data, just read whole from the repository file p, for the next
// Kept(p) of this scan; fs, when not nil, is the stat data of the file as
// it was read (safefile.Dir.ReadRegular's). It reports whether the bytes
// are kept: not outside a scan, not past maxKeptBytes, and not when p is
// kept already.
func (r *Repo) Keep(p string, data []byte, fs *safefile.FileStat) bool {
	k := r.kept
	if k == nil {
		return false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.files[p]; ok || k.bytes+len(data) > maxKeptBytes {
		return false
	}
	f := keptFile{data: data}
	if fs != nil {
		f.fs, f.withStat = *fs, true
	}
	k.files[p] = f
	k.bytes += len(data)
	return true
}

// Kept gives, once, the bytes Keep holds for p: data and, when withStat,
// the stat data of the file they were read from. ok is false when nothing
// is kept for p (the caller reads the file).
func (r *Repo) Kept(p string) (data []byte, fs safefile.FileStat, withStat, ok bool) {
	k := r.kept
	if k == nil {
		return nil, fs, false, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	f, ok := k.files[p]
	if !ok {
		return nil, fs, false, false
	}
	delete(k.files, p)
	k.bytes -= len(f.data)
	return f.data, f.fs, f.withStat, true
}
