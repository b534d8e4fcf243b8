package pathglob

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		pat, name string
		want      bool
	}{
		{"docs/stories/**/*.md", "docs/stories/1.1.a.md", true},
		{"docs/stories/**/*.md", "docs/stories/epic1/1.1.a.md", true},
		{"docs/stories/**/*.md", "docs/stories/a/b/c.md", true},
		{"docs/stories/**/*.md", "docs/other/c.md", false},
		{".aiox/epic-*-state.yaml", ".aiox/epic-ACT-state.yaml", true},
		{".aiox/epic-*-state.yaml", ".aiox/x/epic-ACT-state.yaml", false},
		{"qa/*/loop-status.json", "qa/2.1/loop-status.json", true},
		{"qa/*/loop-status.json", "qa/loop-status.json", false},
		{"progress.md", "progress.md", true},
		{"[", "[", false},
	}
	for _, tt := range tests {
		if got := Match(tt.pat, tt.name); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pat, tt.name, got, tt.want)
		}
	}
}

func TestExpand(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"docs/stories/1.1.a.md", "docs/stories/e/2.1.b.md", "docs/stories/e/spec/x.md", "docs/specs/login/spec.md", "qa/loop-status.json", "qa/2.1/loop-status.json", ".git/x.md", "docs/stories/.git/y.md"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	paths := func(es []Entry) []string {
		var s []string
		for _, e := range es {
			s = append(s, e.Path)
		}
		return s
	}
	if got, want := paths(Expand(root, "docs/stories/**/*.md", false)), []string{"docs/stories/1.1.a.md", "docs/stories/e/2.1.b.md", "docs/stories/e/spec/x.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("stories = %v, want %v", got, want)
	}
	if got, want := paths(Expand(root, "qa/*/loop-status.json", false)), []string{"qa/2.1/loop-status.json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("qa = %v, want %v", got, want)
	}
	if got, want := paths(Expand(root, "qa/loop-status.json", false)), []string{"qa/loop-status.json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("literal = %v, want %v", got, want)
	}
	if got, want := paths(Expand(root, "docs/specs/*", true)), []string{"docs/specs/login"}; !reflect.DeepEqual(got, want) {
		t.Errorf("dirs = %v, want %v", got, want)
	}
	if got, want := paths(Expand(root, "docs/stories/*/spec", true)), []string{"docs/stories/e/spec"}; !reflect.DeepEqual(got, want) {
		t.Errorf("spec dirs = %v, want %v", got, want)
	}
	if got := Expand(root, "missing/*.md", false); len(got) != 0 {
		t.Errorf("missing = %v", got)
	}
}

// expandReference is Expand as it was before its own walker: a
// filepath.WalkDir below the literal prefix and a whole-path Match of
// every entry. TestExpandMatchesReference holds Expand to it.
func expandReference(root, pattern string, dirs bool) []Entry {
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
	if i == len(segs) {
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
	_ = filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && p != start {
				return fs.SkipDir
			}
			return nil
		}
		r, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return nil
		}
		rel := filepath.ToSlash(r)
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
			if dirs && matchReference(pattern, rel) {
				out = append(out, Entry{Path: rel, IsDir: true})
			}
			if !recursive && depth >= maxDepth {
				return fs.SkipDir
			}
			return nil
		}
		if dirs || !matchReference(pattern, rel) {
			return nil
		}
		if d.Type()&fs.ModeSymlink == 0 && !d.Type().IsRegular() {
			return nil
		}
		out = append(out, Entry{Path: rel})
		return nil
	})
	sort.Slice(out, func(a, b int) bool { return out[a].Path < out[b].Path })
	return out
}

