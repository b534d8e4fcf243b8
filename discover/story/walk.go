package story

import (
	"cmp"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/orchestrate-dev/orchestrate/discover/source"
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
// or one of its folders (dir, its name) walked whole.
type storyWalkUnit struct {
	files []string
	dir   string
	hits  []storyHit // what it found (a folder's: in path order)
}

// storyWalkChunk is how many of the start folder's files make one unit,
// and how many entries of it are listed at a time.
const storyWalkChunk = 128

// storyWalk finds and reads the stories of the pattern base/**/name
// (storyWalkPattern) below r.Root: the paths in order, and for each the
// story (nil: not a story) and whether it was readable, as storyGlob and
// storyReadAll give them. The story cache arrives on sc (nil: none) and is
// saved at the end. The start folder is listed a share at a time, each
// share handed to the workers as it is listed: the stories are read while
// the rest of a folder of 10,000 of them is listed.
func storyWalk(r *source.Repo, base, name string, sc <-chan *storyCache) (paths []string, out []*workflow.Story, readable []bool) {
	start := r.Root
	if base != "" {
		start = filepath.Join(r.Root, filepath.FromSlash(base))
	}
	todo := make(chan *storyWalkUnit, 64)
	var wg sync.WaitGroup
	var cache *storyCache
	cacheReady := make(chan struct{})
	go func() { cache = <-sc; close(cacheReady) }()
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var rd *storyReader // made at the first unit, once the cache is open
			defer func() {
				if rd != nil {
					rd.done()
				}
			}()
			for u := range todo {
				if rd == nil {
					<-cacheReady
					rd = newStoryReader(r, cache)
				}
				if u.dir == "" {
					u.hits = make([]storyHit, len(u.files))
					for k, n := range u.files {
						p := join(base, n)
						st, ok := rd.read(p)
						u.hits[k] = storyHit{p, st, ok}
					}
					continue
				}
				rel := join(base, u.dir)
				u.hits = storyWalkDir(rd, filepath.Join(start, u.dir), rel, name, nil)
				slices.SortFunc(u.hits, func(a, b storyHit) int { return strings.Compare(a.p, b.p) })
			}
		}()
	}
	var fileUnits, dirUnits []*storyWalkUnit
	if fi, err := os.Lstat(start); err == nil && fi.IsDir() {
		if f, err := os.Open(start); err == nil {
			var files []string
			send := func() {
				u := &storyWalkUnit{files: files}
				fileUnits = append(fileUnits, u)
				todo <- u
				files = nil
			}
			for {
				// the start folder keeps what it listed, as the glob's did
				ents, err := f.ReadDir(storyWalkChunk)
				for _, e := range ents {
					n := e.Name()
					switch {
					case e.IsDir():
						if n != ".git" && n != "spec" { // a spec folder's files are not stories (storyInSpecFolder)
							u := &storyWalkUnit{dir: n}
							dirUnits = append(dirUnits, u)
							todo <- u
						}
					case storyWalkMatch(name, n, e.Type()):
						files = append(files, n)
						if len(files) == storyWalkChunk {
							send()
						}
					}
				}
				if err != nil || len(ents) == 0 {
					break
				}
			}
			_ = f.Close()
			if len(files) > 0 {
				send()
			}
		}
	}
	close(todo)
	wg.Wait()
	<-cacheReady
	cache.save()

	// in path order: the start folder's stories sorted, a folder's paths
	// ("a/x") after the stories before "a/" and before the ones after it
	var own []storyHit
	for _, u := range fileUnits {
		own = append(own, u.hits...)
	}
	slices.SortFunc(own, func(a, b storyHit) int { return strings.Compare(a.p, b.p) })
	slices.SortFunc(dirUnits, func(a, b *storyWalkUnit) int { return compareFolders(a.dir, b.dir) })
	n := len(own)
	for _, u := range dirUnits {
		n += len(u.hits)
	}
	paths = make([]string, 0, n)
	out = make([]*workflow.Story, 0, n)
	readable = make([]bool, 0, n)
	add := func(hits []storyHit) {
		for _, h := range hits {
			paths = append(paths, h.p)
			out = append(out, h.st)
			readable = append(readable, h.readable)
		}
	}
	for _, u := range dirUnits {
		if len(u.hits) == 0 {
			continue
		}
		k := 0
		for k < len(own) && own[k].p < u.hits[0].p {
			k++
		}
		add(own[:k])
		own = own[k:]
		add(u.hits)
	}
	add(own)
	return paths, out, readable
}

// storyWalkDir walks the folder full (at slash path rel) below the start
// folder: its matching files read with rd and added to hits, its folders
// walked in turn. A folder that cannot be listed has no matches.
func storyWalkDir(rd *storyReader, full, rel, name string, hits []storyHit) []storyHit {
	f, err := os.Open(full)
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

// compareFolders compares a+"/" with b+"/" (the order of the paths below
// two folders: "a-b/x" < "a/x" though "a" < "a-b") without building them.
func compareFolders(a, b string) int {
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	switch {
	case len(a) == len(b):
		return 0
	case len(a) < len(b):
		if c := cmp.Compare('/', b[n]); c != 0 {
			return c
		}
		return -1
	default:
		if c := cmp.Compare(a[n], '/'); c != 0 {
			return c
		}
		return 1
	}
}
