package layering

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxPackageLines is the house bound on a package's non-test Go lines
// (docs/ARCHITECTURE.md, "The map: every package"): past it, a package is
// split along a seam (gitrepo → gitcache, app/cli → app/cli/jsondoc, …).
const maxPackageLines = 4000

// TestPackageSize keeps every package of the module under maxPackageLines
// non-test lines (every build tag counted), so the bound is kept by the
// suite rather than by a reviewer's count.
func TestPackageSize(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]int{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		lines[filepath.ToSlash(rel)] += bytes.Count(data, []byte("\n"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) < 10 {
		t.Fatalf("found %d packages under %s: not the module's root", len(lines), root)
	}
	var pkgs []string
	for p := range lines {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		if n := lines[p]; n > maxPackageLines {
			t.Errorf("%s has %d non-test lines, over the bound of %d: split it along a seam (docs/ARCHITECTURE.md)", p, n, maxPackageLines)
		}
	}
}
