package source

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Stem is the file name without its extension (and without a leading dot).
func Stem(file string) string {
	base := path.Base(strings.ReplaceAll(file, `\`, "/"))
	if i := strings.LastIndex(base, "."); i > 0 {
		base = base[:i]
	}
	base = strings.TrimLeft(base, ".")
	if base == "" {
		base = "state"
	}
	return base
}

// MaxFiles bounds the referenced files one state file contributes.
const MaxFiles = 20000

// FileSet collects referenced files, one entry per cleaned path: a path
// seen twice stays critical / produced if either reference says so. It holds
// at most MaxFiles entries and counts the ones it drops.
//
// The lists state files write are usually in path order already: while
// the files added keep that order (up to maxOrderedInserts placed in
// between) the set stays sorted, looks a path up by binary search and
// needs no index and no sort; past that it indexes its paths in a map
// and sorts when asked.
type FileSet struct {
	files   []workflow.RefFile
	index   map[string]int // nil while files is sorted by path
	inserts int            // the files placed in between while sorted
	hint    int            // the room to make on the first Add
	Dropped int
}

// maxOrderedInserts is how many files added out of order a sorted set
// places in between (moving the ones after) before it indexes its paths.
const maxOrderedInserts = 16

// NewFileSet returns a set holding files.
func NewFileSet(files []workflow.RefFile) *FileSet {
	s := &FileSet{hint: len(files)}
	for _, f := range files {
		s.Add(f)
	}
	return s
}

// NewFileSetFor returns an empty set with room for about n files (the
// lists a state file gives, counted before they are added: a set grown one
// file at a time rehashed its index ten times for 300 files).
func NewFileSetFor(n int) *FileSet {
	n = min(max(n, 0), MaxFiles)
	return &FileSet{hint: n}
}

// Add adds f with its path cleaned (refpath.Clean); a path already in the
// set merges into its entry.
func (s *FileSet) Add(f workflow.RefFile) {
	f.Path = refpath.CleanPath(f.Path)
	if f.Path == "" {
		return
	}
	if s.index != nil {
		if i, ok := s.index[f.Path]; ok {
			mergeFile(&s.files[i], f)
			return
		}
		if len(s.files) >= MaxFiles {
			s.Dropped++
			return
		}
		s.index[f.Path] = len(s.files)
		s.files = append(s.files, f)
		return
	}
	n := len(s.files)
	i, found := n, false
	if n > 0 && s.files[n-1].Path >= f.Path {
		i, found = slices.BinarySearchFunc(s.files, f.Path, comparePath)
	}
	if found {
		mergeFile(&s.files[i], f)
		return
	}
	if n >= MaxFiles {
		s.Dropped++
		return
	}
	if s.files == nil && s.hint > 0 {
		s.files = make([]workflow.RefFile, 0, s.hint)
	}
	switch {
	case i == n:
		s.files = append(s.files, f)
	case s.inserts < maxOrderedInserts:
		s.inserts++
		s.files = slices.Insert(s.files, i, f)
	default: // out of order too often: index the paths, sort when asked
		s.index = make(map[string]int, max(s.hint, n+1))
		for j := range s.files {
			s.index[s.files[j].Path] = j
		}
		s.index[f.Path] = n
		s.files = append(s.files, f)
	}
}

// comparePath orders a file by its path against the path p.
func comparePath(e workflow.RefFile, p string) int { return strings.Compare(e.Path, p) }

// WithFiles returns files with add added, as a set holding files then
// add gives them (NewFileSet, Add, Sorted). When files is already such a
// set's output — paths clean, non-empty and strictly increasing, at most
// MaxFiles — each of the few added files is merged or inserted in place
// (a binary search) instead of every file being cleaned and indexed again
// (a workflow state's 300 files, for its one story). files is not
// changed.
func WithFiles(files, add []workflow.RefFile) []workflow.RefFile {
	if len(files) == 0 || !cleanSorted(files) {
		set := NewFileSet(files)
		for _, f := range add {
			set.Add(f)
		}
		return set.Sorted()
	}
	out := make([]workflow.RefFile, len(files), len(files)+len(add))
	copy(out, files)
	return mergeSorted(out, add)
}

// AddToSorted is WithFiles for files that are a set's output (Sorted,
// Finish) and belong to the caller: that is not checked (WithFiles checks
// every path), and files is changed: merged into, and inserted into when
// its capacity allows.
func AddToSorted(files, add []workflow.RefFile) []workflow.RefFile {
	if len(files) == 0 {
		return WithFiles(files, add)
	}
	return mergeSorted(files, add)
}

// mergeSorted merges or inserts each of add into out, whose paths are
// clean, non-empty and strictly increasing (WithFiles).
func mergeSorted(out, add []workflow.RefFile) []workflow.RefFile {
	for _, f := range add {
		f.Path = refpath.CleanPath(f.Path)
		if f.Path == "" {
			continue
		}
		i, found := slices.BinarySearchFunc(out, f.Path, comparePath)
		if found {
			mergeFile(&out[i], f)
			continue
		}
		if len(out) >= MaxFiles {
			continue // dropped, as Add drops it
		}
		out = slices.Insert(out, i, f)
	}
	return out
}

// cleanSorted reports whether files's paths are clean (refpath.CleanPath
// leaves them as they are), non-empty and strictly increasing, and there
// are at most MaxFiles of them.
func cleanSorted(files []workflow.RefFile) bool {
	if len(files) > MaxFiles {
		return false
	}
	for i := range files {
		p := files[i].Path
		if p == "" || (i > 0 && files[i-1].Path >= p) || refpath.CleanPath(p) != p {
			return false
		}
	}
	return true
}

// mergeFile merges f into e, an entry of the same path (see Add).
func mergeFile(e *workflow.RefFile, f workflow.RefFile) {
	e.Critical = e.Critical || f.Critical
	e.Produced = e.Produced || f.Produced
	if e.Hash == "" {
		e.Hash = f.Hash
	}
	if e.Phase == "" {
		e.Phase = f.Phase
	}
}

// Sorted returns the files sorted by path.
func (s *FileSet) Sorted() []workflow.RefFile {
	if s.index != nil {
		SortFiles(s.files) // the paths are distinct: any sort gives the one order
		s.index = nil      // sorted again: found by binary search
	}
	return s.files
}

// SortFiles sorts files by path, keeping the order of equal paths.
func SortFiles(files []workflow.RefFile) {
	slices.SortStableFunc(files, func(a, b workflow.RefFile) int { return strings.Compare(a.Path, b.Path) })
}

// FileList reads a list of referenced files into set: paths, {path,
// hash|blob} mappings, or a mapping of lists (created/modified; deleted ones
// skipped).
func FileList(f *Fields, set *FileSet, key string, v any, phase string) {
	add := func(p, hash string) {
		set.Add(workflow.RefFile{Path: p, Phase: phase, Hash: hash, From: key})
	}
	switch t := v.(type) {
	case nil:
	case []any:
		for _, it := range t {
			switch x := it.(type) {
			case map[string]any:
				p := f.Str(x, "path", "file", "name")
				if p == "" {
					f.Wrong(key+"[]", "a mapping with a path", x)
					continue
				}
				add(p, f.Str(x, "hash", "blob", "sha", "blob_hash", "git_hash"))
			default:
				s, ok := tolerant.ScalarString(x)
				if !ok {
					f.Wrong(key+"[]", "a path", x)
					continue
				}
				add(s, "")
			}
		}
	case map[string]any:
		keys := SortedKeys(t)
		for _, k := range keys {
			switch Norm(k) {
			case "deleted", "removed":
				continue
			}
			switch x := t[k].(type) {
			case []any:
				FileList(f, set, key+"."+k, x, phase)
			case string:
				if refpath.LooksLikePath(x) {
					add(x, "")
				} else {
					f.Wrong(key+"."+k, "a list of paths", x)
				}
			default:
				f.Wrong(key+"."+k, "a list of paths", x)
			}
		}
	default:
		if s, ok := tolerant.ScalarString(t); ok && refpath.LooksLikePath(s) {
			add(s, "")
			return
		}
		f.Wrong(key, "a list of paths", v)
	}
}

// Finish sets c.Files to the set's files, sorted, and adds a warning to c
// when the set dropped files beyond MaxFiles (file is the state file).
func (s *FileSet) Finish(c *workflow.Candidate, file string) {
	if s.Dropped > 0 {
		c.Findings = append(c.Findings, workflow.Finding{
			Check: workflow.CheckParse, Severity: workflow.Warning, Code: "too-many-files", Path: file,
			Message: fmt.Sprintf("%d referenced files beyond the first %d were ignored", s.Dropped, MaxFiles),
		})
	}
	c.Files = s.Sorted()
}

// Detach copies the strings ps point to into one allocation of their own
// and points each at its copy: a candidate kept for the run then holds
// only its own text, never the whole file (or cached value) it was parsed
// from, whose substrings they were (discover/kiro's and discover/openspec's
// settle).
func Detach(ps []*string) {
	n := 0
	for _, p := range ps {
		n += len(*p)
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range ps {
		b.WriteString(*p)
	}
	all := b.String()
	for _, p := range ps {
		*p, all = all[:len(*p)], all[len(*p):]
	}
}
