// Package pathglob expands slash-separated glob patterns relative to a root
// folder. Patterns use path.Match syntax per segment, plus "**" for any number
// of folders. Expansion walks only below the pattern's literal prefix, never
// follows symlinked folders and never enters .git.
package pathglob

import (
	"cmp"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Match reports whether the slash-separated name matches pattern.
func Match(pattern, name string) bool {
	return matchFrom(strings.Split(pattern, "/"), name, true)
}

// matchFrom reports whether the segments of name (none when more is false;
// "" is one empty segment) match the pattern segments pat, without
// splitting name.
func matchFrom(pat []string, name string, more bool) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			for {
				if matchFrom(rest, name, more) {
					return true
				}
				if !more {
					return false
				}
				name, more = nextSeg(name)
			}
		}
		if !more {
			return false
		}
		seg := name
		if j := strings.IndexByte(name, '/'); j >= 0 {
			seg = name[:j]
		}
		if !matchSeg(pat[0], seg) {
			return false
		}
		name, more = nextSeg(name)
		pat = pat[1:]
	}
	return !more
}

// nextSeg is name without its first segment, and whether any is left.
func nextSeg(name string) (string, bool) {
	j := strings.IndexByte(name, '/')
	if j < 0 {
		return "", false
	}
	return name[j+1:], true
}

// matchSeg reports whether the one segment name matches the segment pattern
// pat (path.Match; a literal pattern compares without it).
func matchSeg(pat, name string) bool {
	if !hasMeta(pat) {
		return pat == name
	}
	ok, err := path.Match(pat, name)
	return err == nil && ok
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// Entry is one match of Expand.
type Entry struct {
	Path  string // slash-separated, relative to the root
	IsDir bool
}

// Expand returns the entries below root matching pattern, sorted by path.
// With dirs false only regular files (and symlinks to them) are returned;
// with dirs true only folders. Errors reading folders are skipped: a folder
// that cannot be listed has no matches.
func Expand(root, pattern string, dirs bool) []Entry {
	out := expand(root, pattern, dirs)
	if !slices.IsSortedFunc(out, compareEntries) { // walkAll's usually are
		slices.SortFunc(out, compareEntries)
	}
	return out
}

// expand is Expand without the final sort.
func expand(root, pattern string, dirs bool) []Entry {
	pattern = strings.Trim(path.Clean("/"+filepath.ToSlash(pattern)), "/")
	if pattern == "" || pattern == "." {
		return nil
	}
	segs := strings.Split(pattern, "/")
	i := 0
	for i < len(segs) && !hasMeta(segs[i]) {
		i++
	}
	if i == len(segs) { // no wildcard: a single path
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(pattern)))
		if err == nil && fi.IsDir() == dirs && (dirs || fi.Mode().IsRegular()) {
			return []Entry{{Path: pattern, IsDir: dirs}}
		}
		return nil
	}
	base := strings.Join(segs[:i], "/")
	start := root
	if base != "" {
		start = filepath.Join(root, filepath.FromSlash(base))
	}
	x := expander{segs: segs, dirs: dirs}
	for _, s := range segs[i:] {
		if s == "**" {
			x.recursive = true
		}
	}
	// segment i holds a wildcard: the walk lists start, opened without
	// following a symlink (missing, a file, or a symlink: no match)
	x.walk(start, base, i, true)
	return x.out
}

// expander is one Expand's walk. A pattern without "**" is matched one
// segment per folder level: a folder whose name does not match its segment
// is not entered, and a literal segment is one lstat rather than a listing
// of the folder (the listing of thousands of story folders to find their
// "spec" subfolder). A "**" pattern lists every folder below the prefix
// and matches each path whole.
type expander struct {
	segs      []string // the cleaned pattern's segments
	dirs      bool     // folders, not files
	recursive bool     // the pattern has a "**"
	out       []Entry
}

// walk visits the folder full, at rel (slash, relative to the root; ""
// for the root itself), whose entries face pattern segment k (when not
// recursive). start is the walk's first folder: a listing error there
// still yields the entries read, as filepath.WalkDir did; a folder below it
// that cannot be listed has no matches.
func (x *expander) walk(full, rel string, k int, start bool) {
	if !x.recursive && !hasMeta(x.segs[k]) {
		x.literal(full, rel, k)
		return
	}
	ents, err := listDir(full, start) // unsorted: Expand sorts its matches
	if err != nil && (!start || ents == nil) {
		return
	}
	last := k == len(x.segs)-1
	var subs []dirRef // the start folder's folders to walk, shared out at the end
	for _, e := range ents {
		name := e.Name
		if !x.recursive && !matchSeg(x.segs[k], name) {
			continue
		}
		childRel := join(rel, name)
		if e.Type.IsDir() {
			if name == ".git" {
				continue
			}
			if x.dirs && (!x.recursive && last || x.recursive && matchFrom(x.segs, childRel, true)) {
				x.out = append(x.out, Entry{Path: childRel, IsDir: true})
			}
			if x.recursive || !last {
				sub := dirRef{filepath.Join(full, name), childRel}
				if start {
					subs = append(subs, sub)
				} else {
					x.walk(sub.full, sub.rel, k+1, false)
				}
			}
			continue
		}
		if x.dirs || (!x.recursive && !last) || (x.recursive && !matchFrom(x.segs, childRel, true)) {
			continue
		}
		x.file(e.Type, childRel)
	}
	if start {
		x.walkAll(subs, k+1)
	}
}

