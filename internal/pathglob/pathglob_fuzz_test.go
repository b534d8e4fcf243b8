package pathglob

import (
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fuzzPatternOK keeps the inputs small: both matchers backtrack over "**",
// so a pattern with many of them against a deep name is exponential.
func fuzzPatternOK(pattern, name string) bool {
	return len(pattern) <= 64 && len(name) <= 64 && strings.Count(pattern, "**") <= 3 && strings.Count(name, "/") <= 12
}

// FuzzMatch: Match agrees with the reference matcher (both split, then
// path.Match per segment), whatever the pattern and name.
func FuzzMatch(f *testing.F) {
	names := []string{"", "a", "a/b", "a//b", "/a", "a/", "docs/stories/x.md", "docs/stories/e/spec/x.md", "[", "**", "a/b/c/d/e"}
	for i, p := range append(globPatterns, "a/**/**/e", "**/b/**", "a/**", "a/*/", "a//b", "/a", "a[b-]/c", "\\", "a/\\*", "[^a]/**") {
		f.Add(p, names[i%len(names)])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if !fuzzPatternOK(pattern, name) {
			return
		}
		if got, want := Match(pattern, name), matchReference(pattern, name); got != want {
			t.Fatalf("Match(%q, %q) = %v, the reference says %v", pattern, name, got, want)
		}
	})
}

// FuzzExpand: Expand over a small tree gives what the reference walk
// (WalkDir and the reference matcher) gives, for files and for folders,
// and only paths that Match the cleaned pattern and lie below the root.
func FuzzExpand(f *testing.F) {
	root := f.TempDir()
	for _, p := range []string{"docs/stories/1.1.a.md", "docs/stories/e/2.1.b.md", "docs/stories/e/spec/x.md", "docs/stories/[/x",
		"docs/specs/login/spec.md", "qa/loop-status.json", "qa/2.1/loop-status.json", ".git/x.md", "docs/stories/.git/y.md", "a*/b", "top.md"} {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x"), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	for _, p := range append(globPatterns, "../*", "docs/../../*", "*/*/*/*", "**/*", "docs/**/x*") {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		if !fuzzPatternOK(pattern, "") || strings.ContainsRune(pattern, 0) {
			return
		}
		clean := strings.Trim(path.Clean("/"+pattern), "/")
		for _, dirs := range []bool{false, true} {
			got, want := Expand(root, pattern, dirs), expandReference(root, pattern, dirs)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Expand(%q, dirs %v) = %v, the reference walk gives %v", pattern, dirs, got, want)
			}
			for _, e := range got {
				if e.IsDir != dirs || strings.HasPrefix(e.Path, "../") || strings.HasPrefix(e.Path, "/") || e.Path == ".." || !Match(clean, e.Path) {
					t.Fatalf("Expand(%q, dirs %v) gives %+v", pattern, dirs, e)
				}
			}
		}
	})
}
