package story

import (
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/pathglob"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// The story walk lists the story folders and reads their stories in one
// pass, for the usual story glob: one pattern "P/**/S" (a literal folder,
// any folders below it, a file name pattern; the default
// docs/stories/**/*.md). storyGlob then storyReadAll listed every folder
// first and read the stories after: the start folder (10,000 stories in
// the bench's stories shape) was listed and matched on one processor while
// the other waited, and no story was read before the last folder was
// listed. Here the start folder is listed, and its stories and its
// folders are then shared out to the workers, each reading the stories of
// the folders it lists as it lists them.
//
// What it finds is what pathglob.Expand finds for the pattern, with
// storyGlob's "spec" folders left out, in the same order (TestStoryWalk
// compares them): the same listings (os.Open and ReadDir of each folder, a
// folder that cannot be listed has no matches but the start folder keeps
// what it listed), folders entered by their listed type (a symbolic link is
// never followed), .git never entered, regular files and symbolic links
// matched by their name against S. Each story is read as storyReadAll reads
// it.
//
// When the start folder is reached from the root without a symlink, each
// folder is opened once, through its parent's descriptor, listed through
// its own (safefile.Dir.ReadEntries: the same entries and types as ReadDir,
// no os.File, no string or DirEntry per entry) and its stories are read
// through it (storyLister.walk); else each folder is listed by its path
// and its stories read through storyFolders (storyWalkDir), as before.

// storyWalkPattern reports whether patterns is one pattern the story walk
// takes, and gives its literal folder (slash, "" for the root), the file
// name pattern. Every folder the walk lists is below the literal ones, so
// a "spec" folder it meets is one storyGlob leaves out (storyInSpecFolder).
func storyWalkPattern(patterns []string) (base, name string, ok bool) {
	if len(patterns) != 1 || strings.ContainsRune(patterns[0], '\\') {
		return "", "", false
	}
	clean := strings.Trim(path.Clean("/"+patterns[0]), "/")
	segs := strings.Split(clean, "/")
	n := len(segs)
	if n < 2 || segs[n-2] != "**" || !hasGlobMeta(segs[n-1]) || strings.Contains(segs[n-1], "**") {
		return "", "", false
	}
	if _, err := path.Match(segs[n-1], ""); err != nil {
		return "", "", false // a bad pattern matches nothing: left to the glob
	}
	for _, s := range segs[:n-2] {
		if hasGlobMeta(s) {
			return "", "", false
		}
	}
	return strings.Join(segs[:n-2], "/"), segs[n-1], true
}

// hasGlobMeta reports whether a pattern segment has a wildcard (pathglob's
// rule).
func hasGlobMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// storyHit is one file the walk matched: its path and what reading it gave.
type storyHit struct {
	p        string
	st       *workflow.Story
	readable bool
}

// storyWalkUnit is a share of the walk: files of the start folder (names),
// or one of its folders (dir, its slash path) walked whole.
type storyWalkUnit struct {
	files []string
	dir   string
	name  string     // dir's last element
	hits  []storyHit // what it found, in path order
}

// storyWalkChunk is how many of the start folder's files make one unit.
const storyWalkChunk = 128

// storyWalk finds and reads the stories of the pattern base/**/name
// (storyWalkPattern) below r.Root: the paths in order, and for each the
// story (nil: not a story) and whether it was readable, as storyGlob and
// storyReadAll give them. The story cache arrives on sc (nil: none) and is
// saved at the end.
func storyWalk(r *source.Repo, base, name string, sc <-chan *storyCache) (paths []string, out []*workflow.Story, readable []bool) {
	start := r.Root
	if base != "" {
		start = filepath.Join(r.Root, filepath.FromSlash(base))
	}
	var files, dirs []string
	// the start folder, when it is reached from the root one component at
	// a time without a symlink (safefile.OpenDir): its folders and stories
	// are then opened and read through it and the folders below
	// (storyWalkIn); else (a symlink on the way, which the usual read
	// follows inside the repository) by their paths, as before
	var startDir *safefile.Dir
	if fi, err := os.Lstat(start); err == nil && fi.IsDir() {
		if d, err := safefile.OpenDir(r.Root, base, false); err == nil {
			startDir = d
			defer d.Close()
			// the start folder keeps what it listed
			_ = d.ReadEntries(make([]byte, safefile.EntryBufSize), func(nb []byte, typ os.FileMode) {
				n := unsafe.String(unsafe.SliceData(nb), len(nb)) // only for the call
				switch {
				case typ.IsDir():
					if n != ".git" && n != "spec" {
						dirs = append(dirs, string(nb))
					}
				case storyWalkMatch(name, n, typ):
					files = append(files, string(nb))
				}
			})
		} else if f, err := openFolder(start); err == nil {
			ents, _ := f.ReadDir(-1) // the start folder keeps what it listed
			_ = f.Close()
			for _, e := range ents {
				n := e.Name()
				switch {
				case e.IsDir():
					if n != ".git" && n != "spec" { // a spec folder's files are not stories (storyInSpecFolder)
						dirs = append(dirs, n)
					}
				case storyWalkMatch(name, n, e.Type()):
					files = append(files, n)
				}
			}
		}
	}
	slices.Sort(files)
	slices.SortFunc(dirs, pathglob.CompareDirs)
	units := make([]storyWalkUnit, 0, len(files)/storyWalkChunk+1+len(dirs))
	// in path order: a folder's paths ("a/x") come after the files before
	// "a/" and before the ones after it
	fi := 0
	flush := func(upTo int) {
		for fi < upTo {
			end := min(upTo, fi+storyWalkChunk)
			units = append(units, storyWalkUnit{files: files[fi:end]})
			fi = end
		}
	}
	for _, d := range dirs {
		flush(fi + sortSearch(files[fi:], d+"/"))
		units = append(units, storyWalkUnit{dir: join(base, d), name: d})
	}
	flush(len(files))

	cache := <-sc
	var next atomic.Int64
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), len(units))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rd := newStoryReader(r, cache)
			defer rd.done()
			var l storyLister
			sd := startDir // the start folder, on a descriptor of this worker's own
			if sd != nil {
				if own, err := sd.Reopen(); err == nil {
					sd = own
					defer own.Close()
				}
			}
			for {
				i := int(next.Add(1) - 1)
				if i >= len(units) {
					return
				}
				u := &units[i]
				if u.dir == "" {
					ps := make([]string, len(u.files))
					for k, n := range u.files {
						ps[k] = join(base, n)
					}
					u.hits = make([]storyHit, 0, len(u.files))
					if sd != nil {
						u.hits = rd.readAllIn(sd, u.files, ps, u.hits)
						continue
					}
					for _, p := range ps {
						st, ok := rd.read(p)
						u.hits = append(u.hits, storyHit{p, st, ok})
					}
					continue
				}
				if sd != nil {
					u.hits = l.walk(rd, sd, u.name, u.dir, name, u.hits)
				} else {
					u.hits = storyWalkDir(rd, filepath.Join(r.Root, filepath.FromSlash(u.dir)), u.dir, name, u.hits)
				}
				slices.SortFunc(u.hits, func(a, b storyHit) int { return strings.Compare(a.p, b.p) })
			}
		}()
	}
	wg.Wait()
	cache.save()
	n := 0
	for i := range units {
		n += len(units[i].hits)
	}
	paths = make([]string, 0, n)
	out = make([]*workflow.Story, 0, n)
	readable = make([]bool, 0, n)
	for i := range units {
		for _, h := range units[i].hits {
			paths = append(paths, h.p)
			out = append(out, h.st)
			readable = append(readable, h.readable)
		}
	}
	return paths, out, readable
}