// matchReference is Match as it was: both split, path.Match per segment.
func matchReference(pattern, name string) bool {
	var match func(pat, name []string) bool
	match = func(pat, name []string) bool {
		for len(pat) > 0 {
			if pat[0] == "**" {
				for i := 0; i <= len(name); i++ {
					if match(pat[1:], name[i:]) {
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
	return match(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

// globPatterns are the patterns the equivalence tests try: the default
// sources' ones and odd ones.
var globPatterns = []string{
	"docs/stories/**/*.md", "docs/stories/*/spec", "docs/specs/*", "docs/stories/*.md",
	"*", "**", "**/*.md", "*/*", "*/*/*", "docs/*/*/x.md", "docs/**/spec", "docs/**",
	"qa/*/loop-status.json", "qa/loop-status.json", ".git/*", "*/.git", "docs/stories/*/.git",
	"docs/stories/*/.git/*", "docs/stories/*/link/*", "docs/stories/*/filelink", "docs/stories/*/dirlink",
	"docs/stories/*/fifo", "docs/stories/[", "docs/stories/[/x", "a\\*/b", "docs/stories/e*/spec/*.md",
	"docs/stories/*/spec/x.md", "docs/stories/e/*/x.md", "**/.git", "missing/*", "docs/stories/1.1.a.md/*",
	"", ".", "/", "../docs/*", "docs/./stories/*", "docs//stories/*", "./docs/stories/**",
}

// TestCompareDirs checks CompareDirs against comparing the built strings.
func TestCompareDirs(t *testing.T) {
	names := []string{"", "a", "a-b", "a.b", "a/b", "a0", "ab", "a~", "b", "é", "a/"}
	for _, a := range names {
		for _, b := range names {
			if got, want := CompareDirs(a, b), strings.Compare(a+"/", b+"/"); got != want {
				t.Errorf("CompareDirs(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func TestMatchMatchesReference(t *testing.T) {
	names := []string{"", "a", "a/b", "a//b", "/a", "a/", "docs/stories/x.md", "docs/stories/e/spec/x.md",
		"docs/stories/e/spec", "qa/2.1/loop-status.json", ".git", "x/.git/y", "[", "**", "a/b/c/d/e"}
	for _, p := range append(globPatterns, "a/**/**/e", "**/b/**", "a/**", "a/*/", "a//b", "/a") {
		for _, n := range names {
			if got, want := Match(p, n), matchReference(p, n); got != want {
				t.Errorf("Match(%q, %q) = %v, the reference says %v", p, n, got, want)
			}
		}
	}
}

func TestExpandMatchesReference(t *testing.T) {
	root := t.TempDir()
	files := []string{
		"docs/stories/1.1.a.md", "docs/stories/README.md", "docs/stories/e/2.1.b.md", "docs/stories/e/spec/x.md",
		"docs/stories/f/spec", "docs/stories/g/spec/deeper/x.md", "docs/stories/e/.git/x.md", "docs/stories/.git/y.md",
		"docs/specs/login/spec.md", "docs/specs/file.md", "qa/loop-status.json", "qa/2.1/loop-status.json",
		".git/x.md", "docs/stories/[/x", "a*/b", "top.md", "docs/stories/h/spec/x.md", "docs/stories/h/x.md/y",
		"docs/stories/e-1/3.1.c.md", "docs/stories/e.1/x.md", "docs/stories/e0/spec/x.md", "docs/stories/e.md",
		"docs/stories/e-.md", "docs/stories/e/z/zz.md", "docs/stories/e!/a.md", "docs/stories/e~/a.md",
	}
	for i := 0; i < 30; i++ { // enough in one folder for a listing out of order
		files = append(files, fmt.Sprintf("docs/stories/e/n%02d.md", (i*7)%30))
	}
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := t.TempDir()
	links := map[string]string{
		"docs/stories/e/link":     filepath.Join(root, "docs/specs"), // a folder: never followed
		"docs/stories/e/filelink": filepath.Join(root, "top.md"),
		"docs/stories/e/dirlink":  outside,
		"docs/stories/e/gone.md":  filepath.Join(root, "missing"),
		"docs/stories/i/spec":     filepath.Join(root, "docs/stories/e/spec"),
		"docs/linked":             filepath.Join(root, "docs/stories"),
	}
	for l, target := range links {
		p := filepath.Join(root, filepath.FromSlash(l))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Skip("no symlinks here:", err)
		}
	}
	if err := mkfifo(filepath.Join(root, "docs/stories/e/fifo")); err != nil {
		t.Log("no FIFO:", err)
	}
	pats := append(globPatterns, "docs/linked/*", "docs/linked/**/*.md", "docs/stories/*/gone.md", "docs/stories/*/*")
	// one CPU walks the start folder's folders itself, more share them out
	for _, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		for _, p := range pats {
			for _, dirs := range []bool{false, true} {
				got, want := Expand(root, p, dirs), expandReference(root, p, dirs)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("GOMAXPROCS %d: Expand(%q, dirs %v) = %v, the reference walk gives %v", procs, p, dirs, got, want)
				}
				// more CPUs: the walk's own order is the sorted one already
				if raw := expand(root, p, dirs); procs > 1 && !strings.Contains(p, "linked") && !slices.IsSortedFunc(raw, compareEntries) {
					t.Errorf("GOMAXPROCS %d: the walk of %q (dirs %v) is not sorted: %v", procs, p, dirs, raw)
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
	// a relative, unclean root
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(root); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = os.Chdir(wd) }()
	for _, r := range []string{".", "./", "docs/../"} {
		for _, p := range []string{"docs/stories/**/*.md", "docs/stories/*/spec"} {
			if got, want := Expand(r, p, p == "docs/stories/*/spec"), expandReference(r, p, p == "docs/stories/*/spec"); !reflect.DeepEqual(got, want) {
				t.Errorf("Expand(%q, %q) = %v, the reference walk gives %v", r, p, got, want)
			}
		}
	}
}
