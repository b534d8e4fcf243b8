package source

import (
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
	d, ok := f.dirs[dir]
	if !ok {
		var err error
		if d, err = safefile.OpenDir(f.root, dir, false); err != nil {
			d = nil
		}
		f.dirs[dir] = d
	}
	return d, name
}

// Close closes every folder opened; Of must not be called after it.
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
