package openspec

// A change folder's listing (readChange asks it once per change).

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/orchestrate-dev/orchestrate/internal/pathglob"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// listChange lists a change folder, sorted by name, as os.Lstat then
// os.ReadDir did with one open fewer: ok is false when full is no folder
// (missing, a file, or a symlink, never followed); listed is false when
// the folder is there but could not be listed (its entries then unknown).
func listChange(full string) (ents []pathglob.DirEntry, listed, ok bool) {
	ents, err := pathglob.ListNoFollow(full)
	var pe *fs.PathError
	if err != nil && errors.As(err, &pe) && pe.Op == "open" {
		// ENOENT, ENOTDIR, ELOOP (a symlink): no folder; anything else
		// (a folder that cannot be read) as lstat says
		switch {
		case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.ELOOP):
			return nil, false, false
		}
		fi, lerr := os.Lstat(full)
		return nil, false, lerr == nil && fi.IsDir()
	}
	if err != nil {
		return nil, false, true // listed in part: as os.ReadDir's error, no entries
	}
	slices.SortFunc(ents, func(a, b pathglob.DirEntry) int { return strings.Compare(a.Name, b.Name) })
	return ents, true, true
}

// entryBufs are listFolder's getdents buffers (a change folder holds a
// few names: one small buffer each, reused).
var entryBufs = sync.Pool{New: func() any { b := make([]byte, 4<<10); return &b }}

// listFolder is listChange for a change folder already opened (a
// safefile.Dir is a folder, never a symlink: ok is true), listed through
// its descriptor: listed is false when the listing fails (its entries
// then unknown, as listChange says).
func listFolder(d *safefile.Dir) (ents []pathglob.DirEntry, listed, ok bool) {
	bp := entryBufs.Get().(*[]byte)
	defer entryBufs.Put(bp)
	err := d.ReadEntries(*bp, func(name []byte, typ fs.FileMode) {
		ents = append(ents, pathglob.DirEntry{Name: string(name), Type: typ})
	})
	if err != nil {
		return nil, false, true
	}
	slices.SortFunc(ents, func(a, b pathglob.DirEntry) int { return strings.Compare(a.Name, b.Name) })
	return ents, true, true
}
