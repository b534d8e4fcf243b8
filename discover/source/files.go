package source

import (
	"fmt"
	"path"
	"slices"
	"sort"
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
type FileSet struct {
	files   []workflow.RefFile
	index   map[string]int
	hint    int // the room to make on the first Add
	Dropped int
}

// NewFileSet returns a set holding files.
func NewFileSet(files []workflow.RefFile) *FileSet {
	s := &FileSet{index: make(map[string]int, len(files)), hint: len(files)}
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
	return &FileSet{index: make(map[string]int, n), hint: n}
}

// Add adds f with its path cleaned (refpath.Clean); a path already in the
// set merges into its entry.
func (s *FileSet) Add(f workflow.RefFile) {
	f.Path = refpath.CleanPath(f.Path)
	if f.Path == "" {
		return
	}
	if i, ok := s.index[f.Path]; ok {
		mergeFile(&s.files[i], f)
		return
	}
	if len(s.files) >= MaxFiles {
		s.Dropped++
		return
	}
	s.index[f.Path] = len(s.files)
	if s.files == nil && s.hint > 0 {
		s.files = make([]workflow.RefFile, 0, s.hint)
	}
	s.files = append(s.files, f)
}

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
	for _, f := range add {
		f.Path = refpath.CleanPath(f.Path)
		if f.Path == "" {
			continue
		}
		i, found := slices.BinarySearchFunc(out, f.Path, func(e workflow.RefFile, p string) int { return strings.Compare(e.Path, p) })
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
	SortFiles(s.files)
	return s.files
}

// SortFiles sorts files by path, keeping the order of equal paths.
func SortFiles(files []workflow.RefFile) {
	sort.SliceStable(files, func(i, j int) bool { return files[i].Path < files[j].Path })
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
