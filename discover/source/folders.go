package source

import (
	"path"
	"strings"
	"sync"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// Folders opens the folders of the files a scan's cache reads, each once
// per scan, one component at a time without following a symlink
// (safefile.OpenDir under root), for any number of goroutines. The stat-
// keyed caches (story, workflow state, Kiro tasks) read through it.
type Folders struct {
	root string
	mu   sync.Mutex
	dirs map[string]*safefile.Dir // by folder; nil: cannot be opened without following a symlink
}

// NewFolders returns the folder set of the repository at root.
func NewFolders(root string) *Folders {
	return &Folders{root: root, dirs: map[string]*safefile.Dir{}}
}

// Of returns p's folder and p's name in it; the folder is nil when it
// cannot be opened that way (the file is then read the usual way).
func (f *Folders) Of(p string) (*safefile.Dir, string) {
	dir, name := ".", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir, name = p[:i], p[i+1:]
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dir(dir), name
}

// dir returns the folder dir, opening it once: inside its parent's open
// folder when dir is a clean relative path (one open for every folder
// below one already open: the specs of .kiro/specs/ are one open each, not
// four), else from the root (safefile.OpenDir, which refuses what it
// cannot clean). f.mu is held.
//
// Both ways open the same folder or refuse it: a clean path is opened
// from the root one component at a time, without following a symlink,
// which is what opening each component inside its parent does.
func (f *Folders) dir(dir string) *safefile.Dir {
	if d, ok := f.dirs[dir]; ok {
		return d
	}
	var d *safefile.Dir
	i := strings.LastIndexByte(dir, '/')
	if parentOpens(dir) {
		parent, base := ".", dir
		if i >= 0 {
			parent, base = dir[:i], dir[i+1:]
		}
		if p := f.dir(parent); p != nil {
			if sub, err := p.OpenSub(base); err == nil {
				d = sub
			}
		}
	} else if sub, err := safefile.OpenDir(f.root, dir, false); err == nil {
		d = sub
	}
	f.dirs[dir] = d
	return d
}

// Open opens the folder dir as Of opens a file's, without keeping it: the
// caller closes it (nil when it cannot be opened that way). Its parent is
// kept: the change or spec folders of one folder cost one open each, and
// no more of them are open at once than a scan's workers use, however
// many there are.
func (f *Folders) Open(dir string) *safefile.Dir {
	if !parentOpens(dir) {
		d, err := safefile.OpenDir(f.root, dir, false)
		if err != nil {
			return nil
		}
		return d
	}
	parent, base := ".", dir
	if i := strings.LastIndexByte(dir, '/'); i >= 0 {
		parent, base = dir[:i], dir[i+1:]
	}
	f.mu.Lock()
	p := f.dir(parent)
	f.mu.Unlock()
	if p == nil {
		return nil
	}
	d, err := p.OpenSub(base) // only reads p: safe beside other callers
	if err != nil {
		return nil
	}
	return d
}

// Close closes every folder opened; Of and Open must not be called after
// it.
func (f *Folders) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, d := range f.dirs {
		if d != nil {
			d.Close()
		}
	}
	f.dirs = nil
}

// parentOpens reports whether dir may be opened inside its parent: a
// clean relative path that safefile.OpenDir takes as it is (no "." or
// ".." component, no control character, backslash or drive letter), not
// the root itself.
func parentOpens(dir string) bool {
	if dir == "" || dir == "." || path.Clean(dir) != dir || strings.HasPrefix(dir, "/") || strings.ContainsAny(dir, "\x00\n\r\\") || (len(dir) > 1 && dir[1] == ':') {
		return false
	}
	return dir != ".." && !strings.HasPrefix(dir, "../")
}