// DirEntry is one entry of a folder's listing (ListNoFollow): its name
// and type bits (fs.FileMode.Type), never following a symlink.
type DirEntry struct {
	Name string
	Type fs.FileMode
}

// ListNoFollow lists the folder full, unsorted, without following a
// symlink at full itself (an error then, as for a file or a missing
// folder); the entries' types never follow one either. On Linux it costs
// one open, the getdents64 calls and one close, the folder never handed
// to Go's poller. On an error the entries read so far are returned with
// it.
func ListNoFollow(full string) ([]DirEntry, error) { return listDir(full, true) }

// dirRef is a folder to walk: its path and its slash path below the root.
type dirRef struct{ full, rel string }

// walkAll walks the folders subs (whose entries face segment k) with one
// worker per CPU, each with its own matches. The folders are taken in path
// order (a folder's paths all start with its name and a '/') and each one's
// matches sorted by its worker, so that they join the start folder's own
// matches already sorted: Expand's sort is then one check, not a sort of
// 20,000 paths while the other CPUs wait.
func (x *expander) walkAll(subs []dirRef, k int) {
	workers := min(runtime.GOMAXPROCS(0), len(subs))
	if runtime.GOMAXPROCS(0) < 2 {
		for _, d := range subs {
			x.walk(d.full, d.rel, k, false)
		}
		return
	}
	slices.SortFunc(subs, func(a, b dirRef) int { return CompareDirs(a.rel, b.rel) })
	blocks := make([][]Entry, len(subs)) // the matches below subs[i], sorted
	parts := make([]expander, workers)
	var next atomic.Int64
	work := func(e *expander) {
		for i := int(next.Add(1) - 1); i < len(subs); i = int(next.Add(1) - 1) {
			from := len(e.out)
			e.walk(subs[i].full, subs[i].rel, k, false)
			// a later append may move e.out: the block keeps the old array
			blocks[i] = e.out[from:len(e.out):len(e.out)]
			slices.SortFunc(blocks[i], compareEntries)
		}
	}
	var wg sync.WaitGroup
	for w := range parts {
		parts[w] = expander{segs: x.segs, dirs: x.dirs, recursive: x.recursive}
		if workers == 1 {
			work(&parts[w]) // one folder (an OpenSpec change's specs/*): no goroutine
			continue
		}
		wg.Add(1)
		go func(e *expander) {
			defer wg.Done()
			work(e)
		}(&parts[w])
	}
	wg.Wait()
	own := x.out // the start folder's own matches
	slices.SortFunc(own, compareEntries)
	n := len(own)
	for _, b := range blocks {
		n += len(b)
	}
	if n == len(own) {
		return // nothing below the folders
	}
	x.out = make([]Entry, 0, n)
	for _, b := range blocks {
		if len(b) == 0 {
			continue
		}
		for len(own) > 0 && own[0].Path < b[0].Path {
			x.out, own = append(x.out, own[0]), own[1:]
		}
		x.out = append(x.out, b...)
	}
	x.out = append(x.out, own...)
}

// compareEntries orders entries by path.
func compareEntries(a, b Entry) int { return strings.Compare(a.Path, b.Path) }

// CompareDirs compares a+"/" with b+"/" (the order of the paths below two
// folders: "a-b/x" < "a/x" though "a" < "a-b") without building them.
func CompareDirs(a, b string) int {
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	switch {
	case len(a) == len(b):
		return 0
	case len(a) < len(b): // "/" against b[n:]+"/", longer
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

// literal looks up the literal segment k below the folder full (at rel)
// with one lstat. Like a listing it never follows a symlink to a folder,
// but on a case-insensitive file system it finds the name in any case, as
// Expand's literal prefix always did.
func (x *expander) literal(full, rel string, k int) {
	name := x.segs[k]
	childFull := filepath.Join(full, name)
	fi, err := os.Lstat(childFull)
	if err != nil {
		return
	}
	childRel := join(rel, name)
	last := k == len(x.segs)-1
	switch {
	case fi.IsDir():
		if name == ".git" {
			return
		}
		if !last {
			x.walk(childFull, childRel, k+1, false)
		} else if x.dirs {
			x.out = append(x.out, Entry{Path: childRel, IsDir: true})
		}
	case x.dirs || !last:
	default:
		x.file(fi.Mode().Type(), childRel)
	}
}

// file adds the matched non-folder rel of type typ: a regular file, or a
// symlink whatever it leads to (the reader reports an unsafe or broken link
// as a finding); anything else (a device, a FIFO) is no match.
func (x *expander) file(typ fs.FileMode, rel string) {
	if typ&fs.ModeSymlink != 0 || typ.IsRegular() {
		x.out = append(x.out, Entry{Path: rel})
	}
}

// join is the slash path name below rel ("" is the root).
func join(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}
