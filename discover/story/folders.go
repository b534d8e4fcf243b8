package story

import (
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// storyFolders are the folders one scan worker has open to read its story
// files by name (openat: no path resolved again for every file, one
// system call fewer than a stat then an open by path): the story cache's
// look-ups and reads, and the reads of a scan without the cache.
type storyFolders struct {
	openRoot func() (*safefile.Dir, error) // opens the repository's root
	// dirs are the open folders from the root down to the current one:
	// dirs[i+1] is names[i] inside dirs[i]; cur is the current folder (nil
	// when it could not be opened without following a symlink), curRel its
	// path
	dirs   []*safefile.Dir
	names  []string
	cur    *safefile.Dir
	curRel string
	opened bool
}

// closeFrom closes dirs[i:].
func (w *storyFolders) closeFrom(i int) {
	for _, d := range w.dirs[i:] {
		d.Close()
	}
	clear(w.dirs[i:])
	w.dirs = w.dirs[:i]
}

// folder returns p's folder, opened one component at a time without
// following a symlink (safefile.OpenDir's confinement), and p's file name;
// nil when it cannot be opened that way. The folders stay open for the
// next path: from one folder to its sibling is one open.
func (w *storyFolders) folder(p string) (*safefile.Dir, string) {
	dir, name := "", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir, name = p[:i], p[i+1:]
	}
	if w.opened && dir == w.curRel {
		return w.cur, name
	}
	w.opened, w.curRel, w.cur = true, dir, nil
	if len(w.dirs) == 0 {
		root, err := w.openRoot()
		if err != nil {
			return nil, name
		}
		w.dirs, w.names = append(w.dirs, root), w.names[:0]
	}
	var parts []string
	if dir != "" {
		parts = strings.Split(dir, "/")
	}
	k := 0 // the folders already open: dirs[:k+1]
	for k < len(parts) && k < len(w.names) && k+1 < len(w.dirs) && parts[k] == w.names[k] {
		k++
	}
	w.closeFrom(k + 1)
	for _, part := range parts[k:] {
		d, err := w.dirs[len(w.dirs)-1].OpenSub(part)
		if err != nil {
			w.names = parts[:len(w.dirs)-1]
			return nil, name
		}
		w.dirs = append(w.dirs, d)
	}
	w.names = parts
	w.cur = w.dirs[len(w.dirs)-1]
	return w.cur, name
}
