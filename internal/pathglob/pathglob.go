// Package pathglob expands slash-separated glob patterns relative to a root
// folder. Patterns use path.Match syntax per segment, plus "**" for any number
// of folders. Expansion walks only below the pattern's literal prefix, never
// follows symlinked folders and never enters .git.
package pathglob

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Match reports whether the slash-separated name matches pattern.
func Match(pattern, name string) bool {
	return matchSegs(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			for i := 0; i <= len(name); i++ {
				if matchSegs(rest, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		ok, err := path.Match(pat[0], name[0])
		if err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
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
	pattern = strings.Trim(path.Clean("/"+filepath.ToSlash(pattern)), "/")
	if pattern == "" || pattern == "." {
		return nil
	}
	segs := strings.Split(pattern, "/")
	i := 0
	for i < len(segs) && !hasMeta(segs[i]) {
		i++
	}
	var out []Entry
	if i == len(segs) { // no wildcard: a single path
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(pattern)))
		if err == nil && fi.IsDir() == dirs && (dirs || fi.Mode().IsRegular()) {
			out = append(out, Entry{Path: pattern, IsDir: dirs})
		}
		return out
	}
	base := strings.Join(segs[:i], "/")
	start := root
	if base != "" {
		start = filepath.Join(root, filepath.FromSlash(base))
	}
	recursive := false
	for _, s := range segs[i:] {
		if s == "**" {
			recursive = true
		}
	}
	maxDepth := len(segs) - i
	// the walked paths are below the clean root: cutting it off is
	// filepath.Rel without its allocations (Rel stays the fallback)
	rootSep := filepath.Clean(root) + string(filepath.Separator)
	_ = filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && p != start {
				return fs.SkipDir
			}
			return nil
		}
		var rel string
		if len(p) > len(rootSep) && strings.HasPrefix(p, rootSep) {
			rel = filepath.ToSlash(p[len(rootSep):])
		} else {
			r, rerr := filepath.Rel(root, p)
			if rerr != nil {
				return nil
			}
			rel = filepath.ToSlash(r)
		}
		if p == start {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			depth := strings.Count(strings.TrimPrefix(rel, base+"/"), "/") + 1
			if base == "" {
				depth = strings.Count(rel, "/") + 1
			}
			if dirs && Match(pattern, rel) {
				out = append(out, Entry{Path: rel, IsDir: true})
			}
			if !recursive && depth >= maxDepth {
				return fs.SkipDir
			}
			return nil
		}
		if dirs {
			return nil
		}
		if !Match(pattern, rel) {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			fi, err := os.Stat(p)
			if err != nil || !fi.Mode().IsRegular() {
				// keep it: the reader reports the unsafe or broken link as a finding
				out = append(out, Entry{Path: rel})
				return nil
			}
		} else if !d.Type().IsRegular() {
			return nil
		}
		out = append(out, Entry{Path: rel})
		return nil
	})
	sort.Slice(out, func(a, b int) bool { return out[a].Path < out[b].Path })
	return out
}