// storyWalkDir walks the folder full (at slash path rel) below the start
// folder: its matching files read with rd and added to hits, its folders
// walked in turn. A folder that cannot be listed has no matches.
func storyWalkDir(rd *storyReader, full, rel, name string, hits []storyHit) []storyHit {
	f, err := openFolder(full)
	if err != nil {
		return hits
	}
	ents, err := f.ReadDir(-1)
	_ = f.Close()
	if err != nil {
		return hits
	}
	for _, e := range ents {
		n := e.Name()
		switch {
		case e.IsDir():
			if n != ".git" && n != "spec" {
				hits = storyWalkDir(rd, filepath.Join(full, n), rel+"/"+n, name, hits)
			}
		case storyWalkMatch(name, n, e.Type()):
			p := rel + "/" + n
			st, ok := rd.read(p)
			hits = append(hits, storyHit{p, st, ok})
		}
	}
	return hits
}

// storyLister is one walk worker's listing state (storyWalkIn): the
// getdents buffer, and the entries of the folders being walked, a stack
// (a folder's entries above its parent's, their names in names).
type storyLister struct {
	buf   []byte
	ents  []storyEnt
	names []byte
	// files are the paths of the files of the folders being walked not
	// read yet (a stack, as ents), fnames the names of the run being read
	files  []string
	fnames []string
}

// storyMaxPath is PATH_MAX on Linux: the length from which a path given
// to open(2) is refused (ENAMETOOLONG), and the walk goes no deeper.
const storyMaxPath = 4096

// storyEnt is a listed entry the walk takes: its name (names[start:end]),
// and whether it is a folder to walk (else a file to read).
type storyEnt struct {
	start, end int
	dir        bool
}

// walk is storyWalkDir of the folder dirName inside parent (at slash path
// rel below the root): the folder is opened through parent without
// following a symlink (safefile.Dir.OpenSub) and listed through its own
// descriptor (safefile.Dir.ReadEntries: no os.File, no string or DirEntry
// per entry), its matching files read through it (storyReader.readIn: no
// path resolved again for each), its folders walked in turn. Same
// listing, same order, same matches as storyWalkDir; a folder that cannot
// be opened or listed has no matches.
func (l *storyLister) walk(rd *storyReader, parent *safefile.Dir, dirName, rel, pat string, hits []storyHit) []storyHit {
	if len(rd.r.Root)+1+len(rel) >= storyMaxPath {
		// storyWalkDir opens a folder by its full path, which the system
		// refuses from PATH_MAX on: no deeper here either (an open through
		// the parent has no such bound, and a tree made deep on purpose
		// would hold a descriptor per level)
		return hits
	}
	d, err := parent.OpenSub(dirName)
	if err != nil {
		return hits
	}
	defer d.Close()
	if l.buf == nil {
		l.buf = make([]byte, safefile.EntryBufSize)
	}
	e0, n0 := len(l.ents), len(l.names)
	err = d.ReadEntries(l.buf, func(nb []byte, typ os.FileMode) {
		n := unsafe.String(unsafe.SliceData(nb), len(nb)) // only for the call
		var dir bool
		switch {
		case typ.IsDir():
			if n == ".git" || n == "spec" {
				return
			}
			dir = true
		case !storyWalkMatch(pat, n, typ):
			return
		}
		start := len(l.names)
		l.names = append(l.names, nb...)
		l.ents = append(l.ents, storyEnt{start, len(l.names), dir})
	})
	end := len(l.ents)
	if err == nil {
		// the files are read in runs between the folders (readAllIn: with
		// the cache, looked up ahead), in the listing's order
		f0 := len(l.files)
		flush := func() {
			if run := l.files[f0:]; len(run) > 0 {
				l.fnames = l.fnames[:0]
				for _, p := range run {
					l.fnames = append(l.fnames, p[len(rel)+1:])
				}
				hits = rd.readAllIn(d, l.fnames, run, hits)
				clear(run)
				l.files = l.files[:f0]
			}
		}
		for i := e0; i < end; i++ {
			e := l.ents[i] // l.ents grows in the walk below: indexed anew
			p := rel + "/" + string(l.names[e.start:e.end])
			if e.dir {
				flush()
				hits = l.walk(rd, d, p[len(rel)+1:], p, pat, hits)
				continue
			}
			l.files = append(l.files, p)
		}
		flush()
	}
	l.ents, l.names = l.ents[:e0], l.names[:n0]
	return hits
}

// storyWalkMatch reports whether a listed entry that is not a folder, of
// type typ, is a match of the file name pattern pat: a regular file or a
// symbolic link (the reader reports an unsafe one) whose name matches.
func storyWalkMatch(pat, n string, typ os.FileMode) bool {
	if typ&os.ModeSymlink == 0 && !typ.IsRegular() {
		return false
	}
	if len(pat) > 1 && pat[0] == '*' && !hasGlobMeta(pat[1:]) {
		// "*.md": a star matches any run of characters but '/', which no
		// listed name holds
		return strings.HasSuffix(n, pat[1:])
	}
	ok, err := path.Match(pat, n)
	return err == nil && ok
}

// join is the slash path name below rel ("" is the root).
func join(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}

// sortSearch is the index of the first of the sorted names not before s.
func sortSearch(names []string, s string) int {
	i, _ := slices.BinarySearch(names, s)
	return i
}

// openFolder opens the folder full to list it: never through a symbolic
// link put there since it was listed as a folder (O_NOFOLLOW), never a FIFO
// (O_DIRECTORY), and without the poller's four fcntl calls around the open
// (O_NONBLOCK: 500 folders a run on the specs shape).
func openFolder(full string) (*os.File, error) {
	return os.OpenFile(full, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
